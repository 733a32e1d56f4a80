"""The reviewer and MCP servers in `tanka-bot serve`: a change reviewed, revised once, and the
proposal showing the review of the final state; a failing MCP server leaves /readyz at 200."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.e2e.harness import BOB, stack
from tests.scenarios.models import Call

DEV = "environments/dev/main.jsonnet"
REPO = Path(__file__).resolve().parents[2]


def edit(old: str, new: str) -> dict[str, str]:
    return {"path": DEV, "old_text": old, "new_text": new}


def test_the_reviewer_finds_a_problem_and_the_agent_revises_once(tmp_path: Path) -> None:
    mcp = tmp_path / "mcp.yaml"
    mcp.write_text(
        "servers:\n"
        f"  ops:\n    command: [{sys.executable}, -m, fakes.mcp_server]\n"
        f"    env: {{PYTHONPATH: '{REPO}'}}\n"
        "  gone:\n    command: [no-such-mcp-binary]\n"
    )
    with stack(tmp_path) as s:
        bot = s.start_bot({"TANKA_BOT_REVIEW": "true", "TANKA_BOT_MCP_CONFIG": str(mcp)})
        status, body = bot.get("/readyz")
        assert status == 200
        assert "degraded: MCP server gone: cannot start" in body
        s.model.calls(
            Call(
                "c1",
                "file_edit",
                {"path": DEV, "old_text": "replicas=1", "new_text": "replicas=30"},
            )
        )
        s.model.answer("Set dev to 30.")
        s.model.answer("- dev is set to 30; the request says 3\nVERDICT: PROBLEMS")
        s.model.calls(
            Call(
                "c2",
                "file_edit",
                {"path": DEV, "old_text": "replicas=30", "new_text": "replicas=3"},
            )
        )
        s.model.answer("Fixed: dev runs 3.")
        s.model.answer("- matches the request now\nVERDICT: OK")
        root = s.mention("scale grafana in dev to 3")
        proposal = s.proposal(root.ts)
        text = str(proposal.blocks)
        assert "*Review*: no blocking problems found (after one revision)" in text
        assert "matches the request now" in text
        assert "replicas=3" in text
        s.wait_text(root.ts, "Fixed: dev runs 3.")
        bodies = s.model.bodies()
        assert len(bodies) == 6
        # The agent offers the MCP server's read-only tools; the reviewer gets no writing tool.
        main_tools = {t["name"] for t in bodies[0]["tools"]}
        assert {"mcp__ops__firing_alerts", "explore"} <= main_tools
        assert "mcp__ops__silence" not in main_tools
        review_tools = {t["name"] for t in bodies[2]["tools"]}
        assert "file_edit" not in review_tools
        assert "mcp__ops__firing_alerts" in review_tools
        assert "dev is set to 30" in str(bodies[3]["messages"][-1])
        # The approved pull request carries the review the proposal showed.
        s.react(proposal.ts, "white_check_mark", user=BOB)
        s.wait_text(root.ts, "Opened pull request #1")
        pull = next(iter(s.github.repos["acme/infra"].pulls.values()))
        assert "**Review**" in pull.body
        assert "matches the request now" in pull.body
