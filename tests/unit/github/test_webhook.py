"""GitHub webhook payloads into domain values, on the shapes GitHub documents (trimmed of fields
the bot does not read), and the signature check."""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

import pytest

from bot.domain.pr_events import (
    CheckRunUpdate,
    CommentAdded,
    CommitStatus,
    PullRef,
    PullRequestClosed,
    PullRequestUpdated,
    ReviewSubmitted,
)
from bot.inbound.github_webhook import PayloadError, parse, replay_key, signature, verify

REPOSITORY = {"id": 1296269, "name": "Infra", "full_name": "Acme/Infra", "private": True,
              "owner": {"login": "Acme", "type": "Organization"}}  # fmt: skip
SENDER = {"login": "octocat", "id": 1, "type": "User"}
PR = PullRef("acme/infra", 42)


def _pull(**extra: Any) -> dict[str, Any]:
    return {
        "url": "https://api.github.com/repos/Acme/Infra/pulls/42",
        "html_url": "https://github.com/Acme/Infra/pull/42",
        "number": 42,
        "state": "open",
        "head": {
            "ref": "tanka-bot/1700000000.000100-scale",
            "sha": "6dcb09b5b57875f334f61aebed695e2e4193db5e",
        },
        "base": {"ref": "main", "sha": "e5bd3914e2e596debea16f433f57875b5b90bcd6"},
        "merged": False,
        "merged_by": None,
        "mergeable": None,
        "mergeable_state": "unknown",
        **extra,
    }  # fmt: skip


CHECK_RUN = {
    "action": "completed",
    "check_run": {
        "id": 128620228,
        "head_sha": "ce587453ced02b1526dfb4cb910479d431683101",
        "external_id": "",
        "url": "https://api.github.com/repos/Acme/Infra/check-runs/128620228",
        "html_url": "https://github.com/Acme/Infra/runs/128620228",
        "details_url": "https://example.com",
        "status": "completed",
        "conclusion": "failure",
        "started_at": "2019-05-15T15:21:12Z",
        "completed_at": "2019-05-15T15:21:45Z",
        "output": {"title": "Mighty Readme report", "summary": "There are 0 failures",
                   "text": "You may have misspelled some words.", "annotations_count": 2},
        "name": "test",
        "check_suite": {"id": 118578147, "head_branch": "tanka-bot/1700000000.000100-scale"},
        "app": {"id": 29310, "slug": "octoapp"},
        "pull_requests": [
            {"url": "https://api.github.com/repos/Acme/Infra/pulls/42", "id": 1934, "number": 42,
             "head": {"ref": "tanka-bot/x", "sha": "ce58745"},
             "base": {"ref": "main", "sha": "f95f852"}},
        ],
    },
    "repository": REPOSITORY,
    "sender": SENDER,
}  # fmt: skip


def test_a_completed_check_run_names_its_pull_request_and_conclusion() -> None:
    [update] = parse("check_run", CHECK_RUN)
    assert update == CheckRunUpdate(
        pr=PR, head_sha="ce587453ced02b1526dfb4cb910479d431683101", check_id=128620228,
        name="test", status="completed", conclusion="failure",
        url="https://github.com/Acme/Infra/runs/128620228",
    )  # fmt: skip
    assert update.failed


def test_a_created_check_run_is_pending_and_not_failed() -> None:
    payload = {**CHECK_RUN, "action": "created",
               "check_run": {**CHECK_RUN["check_run"], "status": "queued", "conclusion": None}}  # type: ignore[dict-item]  # fmt: skip
    [update] = parse("check_run", payload)
    assert (update.status, update.conclusion, update.failed) == ("queued", "", False)  # type: ignore[union-attr]


def test_a_check_run_outside_any_pull_request_gives_nothing() -> None:
    payload = {**CHECK_RUN, "check_run": {**CHECK_RUN["check_run"], "pull_requests": []}}  # type: ignore[dict-item]
    assert parse("check_run", payload) == []


STATUS = {
    "id": 6805126730, "sha": "6113728f27ae82c7b1a177c8d03f9e96e0adf246", "name": "Acme/Infra",
    "target_url": "https://ci.example.invalid/builds/9", "context": "ci/jenkins",
    "description": "2 tests failed", "state": "failure",
    "commit": {"sha": "6113728f27ae82c7b1a177c8d03f9e96e0adf246"},
    "branches": [
        {"name": "tanka-bot/1700000000.000100-scale", "commit": {"sha": "6113728f"},
         "protected": False},
        {"name": "other", "commit": {"sha": "6113728f"}, "protected": False},
    ],
    "repository": REPOSITORY,
    "sender": SENDER,
}  # fmt: skip


def test_a_commit_status_names_its_branches_and_becomes_a_check_of_a_pull_request() -> None:
    [status] = parse("status", STATUS)
    assert status == CommitStatus(
        repo="acme/infra", sha="6113728f27ae82c7b1a177c8d03f9e96e0adf246", status_id=6805126730,
        context="ci/jenkins", state="failure", description="2 tests failed",
        url="https://ci.example.invalid/builds/9",
        branches=("other", "tanka-bot/1700000000.000100-scale"),
    )  # fmt: skip
    check = status.as_check(PR)
    assert (check.pr, check.name, check.status, check.conclusion) == (
        PR,
        "ci/jenkins",
        "completed",
        "failure",
    )
    assert (check.head_sha, check.check_id, check.summary) == (status.sha, 6805126730,
                                                                "2 tests failed")  # fmt: skip
    assert check.failed


@pytest.mark.parametrize(
    ("state", "status", "failed"),
    [("pending", "in_progress", False), ("success", "completed", False),
     ("error", "completed", True), ("failure", "completed", True)],
)  # fmt: skip
def test_commit_status_states_map_to_check_states(state: str, status: str, failed: bool) -> None:
    [commit_status] = parse("status", {**STATUS, "state": state, "description": None})
    check = commit_status.as_check(PR)  # type: ignore[union-attr]
    assert (check.status, check.failed, check.summary) == (status, failed, "")


def test_reviews_keep_their_state_in_lower_case() -> None:
    payload = {
        "action": "submitted",
        "review": {"id": 80, "user": {"login": "carol"}, "body": "Please keep prod as is.",
                   "commit_id": "ecdd80bb57125d7ba9641ffaa4d7d2c19d3f3091",
                   "submitted_at": "2019-05-15T15:20:38Z", "state": "changes_requested",
                   "html_url": "https://github.com/Acme/Infra/pull/42#pullrequestreview-80"},
        "pull_request": _pull(),
        "repository": REPOSITORY,
        "sender": SENDER,
    }  # fmt: skip
    assert parse("pull_request_review", payload) == [
        ReviewSubmitted(
            PR,
            "carol",
            "changes_requested",
            "Please keep prod as is.",
            "https://github.com/Acme/Infra/pull/42#pullrequestreview-80",
        )
    ]
    payload["action"] = "dismissed"
    assert parse("pull_request_review", payload) == []


def test_a_review_comment_names_its_file_and_line() -> None:
    payload = {
        "action": "created",
        "comment": {"id": 2, "path": "environments/dev/main.jsonnet", "line": None,
                    "original_line": 4, "user": {"login": "carol"}, "body": "why 2?",
                    "html_url": "https://github.com/Acme/Infra/pull/42#discussion_r2"},
        "pull_request": _pull(),
        "repository": REPOSITORY,
        "sender": SENDER,
    }  # fmt: skip
    [comment] = parse("pull_request_review_comment", payload)
    assert comment == CommentAdded(PR, "carol", "why 2?",
                                   "https://github.com/Acme/Infra/pull/42#discussion_r2",
                                   path="environments/dev/main.jsonnet", line=4)  # fmt: skip


def test_issue_comments_count_only_on_pull_requests() -> None:
    payload: dict[str, Any] = {
        "action": "created",
        "issue": {"number": 42, "title": "scale", "pull_request": {"url": "https://api.github.com/x"}},
        "comment": {"id": 3, "user": {"login": "dave"}, "body": "LGTM", "html_url": "https://h/3"},
        "repository": REPOSITORY,
        "sender": SENDER,
    }  # fmt: skip
    assert parse("issue_comment", payload) == [CommentAdded(PR, "dave", "LGTM", "https://h/3")]
    del payload["issue"]["pull_request"]
    assert parse("issue_comment", payload) == []


def test_closed_pull_requests_say_merged_or_not_and_by_whom() -> None:
    merged = _pull(state="closed", merged=True, merged_by={"login": "erin"})
    payload = {"action": "closed", "number": 42, "pull_request": merged,
               "repository": REPOSITORY, "sender": {"login": "erin"}}  # fmt: skip
    url = "https://github.com/Acme/Infra/pull/42"
    assert parse("pull_request", payload) == [PullRequestClosed(PR, True, "erin", url)]
    payload["pull_request"] = _pull(state="closed")
    payload["sender"] = {"login": "frank"}
    assert parse("pull_request", payload) == [PullRequestClosed(PR, False, "frank", url)]


def test_a_push_to_a_conflicting_pull_request_says_it_conflicts() -> None:
    payload = {"action": "synchronize", "number": 42,
               "pull_request": _pull(mergeable=False, mergeable_state="dirty"),
               "repository": REPOSITORY, "sender": SENDER}  # fmt: skip
    assert parse("pull_request", payload) == [
        PullRequestUpdated(PR, "6dcb09b5b57875f334f61aebed695e2e4193db5e", conflicts=True)
    ]
    payload["action"] = "labeled"
    assert parse("pull_request", payload) == []


def test_other_events_and_ping_give_nothing() -> None:
    assert parse("ping", {"zen": "Keep it logically awesome.", "hook_id": 1}) == []
    assert parse("push", {"ref": "refs/heads/main", "repository": REPOSITORY}) == []


def test_a_payload_missing_what_the_event_needs_names_the_field() -> None:
    with pytest.raises(PayloadError, match="'repository'"):
        parse("check_run", {"action": "completed", "check_run": {}})
    with pytest.raises(PayloadError, match="'number'"):
        parse("pull_request", {"action": "closed", "pull_request": {}, "repository": REPOSITORY})


def test_a_list_field_of_another_type_names_the_field() -> None:
    repo = {"full_name": "acme/infra"}
    run = {"action": "completed", "repository": repo, "check_run": {"pull_requests": 5}}
    with pytest.raises(PayloadError, match="'pull_requests' is not a list"):
        parse("check_run", run)
    status = {"repository": repo, "branches": "main", "sha": "abc", "id": 1, "context": "ci",
              "state": "success"}  # fmt: skip
    with pytest.raises(PayloadError, match="'branches' is not a list"):
        parse("status", status)


def test_the_signature_is_githubs_hmac_sha256() -> None:
    # GitHub's documented example: secret "It's a Secret to Everybody", body "Hello, World!".
    secret, body = b"It's a Secret to Everybody", b"Hello, World!"
    expected = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
    assert signature(secret, body) == expected
    assert verify(secret, body, expected)
    assert hmac.new(secret, body, hashlib.sha256).hexdigest() in expected


@pytest.mark.parametrize(
    "header",
    ["", "sha256=", "sha1=757107ea0eb2509fc211221cce984b8a37570b6d",
     "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e18", "garbage"],
)  # fmt: skip
def test_a_missing_or_wrong_signature_is_refused(header: str) -> None:
    assert not verify(b"It's a Secret to Everybody", b"Hello, World!", header)
    assert not verify(b"", b"Hello, World!", signature(b"", b"Hello, World!"))


def test_replay_keys_come_from_the_payloads_own_ids() -> None:
    comment = {"action": "created", "comment": {"id": 7, "updated_at": "t1"}}
    assert replay_key("issue_comment", comment) == "issue_comment:7:created::t1"
    assert replay_key("pull_request_review_comment", comment) is not None
    review = {"action": "submitted", "review": {"id": 8, "state": "approved"}}
    assert replay_key("pull_request_review", review) == "pull_request_review:8:submitted:approved:"
    queued = {"action": "created", "check_run": {"id": 9, "status": "queued"}}
    running = {"action": "created", "check_run": {"id": 9, "status": "in_progress"}}
    assert replay_key("check_run", queued) != replay_key("check_run", running)
    assert replay_key("status", {"id": 10, "state": "failure"}) == "status:10::failure:"
    # No id of its own: the delivery id alone dedupes it.
    assert replay_key("pull_request", {"action": "synchronize", "pull_request": {"id": 1}}) is None
    assert replay_key("ping", {"zen": "hi"}) is None
    assert replay_key("issue_comment", {"comment": {"id": "7"}}) is None
    assert replay_key("issue_comment", {"comment": {"id": True}}) is None
