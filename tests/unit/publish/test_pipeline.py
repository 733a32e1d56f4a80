"""publish(): real git against a local bare origin, real PyGithub against the fake GitHub."""

from __future__ import annotations

import base64
import logging
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from bot.domain.proposal import Proposal
from bot.git.checkout import Identity
from bot.github.code_host import GitHubCodeHost, PullRequestRef
from bot.publish.pipeline import (
    BranchConflict,
    NothingToPublish,
    ProtectedPathChanged,
    Published,
    PullRequestFailed,
    PushFailed,
    publish,
)
from bot.publish.pr_text import pr_body
from bot.publish.proposal import ProposalChanged, diff_hash, make_proposal
from fakes.github_server import FakeGitHub
from tests.git import git as shared_git
from tests.github_host import fake_code_host

TOKEN = "ghp_PublishSecret0123456789abcdef"
BRANCH = "tanka-bot/1712345678.000100-bump-app"


def git(root: Path, *args: str) -> str:
    """tests.git.git, stripped: these tests compare single values (ids, names)."""
    return shared_git(root, *args).strip()


@pytest.fixture
def origin(tmp_path: Path) -> Path:
    seed = tmp_path / "seed"
    (seed / "lib").mkdir(parents=True)
    (seed / "lib" / "app.libsonnet").write_text("{ image: 'app:1' }\n")
    (seed / "lib" / "old.libsonnet").write_text("{ old: true }\n")
    git(seed, "init", "-q", "-b", "main")
    git(seed, "add", ".")
    git(seed, "commit", "-q", "-m", "initial")
    bare = tmp_path / "origin.git"
    git(tmp_path, "clone", "-q", "--bare", str(seed), str(bare))
    return bare


@pytest.fixture
def work(origin: Path, tmp_path: Path) -> Path:
    clone = tmp_path / "work"
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    return clone


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub(tokens=(TOKEN,)) as server:
        server.add_repo("acme", "infra")
        yield server


@pytest.fixture
def host(fake: FakeGitHub) -> Iterator[GitHubCodeHost]:
    code_host = fake_code_host(fake, TOKEN)
    yield code_host
    code_host.close()


def change(work: Path) -> None:
    (work / "lib" / "app.libsonnet").write_text("{ image: 'app:2' }\n")
    (work / "lib" / "new.libsonnet").write_text("{ new: true }\n")
    (work / "lib" / "old.libsonnet").unlink()


def body_for(proposal: Proposal) -> str:
    return pr_body(
        summary="Bumped app to 2.",
        files=proposal.files,
        requester="<@U1>",
        approver="<@U2>",
        environments=("environments/prod",),
        thread_url="https://acme.slack.com/archives/C1/p1712345678000100",
    )


def run(
    work: Path,
    origin: Path,
    host: GitHubCodeHost,
    proposal: Proposal,
    protected: tuple[str, ...] = (),
) -> Published:
    return publish(
        work,
        proposal,
        code_host=host,
        base_branch="main",
        branch=BRANCH,
        title="Bump app to 2",
        body=body_for(proposal),
        remote_url=origin.as_uri(),
        author=Identity("Ada Lovelace", "ada@example.com"),
        protected=protected,
    )


def remote_branches(origin: Path) -> list[str]:
    return git(origin, "for-each-ref", "--format=%(refname:short)", "refs/heads").split()


def test_an_unchanged_checkout_is_the_empty_proposal_git_would_make(work: Path) -> None:
    base = git(work, "rev-parse", "HEAD")
    (work / "scratch.tmp").write_text("not tracked, not ignored: part of the tree\n")
    (work / "scratch.tmp").unlink()  # and gone again
    proposal = make_proposal(work, base)
    tree = git(work, "rev-parse", "HEAD^{tree}")
    assert (proposal.empty, proposal.diff, proposal.tree) == (True, "", tree)
    assert proposal.diff_hash == diff_hash(work, base, tree)  # as git hashes an empty patch


def test_publishes_exactly_the_shown_change(
    work: Path, origin: Path, fake: FakeGitHub, host: GitHubCodeHost
) -> None:
    base = git(work, "rev-parse", "HEAD")
    change(work)
    proposal = make_proposal(work, base)

    published = run(work, origin, host, proposal)

    assert published == Published(
        pr_url=f"{fake.web_url}/acme/infra/pull/1",
        pr_number=1,
        branch=BRANCH,
        commit=git(origin, "rev-parse", BRANCH),
        created=True,
    )
    # The pushed branch holds exactly the proposal: same tree, same exact patch from the base.
    assert git(origin, "rev-parse", f"{BRANCH}^{{tree}}") == proposal.tree
    assert diff_hash(origin, base, BRANCH) == proposal.diff_hash
    assert git(origin, "diff", "--name-status", base, BRANCH).splitlines() == [
        "M\tlib/app.libsonnet",
        "A\tlib/new.libsonnet",
        "D\tlib/old.libsonnet",
    ]
    assert git(origin, "rev-parse", f"{BRANCH}^") == base  # one commit on the base
    assert git(origin, "log", "-1", "--format=%an <%ae>|%s", BRANCH) == (
        "Ada Lovelace <ada@example.com>|Bump app to 2"
    )
    assert git(origin, "rev-parse", "main") == base  # no other branch touched
    pull = fake.repos["acme/infra"].pulls[1]
    assert (pull.head, pull.base, pull.title) == (BRANCH, "main", "Bump app to 2")
    assert pull.body == body_for(proposal)
    # In place: the checkout is now on the bot's branch, clean; its main did not move.
    assert git(work, "branch", "--show-current") == BRANCH
    assert git(work, "status", "--porcelain") == ""
    assert git(work, "rev-parse", "main") == base


def test_the_commit_message_does_not_close_issues_or_mention_anyone(
    work: Path, origin: Path, host: GitHubCodeHost
) -> None:
    """A squash merge or a plain merge puts this message on the base branch, where a closing
    keyword closes the issue: the title and the model's summary are quoted (pr_text.quiet)."""
    base = git(work, "rev-parse", "HEAD")
    change(work)
    proposal = make_proposal(work, base, title="scale it. Closes #1")
    proposal = proposal.model_copy(
        update={"summary": "Scaled it. Fixes acme/infra#2 cc @acme/everyone"}
    )
    publish(work, proposal, code_host=host, base_branch="main", branch=BRANCH,
            title="", body="body", remote_url=origin.as_uri(),
            author=Identity("Ada Lovelace", "ada@example.com"))  # fmt: skip
    message = shared_git(origin, "log", "-1", "--format=%B", BRANCH)
    assert "Closes #1" not in message
    assert "Fixes acme/infra#2" not in message
    assert "@acme" not in message
    assert message.replace("\u2060", "").strip() == (
        "scale it. Closes #1\n\nScaled it. Fixes acme/infra#2 cc @acme/everyone"
    )


def test_a_second_approval_pushes_to_the_same_branch_and_updates_the_pr(
    work: Path, origin: Path, fake: FakeGitHub, host: GitHubCodeHost
) -> None:
    base = git(work, "rev-parse", "HEAD")
    change(work)
    first = run(work, origin, host, make_proposal(work, base))
    (work / "lib" / "app.libsonnet").write_text("{ image: 'app:3' }\n")
    proposal = make_proposal(work, base)  # still the whole change since the base
    assert proposal.files == ("lib/app.libsonnet", "lib/new.libsonnet", "lib/old.libsonnet")

    second = publish(
        work,
        proposal,
        code_host=host,
        base_branch="main",
        branch=BRANCH,
        title="Bump app to 3",
        body="updated body",
        remote_url=origin.as_uri(),
    )

    assert (second.pr_number, second.pr_url, second.created) == (1, first.pr_url, False)
    assert second.commit != first.commit
    assert git(origin, "rev-parse", BRANCH) == second.commit
    assert git(origin, "rev-parse", f"{BRANCH}^") == first.commit
    assert git(origin, "show", f"{BRANCH}:lib/app.libsonnet") == "{ image: 'app:3' }"
    pulls = fake.repos["acme/infra"].pulls
    assert list(pulls) == [1]
    assert pulls[1].body == "updated body"
    assert len(fake.requests_to("POST", r"/pulls$")) == 1
    assert len(fake.requests_to("PATCH", r"/pulls/1$")) == 1


def test_a_change_after_the_proposal_is_refused_and_nothing_is_pushed(
    work: Path, origin: Path, fake: FakeGitHub, host: GitHubCodeHost
) -> None:
    base = git(work, "rev-parse", "HEAD")
    change(work)
    proposal = make_proposal(work, base)
    (work / "lib" / "new.libsonnet").write_text("{ new: 'edited by hand' }\n")

    with pytest.raises(ProposalChanged, match="changed since the proposal was shown"):
        run(work, origin, host, proposal)

    assert remote_branches(origin) == ["main"]
    assert fake.requests == []
    assert git(work, "branch", "--show-current") == "main"
    assert git(work, "rev-parse", "HEAD") == base
    assert (work / "lib" / "new.libsonnet").read_text() == "{ new: 'edited by hand' }\n"


def test_head_moved_off_the_base_is_refused(
    work: Path, origin: Path, fake: FakeGitHub, host: GitHubCodeHost
) -> None:
    base = git(work, "rev-parse", "HEAD")
    change(work)
    proposal = make_proposal(work, base)
    git(work, "stash", "-q", "-u")  # the user's own repo: park the change, move HEAD elsewhere
    git(work, "checkout", "-q", "--orphan", "elsewhere")
    git(work, "commit", "-q", "-m", "unrelated")
    git(work, "read-tree", "--empty")
    git(work, "clean", "-qfdx")
    git(work, "checkout", "-q", base, "--", ".")
    git(work, "stash", "pop", "-q")
    with pytest.raises(ProposalChanged, match="no longer descends from the proposal's base"):
        run(work, origin, host, proposal)
    assert remote_branches(origin) == ["main"]


def test_github_down_before_the_push_publishes_nothing(
    work: Path, origin: Path, fake: FakeGitHub, host: GitHubCodeHost
) -> None:
    base = git(work, "rev-parse", "HEAD")
    change(work)
    fake.fail(503, "Service Unavailable", path=r"/pulls", times=10)

    with pytest.raises(PullRequestFailed) as info:
        run(work, origin, host, make_proposal(work, base))

    message = str(info.value)
    assert "nothing was committed or pushed" in message
    assert "503" in message
    assert message.endswith("approve again to retry")
    assert (info.value.pushed, info.value.retryable) == (False, True)
    assert remote_branches(origin) == ["main"]
    assert git(work, "rev-parse", "HEAD") == base
    assert git(work, "branch", "--show-current") == "main"


def test_github_failing_after_the_push_says_so_and_a_retry_finishes(
    work: Path, origin: Path, fake: FakeGitHub, host: GitHubCodeHost
) -> None:
    base = git(work, "rev-parse", "HEAD")
    change(work)
    proposal = make_proposal(work, base)
    fake.fail(502, "Bad Gateway", method="POST", path=r"/pulls$")

    with pytest.raises(PullRequestFailed) as info:
        run(work, origin, host, proposal)
    assert info.value.pushed
    assert f"branch {BRANCH} was pushed" in str(info.value)
    assert "no pull request could be opened" in str(info.value)
    assert fake.repos["acme/infra"].pulls == {}
    pushed = git(origin, "rev-parse", BRANCH)

    # The same approval again: the commit is reused (the tree is clean now), the PR opens.
    retried = run(work, origin, host, proposal)
    assert (retried.commit, retried.created, retried.pr_number) == (pushed, True, 1)
    assert git(work, "rev-list", "--count", f"{base}..HEAD") == "1"


def test_no_changes_are_refused(
    work: Path, origin: Path, fake: FakeGitHub, host: GitHubCodeHost
) -> None:
    proposal = make_proposal(work, "HEAD")
    with pytest.raises(NothingToPublish, match="no changes"):
        run(work, origin, host, proposal)
    assert fake.requests == []
    assert remote_branches(origin) == ["main"]


def test_an_existing_local_branch_of_that_name_is_not_touched(
    work: Path, origin: Path, fake: FakeGitHub, host: GitHubCodeHost
) -> None:
    git(work, "branch", BRANCH)
    before = git(work, "rev-parse", BRANCH)
    change(work)
    with pytest.raises(BranchConflict, match=f"git switch {BRANCH}"):
        run(work, origin, host, make_proposal(work, "HEAD"))
    assert git(work, "rev-parse", BRANCH) == before
    assert remote_branches(origin) == ["main"]


class _AuthRecorder(BaseHTTPRequestHandler):
    """A git HTTP remote that asks for credentials and refuses them, recording what it got."""

    seen: list[str]

    def do_GET(self) -> None:
        header = self.headers.get("authorization", "")
        if header.startswith("Basic "):
            self.seen.append(base64.b64decode(header[6:]).decode())
        self.send_response(401)
        self.send_header("WWW-Authenticate", 'Basic realm="git"')
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def no_proxies(monkeypatch: pytest.MonkeyPatch) -> None:
    for proxy in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        monkeypatch.delenv(proxy, raising=False)


@pytest.mark.usefixtures("no_proxies")
def test_the_token_reaches_git_only_through_askpass_and_never_an_error_or_log(
    work: Path,
    origin: Path,
    fake: FakeGitHub,
    host: GitHubCodeHost,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    seen: list[str] = []
    handler = type("Recorder", (_AuthRecorder,), {"seen": seen})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02})
    thread.start()
    base = git(work, "rev-parse", "HEAD")
    try:
        change(work)
        url = f"http://127.0.0.1:{server.server_address[1]}/acme/infra.git"
        proposal = make_proposal(work, base)
        with pytest.raises(PushFailed) as info:
            publish(
                work, proposal, code_host=host, base_branch="main", branch=BRANCH,
                title="t", body="b", remote_url=url,
            )  # fmt: skip
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
    assert seen == [f"x-access-token:{TOKEN}"]  # git asked askpass, which gave the live token
    message = str(info.value)
    assert "could not push branch" in message
    assert "no pull request was opened" in message
    assert TOKEN not in message
    assert all(TOKEN not in record.getMessage() for record in caplog.records)
    assert fake.requests_to("POST", r"/pulls$") == []
    # A retry to the right remote reuses the commit; a successful run logs nothing secret either.
    done = run(work, origin, host, proposal)
    assert TOKEN not in repr(done)
    assert all(TOKEN not in record.getMessage() for record in caplog.records)
    assert TOKEN not in fake.repos["acme/infra"].pulls[1].body


class EditingHost:
    """The real code host, but the checkout is edited while GitHub is being asked (a race)."""

    def __init__(self, host: GitHubCodeHost, edit: Path) -> None:
        self.host = host
        self.edit = edit

    def find_pull_request(self, head: str) -> PullRequestRef | None:
        self.edit.write_text("{ raced: true }\n")
        return self.host.find_pull_request(head)

    def open_pull_request(
        self, head: str, base: str, title: str, body: str, draft: bool = False
    ) -> PullRequestRef:
        return self.host.open_pull_request(head, base, title, body, draft)

    def update_pull_request_body(self, number: int, body: str) -> None:
        self.host.update_pull_request_body(number, body)

    def token_for_push(self) -> str:
        return self.host.token_for_push()


def test_an_edit_racing_the_commit_is_undone_and_refused(
    work: Path, origin: Path, fake: FakeGitHub, host: GitHubCodeHost
) -> None:
    base = git(work, "rev-parse", "HEAD")
    change(work)
    proposal = make_proposal(work, base)
    racing = EditingHost(host, work / "lib" / "new.libsonnet")
    with pytest.raises(ProposalChanged, match="files changed while it was being committed"):
        publish(
            work, proposal, code_host=racing, base_branch="main", branch=BRANCH,
            title="t", body="b", remote_url=origin.as_uri(),
        )  # fmt: skip
    assert git(work, "rev-parse", "HEAD") == base  # our commit was undone
    assert (work / "lib" / "new.libsonnet").read_text() == "{ raced: true }\n"  # edit kept
    assert remote_branches(origin) == ["main"]
    assert fake.requests_to("POST", r"/pulls$") == []


def test_a_change_to_a_protected_path_is_never_published(
    work: Path, origin: Path, fake: FakeGitHub, host: GitHubCodeHost
) -> None:
    change(work)
    workflow = work / ".github" / "workflows" / "deploy.yml"
    workflow.parent.mkdir(parents=True)
    workflow.write_text("on: push\n")
    proposal = make_proposal(work, "HEAD")
    with pytest.raises(ProtectedPathChanged, match=r"\.github/workflows/deploy\.yml"):
        run(work, origin, host, proposal, protected=(".github/**", ".git/**"))
    assert fake.requests == []
    assert remote_branches(origin) == ["main"]
