"""`rebase` in the thread and the pull request after a merge, over real HTTP into `tanka-bot
serve` with real git: the origin's main moves under an open pull request, with and without a
conflicting change; a merged pull request is never pushed to again."""

from __future__ import annotations

import json
from pathlib import Path

from fakes import github_webhooks as hooks
from fakes.slack_server import SlackMessage
from tests.e2e.harness import BOB, Stack, stack
from tests.scenarios.models import Call
from tests.scenarios.project import git

DEV = "environments/dev/main.jsonnet"
PROD = "environments/prod/main.jsonnet"
REPO = "acme/infra"


def _open_pull_request(s: Stack) -> SlackMessage:
    s.model.calls(
        Call("c1", "file_edit", {"path": DEV, "old_text": "replicas=1", "new_text": "replicas=3"})
    )
    s.model.answer("Set grafana's replicas in dev to 3.")
    root = s.mention("scale grafana in dev to 3")
    s.react(s.proposal(root.ts).ts, "white_check_mark", user=BOB)
    s.wait_text(root.ts, "Opened pull request #1")
    return root


def _move_main(s: Stack, path: str, old: str, new: str) -> str:
    """Someone else's commit on the origin's main; its id."""
    work = s.tmp / f"other-{len(list(s.tmp.glob('other-*')))}"
    git(s.tmp, "clone", "--quiet", str(s.origin), str(work))
    file = work / path
    file.write_text(file.read_text().replace(old, new))
    git(work, "commit", "--quiet", "-am", f"{path}: {new}")
    git(work, "push", "--quiet", "origin", "HEAD:main")
    return git(work, "rev-parse", "HEAD").strip()


def _rev(s: Stack, ref: str) -> str:
    return git(s.origin, "rev-parse", ref).strip()


def _show(s: Stack, ref: str, path: str) -> str:
    return git(s.origin, "show", f"{ref}:{path}")


def test_rebase_onto_a_base_that_moved_elsewhere_updates_the_same_pull_request(
    tmp_path: Path,
) -> None:
    with stack(tmp_path) as s:
        s.start_bot()
        root = _open_pull_request(s)
        pull = s.github.repos[REPO].pulls[1]
        new_main = _move_main(s, PROD, "replicas=2", "replicas=4")

        s.reply(root.ts, "rebase")
        s.wait_text(root.ts, "Rebased onto the newest `main`")
        proposal = s.proposal(root.ts, 2)
        assert DEV in proposal.text + str(proposal.blocks)
        s.react(proposal.ts, "white_check_mark", user=BOB)
        s.wait_text(root.ts, "Updated pull request #1")

        assert list(s.github.repos[REPO].pulls) == [1]  # the same pull request
        head = _rev(s, pull.head)
        assert _rev(s, f"{head}^") == new_main  # one commit, on the new base
        assert "replicas=3" in _show(s, head, DEV)
        assert "replicas=4" in _show(s, head, PROD)  # main's change is kept
        assert s.slack.violations == []


def test_rebase_onto_a_conflicting_base_names_the_files_and_changes_nothing(
    tmp_path: Path,
) -> None:
    with stack(tmp_path) as s:
        s.start_bot()
        root = _open_pull_request(s)
        repo = s.github.repos[REPO]
        pull = repo.pulls[1]
        head = _rev(s, pull.head)
        pull.head_sha = head
        _move_main(s, DEV, "replicas=1", "replicas=5")
        sender = s.webhooks
        sender.send("pull_request", hooks.pull_request(repo, pull, action="synchronize",
                                                       mergeable=False))  # fmt: skip
        s.wait_text(root.ts, "Reply `rebase`")
        before = len(s.bot_texts(root.ts))

        s.reply(root.ts, "rebase")
        conflict = s.wait_text(root.ts, "conflicts with the newest `main`")
        assert f"`{DEV}`" in conflict.text
        assert "Nothing was changed" in conflict.text
        assert len(s.bot_texts(root.ts)) == before + 1  # no new proposal
        assert _rev(s, pull.head) == head

        # The session is as it was: the next turn works on its old base and its change.
        s.model.calls(Call("c2", "file_read", {"path": DEV}))
        s.model.answer("Dev still has 3 replicas in this change.")
        s.reply(root.ts, "what does dev have now?")
        s.wait_text(root.ts, "Dev still has 3 replicas")
        assert "replicas=3" in json.dumps(s.model.bodies()[-1])  # the tool read the old change
        assert s.slack.violations == []


def test_after_a_merge_an_approval_opens_a_new_pull_request_from_a_new_branch(
    tmp_path: Path,
) -> None:
    with stack(tmp_path) as s:
        s.start_bot()
        root = _open_pull_request(s)
        repo = s.github.repos[REPO]
        pull = repo.pulls[1]
        merged_head = _rev(s, pull.head)
        # GitHub merges the pull request into main, then tells the thread.
        work = s.tmp / "merger"
        git(s.tmp, "clone", "--quiet", str(s.origin), str(work))
        git(work, "merge", "--quiet", "--no-ff", "-m", "Merge #1", f"origin/{pull.head}")
        git(work, "push", "--quiet", "origin", "HEAD:main")
        pull.merged, pull.state = True, "closed"
        s.webhooks.send("pull_request", hooks.pull_request(repo, pull, action="closed", by="erin"))
        s.wait_text(root.ts, "Pull request #1 was merged")

        s.model.calls(
            Call("c2", "file_edit",
                 {"path": PROD, "old_text": "replicas=2", "new_text": "replicas=3"})
        )  # fmt: skip
        s.model.answer("Set grafana's replicas in prod to 3 too.")
        s.reply(root.ts, "now prod too")
        s.react(s.proposal(root.ts, 2).ts, "white_check_mark", user=BOB)
        refused = s.wait_text(root.ts, "reply `rebase`")
        assert "#1 was merged" in refused.text
        assert _rev(s, pull.head) == merged_head  # nothing pushed

        s.reply(root.ts, "rebase")
        s.react(s.proposal(root.ts, 3).ts, "white_check_mark", user=BOB)
        opened = s.wait_text(root.ts, "Opened pull request #2")
        assert "since pull request #1 was merged" in opened.text
        second = repo.pulls[2]
        assert second.head == f"{pull.head}-2"
        assert _rev(s, pull.head) == merged_head  # the merged branch was never pushed to
        assert git(s.origin, "diff", "--name-only", "main", second.head).split() == [PROD]
        assert s.slack.violations == []
