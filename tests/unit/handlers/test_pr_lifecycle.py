"""After the pull request: merged or closed in GitHub's state, the session's next branch, and
which proposals an approval may still publish. Pure."""

from __future__ import annotations

from bot.domain.pr_events import PullRef, PullRequestClosed, PullRequestUpdated
from bot.domain.pr_state import PullRequestState
from bot.domain.proposal import Proposal
from bot.domain.sessions import PullRequestRecord, Session
from bot.handlers.approve import pull_request_refusal
from bot.handlers.rebase import conflict_text, rebased_text, up_to_date_text

PR = PullRef("acme/infra", 3)
B0, B1 = "0" * 40, "1" * 40
BRANCH = "tanka-bot/1700000000-000100-scale-prod"


def _session(*proposals: Proposal, state: str = "open") -> Session:
    session = Session(channel="C1", thread_ts="1700000000.000100", requester="U1",
                      request="scale prod", created=0, updated=0, base_branch="main",
                      branch=BRANCH, proposals=list(proposals))  # fmt: skip
    session.pull_request = PullRequestRecord.model_validate(
        {"number": 3, "url": "https://gh/pull/3", "branch": BRANCH, "state": state}
    )
    return session


def _proposal(ts: str, base: str, *, approved: bool = False) -> Proposal:
    return Proposal(ts=ts, base_commit=base, tree="t" + ts, diff_hash="h" + ts,
                          files=("a",), approved_by=("U2",) if approved else ())  # fmt: skip


def test_closed_and_merged_are_told_apart_and_a_reopen_clears_them() -> None:
    state = PullRequestState(repo=PR.repo, number=3, thread="C1:1.1")
    state.apply_closed(PullRequestClosed(PR, merged=False, by="erin", url=""))
    assert (state.closed, state.merged) == (True, False)
    state.apply_update(PullRequestUpdated(PR, "a" * 40, conflicts=False))  # reopened
    assert (state.closed, state.merged) == (False, False)
    state.apply_closed(PullRequestClosed(PR, merged=True, by="erin", url=""))
    assert (state.closed, state.merged) == (True, True)


def test_retiring_numbers_the_next_branches_after_the_first() -> None:
    session = _session()
    session.retire_pull_request()
    assert session.pull_request is None
    assert session.branch == f"{BRANCH}-2"
    assert [p.number for p in session.past_pull_requests] == [3]
    session.pull_request = PullRequestRecord(number=4, url="u", branch=session.branch)
    session.retire_pull_request()
    assert session.branch == f"{BRANCH}-3"
    session.retire_pull_request()  # nothing open: nothing changes
    assert session.branch == f"{BRANCH}-3"
    assert Session.from_json(session.to_json()) == session


def test_an_open_pull_request_is_not_published_twice() -> None:
    done = _proposal("1", B0, approved=True)
    assert (
        pull_request_refusal(_session(done), done) == "this proposal is already in pull request #3"
    )
    fix = _proposal("2", B0)
    assert pull_request_refusal(_session(done, fix), fix) is None  # a new commit on the same PR


def test_after_a_close_the_same_proposal_may_open_a_new_pull_request() -> None:
    done = _proposal("1", B0, approved=True)
    assert pull_request_refusal(_session(done, state="closed"), done) is None


def test_after_a_merge_a_proposal_on_the_old_base_must_be_rebased_first() -> None:
    done = _proposal("1", B0, approved=True)
    follow_up = _proposal("2", B0)
    why = pull_request_refusal(_session(done, follow_up, state="merged"), follow_up) or ""
    assert "#3 was merged" in why
    assert "reply `rebase`" in why
    rebased = _proposal("3", B1)
    assert pull_request_refusal(_session(done, rebased, state="merged"), rebased) is None


def test_rebase_texts_name_the_branch_commits_and_files() -> None:
    assert "`main` (`1111111`)" in up_to_date_text("main", B1)
    text = conflict_text("main", B1, ("environments/dev/main.jsonnet", "lib/a.libsonnet"), B0)
    assert "in 2 file(s): `environments/dev/main.jsonnet`, `lib/a.libsonnet`" in text
    assert "stays on `0000000`" in text
    assert "0000000 → 1111111" in rebased_text("main", B0, B1, empty=False)
    assert "nothing to propose" in rebased_text("main", B0, B1, empty=True)
