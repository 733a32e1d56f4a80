"""Branch names, titles and pull request descriptions of published changes."""

from __future__ import annotations

import re
import subprocess

import pytest

from bot.publish.pr_text import (
    BODY_LIMIT,
    NOTHING_APPLIED,
    WORD_JOINER,
    branch_name,
    pr_body,
    pr_title,
    quiet,
    slugify,
)


def test_pr_body_names_everything_the_reviewer_needs() -> None:
    body = pr_body(
        summary="Bumped app to 2.",
        files=["lib/app.libsonnet", "lib/new.libsonnet"],
        requester="Ada",
        approver="Grace",
        environments=["environments/prod"],
        thread_url="https://acme.slack.com/archives/C1/p1",
        request="bump app\nplease",
    )
    assert body.splitlines() == [
        "**Request**",
        "",
        "> bump app",
        "> please",
        "",
        "**Summary**",
        "",
        "Bumped app to 2.",
        "",
        "**Files changed (2)**",
        "",
        "- `lib/app.libsonnet`",
        "- `lib/new.libsonnet`",
        "",
        "**Environments affected (1)**",
        "",
        "- `environments/prod`",
        "",
        "Requested by Ada · approved by Grace",
        "Slack thread: https://acme.slack.com/archives/C1/p1",
        "",
        "---",
        "Opened by tanka-bot. Nothing was applied to any cluster: this change takes effect only "
        "when it is merged and deployed the usual way.",
    ]
    minimal = pr_body(summary="", files=["a"], requester="me", approver="me")
    assert "Slack thread" not in minimal
    assert "Environments" not in minimal
    assert "Nothing was applied to any cluster" in minimal


@pytest.mark.parametrize(
    ("key", "request_text", "expected"),
    [
        ("1712345678.000100", "Bump Grafana to 11.2!", "1712345678.000100-bump-grafana-to-11-2"),
        ("chat-20240405", "Élargir à 3 répliques", "chat-20240405-elargir-a-3-repliques"),
        ("..a b~c^d:e?*[\\", "", "a-b-c-d-e-change"),
        ("x", "@{ .lock ..", "x-lock"),
        ("x", "🎉🎉", "x-change"),
    ],
)  # fmt: skip
def test_branch_names_are_readable_and_valid(key: str, request_text: str, expected: str) -> None:
    name = branch_name(key, request_text)
    assert name == f"tanka-bot/{expected}"
    subprocess.run(["git", "check-ref-format", "--branch", name], check=True, capture_output=True)


def test_the_reviewers_findings_go_into_the_body_and_are_bounded() -> None:
    body = pr_body(summary="", files=["a"], requester="Ada", approver="Grace",
                   review="*Review*: one problem\n- prod is set to 30")  # fmt: skip
    assert "**Review**\n\n*Review*: one problem\n- prod is set to 30\n" in body
    assert "**Review**" not in pr_body(summary="", files=["a"], requester="A", approver="G")
    long = pr_body(summary="", files=["a"], requester="A", approver="G", review="x\n" * 10_000)
    assert len(long) < 8_000
    assert "cut to fit GitHub's limit" in long


def test_slugs_and_titles_are_bounded() -> None:
    long = "scale " + " ".join(["the-loki-ingesters"] * 10)
    assert len(slugify(long)) <= 40
    assert slugify(long).startswith("scale-the-loki-ingesters")
    assert not slugify(long).endswith("-")
    assert slugify("x" * 100) == "x" * 40
    assert pr_title("  add redis\nto dev  ") == "add redis"
    title = pr_title("word " * 40)
    assert len(title) <= 72
    assert title.endswith("…")
    assert pr_title("") == "tanka-bot change"


def test_a_huge_summary_is_cut_under_githubs_limit_with_a_pointer_to_the_thread() -> None:
    summary = "\n".join(
        f"environments/gen-{i:04d}: 0 added, 1 changed, 0 removed" for i in range(5000)
    )
    body = pr_body(
        summary=summary,
        files=["lib/app.libsonnet"],
        requester="a",
        approver="b",
        environments=[f"environments/gen-{i:04d}" for i in range(5000)],
        thread_url="https://slack.example/archives/C1/p1",
        request="x\n" * 9000,
    )
    assert len(body) < BODY_LIMIT
    assert "environments/gen-0000: 0 added" in body
    assert "the whole text is in the Slack thread: https://slack.example/archives/C1/p1" in body
    assert body.endswith(f"{NOTHING_APPLIED}\n")


# Untrusted text is quoted so that GitHub does not act on it.

HOSTILE = "scale grafana in dev to 3. Closes #1 cc @acme/everyone"
# What GitHub acts on: a closing keyword, an optional colon, then an issue reference; @mentions.
ACTS = re.compile(
    r"\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\s*:?\s*(?:#\d|gh-\d|[\w.-]+/[\w.-]+#\d|https?://)"
    r"|(?<![A-Za-z0-9])@[A-Za-z0-9]",
    re.IGNORECASE,
)


def test_the_title_does_not_close_issues_or_mention_anyone() -> None:
    title = pr_title(HOSTILE)
    assert ACTS.search(title) is None, title
    assert title.replace(WORD_JOINER, "") == HOSTILE  # reads the same


@pytest.mark.parametrize(
    "text",
    [
        "Closes #1",
        "fixes: #12",
        "RESOLVED acme/infra#3",
        "fix   https://github.com/acme/infra/issues/4",
        "closed GH-5",
        "Fixed:\n#6",
        "cc @alice and @acme/sre-team",
        "(@bob)",
    ],
)
def test_every_closing_keyword_and_mention_is_quieted(text: str) -> None:
    quieted = quiet(text)
    assert ACTS.search(quieted) is None, quieted
    assert quieted.replace(WORD_JOINER, "") == text
    assert quiet(quieted) == quieted


def test_ordinary_words_and_emails_are_left_alone() -> None:
    text = "fix the replicas, close the gap, mail ops@example.com about #1 and enclose #2"
    assert quiet(text) == text


def test_the_body_quiets_the_request_summary_and_review_but_not_its_own_lines() -> None:
    body = pr_body(
        summary="Scaled grafana. Fixes #1, thanks @carol",
        files=["environments/dev/main.jsonnet"],
        requester="Slack user U0ALICE",
        approver="Slack user U0BOB",
        thread_url="https://acme.slack.com/archives/C1/p1",
        request=HOSTILE,
        review="Resolves acme/infra#2 per @acme/reviewers",
    )
    assert ACTS.search(body) is None, body
    for words in (HOSTILE, "Fixes #1, thanks @carol", "Resolves acme/infra#2 per @acme/reviewers"):
        assert words in body.replace(WORD_JOINER, "")


def test_a_long_run_of_letters_is_quieted_in_linear_time() -> None:
    # A bound on input, not a timer: 200,000 letters after a keyword would stall a quadratic
    # pattern for minutes; a linear one takes milliseconds.
    text = ("fix " + "a" * 100_000 + " ") * 2 + "@" * 50_000
    assert quiet(text) == text
