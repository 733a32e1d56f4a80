"""`/approve` in `tanka-bot chat` (and `--approve` one-shot): publish what was shown, as Slack does.

The chat remembers the last proposal it printed. Approving publishes that proposal only if the
checkout still holds it; if files changed since (a hand edit, say), nothing is published and the
new diff is shown, so the user approves what they have actually seen. The requester and approver
are the local git user. The branch is `tanka-bot/chat-<timestamp>-<slug of the first request>`, the
same for every approval of one chat, so a second approval updates the same pull request.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from bot.agent.agent import TurnResult
from bot.chat.repl import ChatSession
from bot.compose import ClosableHost
from bot.config import Settings
from bot.domain.proposal import Proposal
from bot.errors import BotError, UserError
from bot.git.checkout import Identity
from bot.publish.pipeline import publish
from bot.publish.pr_text import branch_name, pr_body, pr_title
from bot.publish.proposal import ProposalChanged, check_unchanged, make_proposal
from tools.gitrun import Git, GitError
from tools.redaction import SecretMask

SUMMARY_LIMIT = 4000  # characters of the agent's answer quoted in the PR description
GITHUB_VARIABLES = (
    "GitHub is not configured, so no pull request can be opened: set GITHUB_TOKEN (or "
    "GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY), and TANKA_BOT_GITHUB_REPO=owner/name when the "
    "remote is not a GitHub URL"
)


HostFactory = Callable[[Settings], ClosableHost | None]


@dataclass
class ChatApproval:
    """The approval state of one chat: what was shown last, and the branch once published."""

    root: Path
    base: str | None
    settings: Settings
    out: TextIO
    code_host_factory: HostFactory
    print_changes: Callable[[Proposal], None]
    remote_url: str | None = None  # None: the checkout's origin
    environ: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    # The chat's Secret values: the pull request's title and body quote the request and the
    # answer, which must not carry one to GitHub.
    mask: SecretMask = field(default_factory=SecretMask)
    key: str = field(default_factory=lambda: f"chat-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}")
    shown: Proposal | None = None
    request: str = ""
    answer: str = ""
    branch: str | None = None

    def current(self) -> Proposal | None:
        """The checkout's change now, or None in a repository without commits."""
        if self.base is None:
            return None
        try:
            return make_proposal(self.root, self.base, title=pr_title(self.request))
        except GitError as exc:
            raise UserError(f"cannot read the change in {self.root}: {exc}") from None

    def show(self) -> Proposal | None:
        """Print the change (the git diff and rendered diff) and remember it as shown."""
        proposal = self.current()
        if proposal is not None:
            self.print_changes(proposal)
            self.shown = proposal
        return proposal

    def after_turn(self, prompt: str, answer: str) -> None:
        """Remember the request; show the change when the turn left a new one."""
        self.request = self.request or prompt
        self.answer = answer
        proposal = self.current()
        if proposal is None or proposal.empty:
            return
        if self.shown is None or proposal.diff_hash != self.shown.diff_hash:
            self.print_changes(proposal)
            self.shown = proposal
            self._say("Type /approve to open a pull request with this change.")

    def approve(self) -> None:
        """Publish the shown proposal; UserError (one line) when it cannot or must not."""
        remote = self._remote()
        host = self.code_host_factory(self._settings_for(remote))
        if host is None:
            raise UserError(GITHUB_VARIABLES)
        try:
            self._publish(host, remote)
        finally:
            host.close()

    def _publish(self, host: ClosableHost, remote: str) -> None:
        shown = self._shown_or_show()
        try:
            check_unchanged(shown, self.root)
        except ProposalChanged:
            self._say("The checkout changed since the diff was shown; here is the new diff:")
            self.show()
            raise
        who = local_user(self.root, self.environ)
        # Masked before anything is cut or slugged: either could leave part of a value readable.
        request = self.mask.apply(self.request)
        branch = self.branch or branch_name(self.key, request or "change")
        title = pr_title(request)
        body = pr_body(
            summary=self.mask.apply(self.answer)[:SUMMARY_LIMIT],
            files=shown.files,
            requester=who.label,
            approver=who.label,
            request=request,
        )
        published = publish(
            self.root, shown, code_host=host, base_branch=self.settings.base_branch,
            branch=branch, title=title, body=body, remote_url=remote, author=who.identity,
            protected=self.settings.protected_paths,
        )  # fmt: skip
        self.branch = branch
        verb = "opened" if published.created else f"#{published.pr_number} updated"
        self._say(f"✓ pull request {verb}: {published.pr_url} (branch {branch})")

    def _shown_or_show(self) -> Proposal:
        if self.base is None:
            raise UserError("the repository has no commits yet; commit a first version first")
        if self.shown is not None and not self.shown.empty:
            return self.shown
        proposal = self.current()
        if proposal is None or proposal.empty:
            raise UserError("nothing to approve: the checkout has no changes")
        self.print_changes(proposal)
        self.shown = proposal
        raise UserError("review the diff above, then /approve again to open the pull request")

    def _remote(self) -> str:
        if self.remote_url:
            return self.remote_url
        try:
            return _git_config(self.root, "remote.origin.url", self.environ)
        except LookupError:
            raise UserError(
                f"{self.root} has no origin remote to push to; add one "
                "(git remote add origin <url>) or run chat --repo <url>"
            ) from None

    def _settings_for(self, remote: str) -> Settings:
        if self.settings.github_repo or self.settings.repo_url:
            return self.settings
        return self.settings.model_copy(update={"repo_url": remote})

    def _say(self, text: str) -> None:
        self.out.write(text + "\n")
        self.out.flush()


def attach(
    session: ChatSession, approval: ChatApproval, *, fallback_show: Callable[[], None]
) -> None:
    """Wire `approval` into a chat session: /diff, /approve and the diff after each REPL turn."""

    def show() -> None:
        if approval.show() is None:  # no commits yet: nothing to hold a proposal against
            fallback_show()

    def after_turn(prompt: str, result: TurnResult) -> None:
        try:
            approval.after_turn(prompt, result.text)
        except BotError as exc:  # the REPL goes on; only the automatic diff is missing
            session.say(f"✗ {exc}")

    session.show_changes = show
    session.approve = approval.approve
    session.after_turn = after_turn


@dataclass(frozen=True, slots=True)
class LocalUser:
    name: str
    email: str

    @property
    def label(self) -> str:
        return f"{self.name} <{self.email}>" if self.email else self.name

    @property
    def identity(self) -> Identity | None:
        return Identity(self.name, self.email) if self.name and self.email else None


def local_user(root: Path, environ: Mapping[str, str]) -> LocalUser:
    """Who runs the chat: git's user.name/user.email as the user configured them, else $USER."""
    found = []
    for key in ("user.name", "user.email"):
        try:
            found.append(_git_config(root, key, environ))
        except LookupError:
            found.append("")
    name, email = found
    return LocalUser(name or environ.get("USER") or "unknown user", email)


def _git_config(root: Path, key: str, environ: Mapping[str, str]) -> str:
    # The user's own config on purpose (global included): this is their identity on their machine,
    # and `git config --get` runs nothing. The bot's isolated git would not see it.
    git = Git(root, 30.0, env=dict(environ), user_config=True)
    try:
        done = git.result("config", "--get", key)
    except GitError:  # no git, or it hung: treat as not set
        raise LookupError(key) from None
    value = done.text().strip()
    if not done.ok or not value:
        raise LookupError(key)
    return value
