"""The reviewer sub-agent with the scripted provider: verdicts, the revise-once path, budgets."""

from __future__ import annotations

from pathlib import Path

from bot.agent.agent import Agent
from bot.agent.events import ToolCallEvent, UsageEvent
from bot.agent.messages import ModelResponse, Usage
from bot.agent.review import ReviewInput, parse_review, run_reviewed_turn
from bot.domain.proposal import Proposal
from bot.slack import blocks
from fakes.scripted_provider import ScriptedProvider, call, reply, tools
from tests.unit.agent.helpers import FakeClock, Recorder, RecordingSleep, context
from tools.engine_tools.explore import TOOLS as EXPLORE
from tools.files import TOOLS as FILE_TOOLS
from tools.registry import ToolRegistry


def make(provider: ScriptedProvider) -> Agent:
    clock = FakeClock()
    return Agent(
        provider, ToolRegistry([*FILE_TOOLS, *EXPLORE]), system_prompt="main", clock=clock,
        sleep=RecordingSleep(clock), poll=0.02,
    )  # fmt: skip


class Describe:
    """The front end's view of the change: the file's content stands for the diffs."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.calls = 0

    def __call__(self) -> ReviewInput | None:
        self.calls += 1
        path = self.root / "app.txt"
        if not path.exists():
            return None
        return ReviewInput("set replicas to 5", path.read_text(), "rendered", "✓ clean")


def edit(text: str, call_id: str) -> ModelResponse:
    return tools(call("file_write", call_id, path="app.txt", content=text))


def test_parse_review_takes_the_last_verdict_line() -> None:
    assert parse_review("- fine\nVERDICT: OK") == ("ok", "- fine")
    assert parse_review("- prod changed\n**VERDICT: PROBLEMS**\n") == ("problems", "- prod changed")
    assert parse_review("no verdict here") == ("unclear", "no verdict here")


def test_an_ok_review_is_kept_and_counted_in_the_turn(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        [
            edit("replicas: 5\n", "w1"),
            reply("set to 5", usage=Usage(10, 5)),
            reply("- matches the request\nVERDICT: OK", usage=Usage(100, 7)),
        ]
    )
    recorder = Recorder()
    describe = Describe(tmp_path)
    reviewed = run_reviewed_turn(
        make(provider), [], "set replicas to 5", context(tmp_path), describe=describe,
        observer=recorder,
    )  # fmt: skip

    assert reviewed.result.ok
    assert reviewed.result.text == "set to 5"
    assert reviewed.review is not None
    assert reviewed.review.verdict == "ok"
    assert reviewed.review.findings == "- matches the request"
    assert reviewed.review.reviewer == "review-1"
    assert reviewed.result.usage == Usage(10, 5) + Usage(10, 5) + Usage(100, 7)
    assert reviewed.result.steps == 3
    review_request = provider.requests[2]
    assert review_request.system.startswith("You review a change")
    assert "The git diff:\n```diff\nreplicas: 5" in review_request.messages[0].text
    assert "tanka_check findings:\n✓ clean" in review_request.messages[0].text
    offered = {s.name for s in review_request.tools}
    assert "file_write" not in offered
    assert {"file_read", "explore"} <= offered
    assert [e.agent.id for e in recorder.of(UsageEvent)][-1] == "review-1"


def test_problems_lead_to_one_revision_and_a_review_of_the_final_state(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        [
            edit("replicas: 50\n", "w1"),
            reply("set to 50"),
            reply("- replicas is 50, the request says 5\nVERDICT: PROBLEMS"),
            edit("replicas: 5\n", "w2"),
            reply("fixed: 5"),
            reply("- good now\nVERDICT: OK"),
        ]
    )
    recorder = Recorder()
    reviewed = run_reviewed_turn(
        make(provider), [], "set replicas to 5", context(tmp_path), describe=Describe(tmp_path),
        observer=recorder,
    )  # fmt: skip

    assert reviewed.result.ok
    assert reviewed.result.text == "fixed: 5"
    assert (tmp_path / "app.txt").read_text() == "replicas: 5\n"
    review = reviewed.review
    assert review is not None
    assert (review.verdict, review.revised, review.reviewer) == ("ok", True, "review-2")
    assert review.text() == "no blocking problems found (after one revision)\n- good now"
    # The agent saw the findings as its next request, on top of its own turn.
    revise = provider.requests[3].messages[-1].text
    assert "- replicas is 50, the request says 5" in revise
    assert reviewed.result.steps == 6
    assert len(reviewed.result.messages) == 4 + 4
    names = [e.call.name for e in recorder.of(ToolCallEvent)]
    assert names == ["file_write", "file_write"]


def test_only_one_revision_even_if_problems_remain(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        [
            edit("a\n", "w1"),
            reply("done"),
            reply("- bad\nVERDICT: PROBLEMS"),
            edit("b\n", "w2"),
            reply("revised"),
            reply("- still bad\nVERDICT: PROBLEMS"),
        ]
    )
    reviewed = run_reviewed_turn(
        make(provider), [], "x", context(tmp_path), describe=Describe(tmp_path)
    )
    assert provider.remaining == 0
    assert reviewed.review is not None
    assert reviewed.review.verdict == "problems"
    assert reviewed.review.revised
    assert reviewed.review.text().startswith("problems found (after one revision)\n- still bad")


def test_a_revision_that_changes_nothing_keeps_the_first_review(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        [edit("a\n", "w1"), reply("done"), reply("- hmm\nVERDICT: PROBLEMS"), reply("it is right")]
    )
    reviewed = run_reviewed_turn(
        make(provider), [], "x", context(tmp_path), describe=Describe(tmp_path)
    )
    assert reviewed.result.text == "it is right"
    assert reviewed.review is not None
    assert reviewed.review.note == "the agent answered the review without changing files"
    assert provider.remaining == 0


def test_no_change_or_review_off_means_no_review(tmp_path: Path) -> None:
    provider = ScriptedProvider([reply("nothing to do")])
    describe = Describe(tmp_path)
    reviewed = run_reviewed_turn(make(provider), [], "x", context(tmp_path), describe=describe)
    assert reviewed.review is None
    off = ScriptedProvider([edit("a\n", "w1"), reply("done")])
    other = tmp_path / "off"
    other.mkdir()
    reviewed = run_reviewed_turn(
        make(off), [], "x", context(other), describe=Describe(other), enabled=False
    )
    assert reviewed.review is None
    assert off.remaining == 0


def test_a_failing_reviewer_leaves_the_change_unreviewed_not_lost(tmp_path: Path) -> None:
    provider = ScriptedProvider([edit("a\n", "w1"), reply("done")])  # nothing left for it
    reviewed = run_reviewed_turn(
        make(provider), [], "x", context(tmp_path), describe=Describe(tmp_path)
    )
    assert reviewed.result.ok
    assert reviewed.review is not None
    assert reviewed.review.verdict == "unavailable"
    assert "the review stopped early: invalid: scripted provider" in reviewed.review.findings


def test_the_review_appears_in_the_proposal_under_review() -> None:
    shown = Proposal(base_commit="a", tree="b", diff_hash="c", files=("a",), diff="+a\n",
                     review="problems found\n- prod changed too")  # fmt: skip
    rendered = blocks.proposal(shown, number=1, envs=[], rendered="", emoji="ok")
    texts = [b["text"]["text"] for b in rendered.blocks]
    assert "*Review*: problems found\n- prod changed too" in texts
    assert texts[-1].startswith("React with :ok:")
    long = blocks.review_section("ok\n" + "- x\n" * 2000)["text"]["text"]
    assert len(long) < blocks.SECTION_LIMIT
