"""What a proposal may show: no Secret value in any form, and the checks before approval."""

from __future__ import annotations

import json
from pathlib import Path

from fakes import github_webhooks as hooks
from tests.e2e.harness import BOB, CHANNEL, Stack, stack
from tests.e2e.test_teams import audit
from tests.scenarios.models import Call
from tests.scenarios.project import make_project_with_policy
from tests.secret_repo import (
    APP,
    CREDS,
    ENV,
    NEW_PASSWORD,
    NEW_VISIBLE,
    PASSWORD,
    VISIBLE,
    leaks,
    make_secret_repo,
    make_secret_repo_with_copy,
)

DEV = "environments/dev/main.jsonnet"


def _everything_posted(s: Stack) -> str:
    parts = [m.text + str(m.blocks or "") for m in s.slack.messages(CHANNEL)]
    for thread_root in {m.thread_root for m in s.slack.messages(CHANNEL)}:
        parts += [m.text + str(m.blocks or "") for m in s.slack.thread(CHANNEL, thread_root)]
    parts += [f"{u.title} {u.text}" for u in s.slack.uploads]
    return "\n".join(parts)


def _rotate(s: Stack) -> None:
    """The model's next step: the new password in the source, a new non-secret value."""
    s.model.calls(
        Call("e1", "file_edit", {"path": CREDS, "old_text": PASSWORD, "new_text": NEW_PASSWORD}),
        Call("e2", "file_edit", {"path": f"{ENV}/main.jsonnet", "old_text": f"'{VISIBLE}'",
                                 "new_text": f"'{NEW_VISIBLE}'"}),
    )  # fmt: skip


def test_secret_values_never_reach_slack_or_the_pull_request(tmp_path: Path) -> None:
    with stack(tmp_path, project=make_secret_repo) as s:
        s.start_bot()
        _rotate(s)
        s.model.calls(Call("d1", "tanka_diff", {"env_path": ENV}))
        s.model.answer(f"Rotated the password from {PASSWORD} to {NEW_PASSWORD}.")
        root = s.mention("rotate the db password")
        proposal = s.proposal(root.ts)
        s.wait_text(root.ts, "Rotated the password")
        # The rendered diff the model got was masked too.
        assert "<redacted>" in str(s.model.results(2))
        assert leaks(str(s.model.results(2))) == []
        posted = _everything_posted(s)
        assert leaks(posted) == []
        assert NEW_VISIBLE in posted  # what is not secret stays visible
        assert "<redacted>" in posted

        s.react(proposal.ts, "white_check_mark", user=BOB)
        s.wait_text(root.ts, "Opened pull request #1")
        pull = next(iter(s.github.repos["acme/infra"].pulls.values()))
        assert leaks(pull.body + pull.title) == []


def test_after_a_restart_the_approval_still_masks_what_the_change_renders(tmp_path: Path) -> None:
    # Masks live in memory only (Secret values never go to the store). A replica that never
    # rendered the change must learn its Secret values before it posts anything of it: here the
    # request itself carries the new password, and goes into the pull request's title and body.
    with stack(tmp_path, project=make_secret_repo, redis=True) as s:
        s.start_bot()
        _rotate(s)
        s.model.answer("Rotated.")
        root = s.mention(f"set the db password to {NEW_PASSWORD}")
        proposal = s.proposal(root.ts)
        assert s.bot is not None
        s.bot.stop()

        s.start_bot({"TANKA_BOT_WORKDIR": str(tmp_path / "replica-2")})
        s.react(proposal.ts, "white_check_mark", user=BOB)
        s.wait_text(root.ts, "Opened pull request #1")
        pull = next(iter(s.github.repos["acme/infra"].pulls.values()))
        assert "<redacted>" in pull.title
        assert leaks(pull.body + pull.title) == []
        said = [m.text + str(m.blocks or "") for m in s.slack.bot_messages(CHANNEL, root.ts)]
        assert "Opened pull request #1" in "".join(said)
        assert leaks("\n".join(said)) == []


def test_the_first_tool_output_is_masked_and_again_after_a_restart(tmp_path: Path) -> None:
    # Nothing rendered yet: the model first reads the source holding the values, then shows an
    # environment with no Secret whose ConfigMap copies the password. Then a new process on the
    # same Redis takes the thread's next turn, whose first call reads the source again, and the
    # change it makes is approved: its pull request shows no value either.
    with stack(tmp_path, project=make_secret_repo_with_copy, redis=True) as s:
        s.start_bot()
        s.model.calls(Call("r1", "file_read", {"path": CREDS}))
        s.model.calls(Call("s1", "tanka_show", {"env_path": APP}))
        s.model.answer(f"The copy holds {PASSWORD}.")
        root = s.mention("where is the db password copied?")
        s.wait_text(root.ts, "The copy holds")
        first = [s.model.results(1), s.model.results(2)]
        assert [leaks(seen.content) for results in first for seen in results] == [[], []]
        assert "copied_url: <redacted>" in first[1][0].content
        assert s.bot is not None
        s.bot.stop()

        s.start_bot({"TANKA_BOT_WORKDIR": str(tmp_path / "replica-2")})
        s.model.calls(Call("r2", "file_read", {"path": CREDS}))
        _rotate(s)
        s.model.answer(f"Rotated {PASSWORD}.")
        s.reply(root.ts, f"rotate it, it is {PASSWORD} now")  # audited: masked there too
        proposal = s.proposal(root.ts)
        s.wait_text(root.ts, "Rotated")
        again = s.model.results(4)
        assert [leaks(seen.content) for seen in again] == [[]]
        assert "password: '<redacted>'" in again[0].content
        s.react(proposal.ts, "white_check_mark", user=BOB)
        s.wait_text(root.ts, "Opened pull request #1")
        pull = next(iter(s.github.repos["acme/infra"].pulls.values()))
        assert leaks(pull.body + pull.title) == []
        said = [m.text + str(m.blocks or "") for m in s.slack.bot_messages(CHANNEL, root.ts)]
        said += [f"{u.title} {u.text}" for u in s.slack.uploads]
        assert leaks("\n".join(said)) == []  # the reply quoting the password is a person's
        told = [e for e in audit(s, "--thread", root.ts) if e["event"] == "message"]
        assert [e["details"]["text"] for e in told][-1] == "rotate it, it is <redacted> now"
        assert leaks(json.dumps(audit(s, "--thread", root.ts))) == []


def test_after_a_restart_github_news_quoting_a_value_is_masked(tmp_path: Path) -> None:
    # The pull request's branch holds the value; a comment on it may quote it. A replica that
    # never rendered the change learns its values before it relays GitHub's news too.
    with stack(tmp_path, project=make_secret_repo, redis=True) as s:
        s.start_bot()
        _rotate(s)
        s.model.answer("Rotated.")
        root = s.mention("rotate the db password")
        proposal = s.proposal(root.ts)
        s.react(proposal.ts, "white_check_mark", user=BOB)
        s.wait_text(root.ts, "Opened pull request #1")
        assert s.bot is not None
        s.bot.stop()

        s.start_bot({"TANKA_BOT_WORKDIR": str(tmp_path / "replica-2")})
        repo = s.github.repos["acme/infra"]
        pull = next(iter(repo.pulls.values()))
        body = f"is {NEW_PASSWORD} meant to be in the diff?"
        s.webhooks.send("issue_comment", hooks.issue_comment(repo, pull, by="dave", body=body))
        shown = s.wait_text(root.ts, "*dave* commented on pull request #1")
        assert "<redacted>" in shown.text
        assert leaks(shown.text + str(shown.blocks or "")) == []


def test_the_proposal_shows_the_checks_before_anyone_approves(tmp_path: Path) -> None:
    with stack(tmp_path, project=make_project_with_policy) as s:
        s.start_bot()
        s.model.calls(
            Call(
                "e1", "file_edit", {"path": DEV, "old_text": "replicas=1", "new_text": "replicas=9"}
            )
        )
        s.model.answer("Dev runs 9 now.")
        root = s.mention("scale grafana in dev to 9")
        proposal = s.proposal(root.ts)
        blocks = str(proposal.blocks)
        assert "*Checks* :x:" in blocks
        assert "more than 5 replicas needs a capacity review" in blocks
