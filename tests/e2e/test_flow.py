"""Mention to proposal to approval to pull request, over real HTTP into `tanka-bot serve`."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.harness import BOB, MALLORY, stack
from tests.scenarios.models import Call
from tests.scenarios.project import git

DEV = "environments/dev/main.jsonnet"


def _script_scale(model: object, replicas: int = 3) -> None:
    model.calls(  # type: ignore[attr-defined]
        Call(
            "c1",
            "file_edit",
            {"path": DEV, "old_text": "replicas=1", "new_text": f"replicas={replicas}"},
        ),
        text="Scaling grafana in dev.",
    )
    model.answer(f"Set grafana's replicas in dev to {replicas}.")  # type: ignore[attr-defined]


def test_mention_proposal_approval_pull_request(tmp_path: Path) -> None:
    with stack(tmp_path) as s:
        s.start_bot()
        _script_scale(s.model)
        root = s.mention("scale grafana in dev to 3")
        proposal = s.proposal(root.ts)
        text = str(proposal.blocks)
        assert "environments/dev" in text
        assert "replicas=3" in text  # the git diff, inline
        assert "replicas: 3" in text  # the rendered diff, inline
        assert ":white_check_mark: to open a pull request" in text
        s.wait_text(root.ts, "Set grafana's replicas in dev to 3")

        s.react(proposal.ts, "white_check_mark", user=MALLORY)
        s.wait_text(root.ts, "not one of the approvers")

        s.react(proposal.ts, "white_check_mark", user=BOB)
        done = s.wait_text(root.ts, "Opened pull request #")
        repo = s.github.repos["acme/infra"]
        pull = next(iter(repo.pulls.values()))
        assert pull.head.startswith("tanka-bot/")
        assert "U0ALICE" in pull.body
        assert "U0BOB" in pull.body
        assert "environments/dev: 0 added, 1 changed, 0 removed" in pull.body
        assert f"#{pull.number}" in done.text
        assert "replicas=3" in git(s.origin, "show", f"{pull.head}:{DEV}")
        assert s.slack.violations == []
