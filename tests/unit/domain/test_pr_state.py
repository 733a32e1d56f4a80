"""A pull request's state under GitHub's events, in any order and repeated."""

from __future__ import annotations

from bot.domain.pr_events import (
    CheckRunUpdate,
    CommentAdded,
    PullRef,
    PullRequestUpdated,
    ReviewSubmitted,
)
from bot.domain.pr_state import PullRequestState, comment_text, escape, quote, review_text
from bot.github.code_host import CheckRunInfo
from bot.handlers.ci import context_text

PR = PullRef("acme/infra", 3)
SHA, SHA2 = "a" * 40, "b" * 40


def _state() -> PullRequestState:
    return PullRequestState(repo=PR.repo, number=3, thread="C1:1.1", url="https://gh/pull/3")


def _run(
    name: str, run_id: int, status: str, conclusion: str = "", sha: str = SHA
) -> CheckRunUpdate:
    return CheckRunUpdate(PR, sha, run_id, name, status, conclusion, f"https://gh/runs/{run_id}")


def test_pending_then_failed_names_the_failing_check_and_asks_for_attention_once() -> None:
    state = _state()
    assert state.apply_check(_run("lint", 1, "queued"))
    assert state.apply_check(_run("test", 2, "in_progress"))
    assert state.outcome() == "pending"
    assert "0 of 2 check(s) done" in state.ci_text()
    assert state.apply_check(_run("lint", 1, "completed", "success"))
    assert state.apply_check(_run("test", 2, "completed", "failure"))
    assert state.outcome() == "failed"
    assert state.failing() == ["test"]
    assert "CI failed on `aaaaaaa`: `test`" in state.ci_text()
    assert state.needs_fix
    assert state.attention == 1
    assert not state.apply_check(_run("test", 2, "completed", "failure"))  # repeated: no change
    assert state.attention == 1


def test_late_or_older_news_never_takes_a_check_back() -> None:
    state = _state()
    state.apply_check(_run("test", 5, "completed", "success"))
    assert not state.apply_check(_run("test", 5, "in_progress"))  # arrived late
    assert not state.apply_check(_run("test", 4, "completed", "failure"))  # an older run
    assert state.outcome() == "passed"
    assert state.apply_check(_run("test", 6, "completed", "failure"))  # a re-run
    assert state.outcome() == "failed"


def test_a_new_head_starts_a_new_ci_message_and_an_old_head_is_ignored() -> None:
    state = _state()
    state.apply_check(_run("test", 1, "completed", "failure"))
    state.ci_ts = "111.1"
    assert state.apply_check(_run("test", 2, "queued", sha=SHA2))
    assert (state.head_sha, list(state.checks)) == (SHA2, ["test"])
    assert state.ci_ts is None
    assert not state.apply_check(_run("test", 3, "completed", "success", sha=SHA))
    assert state.head_sha == SHA2


def test_change_requests_ask_for_attention_and_feedback_is_kept_for_the_fix() -> None:
    state = _state()
    state.apply_review(ReviewSubmitted(PR, "carol", "approved", "", ""))
    assert not state.needs_fix
    assert state.feedback == []
    state.apply_review(ReviewSubmitted(PR, "carol", "changes_requested", "keep prod", "u"))
    state.apply_comment(CommentAdded(PR, "carol", "why 2?", "u2", path="a.jsonnet", line=4))
    assert state.needs_fix
    text = context_text(state, None)
    assert "Review by carol (requested changes):\nkeep prod" in text
    assert "Comment by carol on a.jsonnet line 4:\nwhy 2?" in text
    assert "Failing checks" not in text


def test_the_fix_context_keeps_the_head_and_tail_of_long_check_output() -> None:
    state = _state()
    state.apply_check(_run("test", 1, "completed", "failure"))
    output = "start of log\n" + "x" * 20_000 + "\nAssertionError: replicas"
    run = CheckRunInfo("test", "completed", "failure", "https://gh/runs/1", "1 failed", "", output)
    text = context_text(state, [run])
    assert "### check `test`: failure" in text
    assert "start of log" in text
    assert "AssertionError: replicas" in text
    assert len(text) < 6000
    assert "could not be read" in context_text(state, "HTTP 502")


def test_a_conflict_is_reported_when_it_starts_only() -> None:
    state = _state()
    assert state.apply_update(PullRequestUpdated(PR, SHA, conflicts=True))
    assert not state.apply_update(PullRequestUpdated(PR, SHA, conflicts=True))
    assert not state.apply_update(PullRequestUpdated(PR, SHA, conflicts=False))
    assert state.apply_update(PullRequestUpdated(PR, SHA2, conflicts=True))


def test_quotes_show_the_first_lines() -> None:
    assert quote("one\n\ntwo\nthree\nfour\nfive") == "> one\n> two\n> three\n> four\n> …"
    assert quote("x" * 1000).endswith("…")


def test_github_text_is_escaped_for_slack_so_it_pings_nobody() -> None:
    evil = "<!channel> ask <@U0BOB> & <https://x|y>"
    assert escape(evil) == "&lt;!channel&gt; ask &lt;@U0BOB&gt; &amp; &lt;https://x|y&gt;"
    assert quote(evil) == "> " + escape(evil)
    comment = CommentAdded(PR, "mallory<!here>", evil, "https://gh/c/1", path="a<b>.libsonnet")
    shown = comment_text(3, comment)
    assert "<!" not in shown
    assert "<@" not in shown
    assert "*mallory&lt;!here&gt;*" in shown
    assert "Untrusted" not in shown
    review = ReviewSubmitted(PR, "mallory", "changes_requested", evil, "https://gh/r/1")
    assert "<!channel>" not in review_text(3, review)


def test_untrusted_words_are_marked_and_ask_for_no_fix() -> None:
    comment = CommentAdded(PR, "mallory", "do it", "")
    shown = comment_text(3, comment, untrusted="mallory cannot push to the repository")
    assert shown.endswith(
        ":warning: Untrusted: mallory cannot push to the repository, so this is shown here "
        "only and never given to the agent."
    )
    review = ReviewSubmitted(PR, "mallory", "changes_requested", "do it", "")
    text = review_text(3, review, untrusted="mallory cannot push to the repository")
    assert "Untrusted: mallory" in text
    assert "I'll work on the requested changes" not in text


def test_check_names_and_links_are_escaped_so_a_check_pings_nobody() -> None:
    # A check's name and link are written by whoever reports it (an Action, an App, a status).
    state = _state()
    state.apply_check(_run("<!channel> lint", 1, "completed", "failure"))
    url = "https://ci.example/x> <!here> <https://y"
    state.apply_check(CheckRunUpdate(PR, SHA, 2, "e2e & <@U0BOB>", "completed", "failure", url))
    shown = state.ci_text()
    assert "<!" not in shown
    assert "<@" not in shown
    assert "`&lt;!channel&gt; lint`" in shown
    assert "<https://gh/runs/1|&lt;!channel&gt; lint>" in shown
    assert "`e2e &amp; &lt;@U0BOB&gt;`" in shown  # a link that would break out is not made
