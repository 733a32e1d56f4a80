"""`tanka-bot chat`: the same agent in a terminal, on a local checkout, edited in place.

    tanka-bot chat                      REPL on the git repository around the current directory
    tanka-bot chat --repo ../infra "bump grafana to 11.2 in dev"     one-shot

One-shot prints the tool calls, the answer and token use, then the git diff of the checkout since
it started (new files included) and the rendered-manifest diff; it exits 0 when the turn finished,
non-zero with a one-line error otherwise (edits made so far stay). No Slack and no Redis needed.
Everything it prints passes the session's SecretMask (bot.chat.masked): the value of any Secret
the session rendered, at the base or in the working tree, is hidden wherever it appears.
`/approve` in the REPL, or `--approve` one-shot, opens the pull request (bot.chat.approve).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO

from bot.agent.agent import Agent
from bot.agent.conversation import Conversation
from bot.agent.messages import LLMProvider
from bot.agent.prompts import system_prompt
from bot.chat.approve import ChatApproval, attach
from bot.chat.changes import ChatChanges
from bot.chat.ignores import check_global_ignores
from bot.chat.masked import MaskedWriter
from bot.chat.repl import ChatSession, LineReader, repl, report, run_in_foreground
from bot.compose import (
    CommandDeps,
    budgets_from_settings,
    build_code_host,
    mcp_hub,
    with_mcp_tools,
)
from bot.config import Settings, load_settings
from bot.errors import BotError, UserError
from bot.git.askpass import TokenCredentials
from bot.workspace.repo_cache import RepoCache
from tools import linear_re
from tools.context import PullRequestSource, ToolContext
from tools.git import run_git
from tools.gitrun import GitError
from tools.linear_re import SPACE
from tools.mask_teacher import MaskTeacher
from tools.redaction import SecretMask, scrub_credentials
from tools.registry import ToolRegistry
from tools.tanka.base_tree import BaseTrees
from tools.tanka.diff.revision import RevisionDiffer

log = logging.getLogger(__name__)

# RE2, linear: under re, an argument of many `@` and no `:` was rescanned from each `@`.
_URL = linear_re.compile(rf"(?i)^([a-z][a-z0-9+.-]*://|[^/{SPACE[1:-1]}]+@[^/{SPACE[1:-1]}]+:)")


def run_chat(args: argparse.Namespace, deps: CommandDeps | None = None) -> int:
    deps = deps or CommandDeps()
    settings = _settings(args, deps.environ)
    if args.prompt is not None and not args.prompt.strip():
        raise UserError("the prompt is empty; say what to change, or omit it for the REPL")
    if args.approve and args.prompt is None:
        raise UserError("--approve needs a PROMPT (one-shot); in the REPL type /approve")
    is_url = bool(args.repo and _URL.match(args.repo))
    environ = deps.environ if deps.environ is not None else os.environ
    if is_url:
        root = scratch_checkout(args.repo, settings)
    else:
        root = resolve_repo(args.repo, deps.cwd or Path.cwd())
        check_global_ignores(root, environ)  # before any diff can show such a file
    out = deps.stdout or sys.stdout
    provider = deps.provider_factory(settings)
    pull_requests: PullRequestSource | None = None
    hub = None
    try:
        pull_requests = pull_request_source(settings, root)
        hub = mcp_hub(settings)  # the same MCP tools as the Slack service
        registry = with_mcp_tools(deps.registry_factory(), hub)
        session = _session(settings, provider, root, out, registry, pull_requests=pull_requests)
        approval = _approval(session, settings, deps, args.repo if is_url else None)
        if args.prompt is not None:
            return one_shot(session, args.prompt, approval if args.approve else None)
        base = session.ctx.base_commit
        where = f"{root} @ {base[:12]}" if base else f"{root} (no commits yet)"
        session.say(f"tanka-bot chat · {provider.name} {provider.model} · {where}")
        session.say("Type /help for commands, /exit to leave.")
        return repl(session, LineReader(deps.stdin or sys.stdin, out))
    finally:
        if hub is not None:
            hub.close()
        for resource in (pull_requests, provider):  # HTTP sessions and PyGithub's log filter
            close = getattr(resource, "close", None)
            if callable(close):
                close()


def _session(
    settings: Settings,
    provider: LLMProvider,
    root: Path,
    out: TextIO,
    registry: ToolRegistry,
    *,
    pull_requests: PullRequestSource | None,
) -> ChatSession:
    base = head_commit(root)  # every diff of this chat compares with where it started
    mask = SecretMask()
    shown = MaskedWriter(out, mask)
    agent = Agent(
        provider,
        registry,
        system_prompt=system_prompt(),
        budgets=budgets_from_settings(settings),
    )
    differ = _differ(settings)
    # Not started in the background: a chat may end at once, and its first tool output or
    # answer waits for the renders anyway.
    teacher = MaskTeacher(root, base, mask, differ)
    ctx = ToolContext(
        root=root,
        protected_paths=settings.protected_paths,
        base_commit=base,
        pull_requests=pull_requests,
        differ=differ,
        secret_mask=mask,
        teach_mask=teacher,
        policy_dir=settings.policy_dir,
        kubernetes_version=settings.kubernetes_version,
    )
    changes = ChatChanges(root, base, mask, ctx.differ)
    return ChatSession(
        agent=agent,
        ctx=ctx,
        out=shown,
        show_changes=lambda: changes.show(shown),
        conversation=Conversation(),
        changes=changes,
        review=settings.review,
    )


def _differ(settings: Settings) -> RevisionDiffer:
    """One differ for the chat: the agent's tanka_diff and the printed diffs share its caches."""
    # Base trees under the work directory, not /tmp: it may be small or shared.
    return RevisionDiffer(trees=BaseTrees(settings.workdir / "base-trees"))


def _settings(args: argparse.Namespace, environ: Mapping[str, str] | None) -> Settings:
    settings = load_settings(environ)
    overrides = {k: v for k, v in (("provider", args.provider), ("model", args.model)) if v}
    if overrides:
        settings = settings.model_copy(update=overrides)
    return settings.require(settings.missing_for_provider())


def _approval(
    session: ChatSession, settings: Settings, deps: CommandDeps, remote_url: str | None
) -> ChatApproval:
    """Wire /approve into the session: the diffs it prints are the proposals it remembers."""
    ctx, out = session.ctx, session.out
    changes = session.changes or ChatChanges(ctx.root, ctx.base_commit, ctx.secret_mask, ctx.differ)
    approval = ChatApproval(
        root=ctx.root,
        base=ctx.base_commit,
        settings=settings,
        out=out,
        code_host_factory=deps.code_host_factory,
        print_changes=lambda proposal: changes.print(out, proposal.diff),
        remote_url=remote_url,
        environ=deps.environ if deps.environ is not None else os.environ,
        mask=session.ctx.secret_mask,
    )

    attach(session, approval, fallback_show=lambda: changes.show(out))
    return approval


def one_shot(session: ChatSession, prompt: str, approval: ChatApproval | None = None) -> int:
    try:
        return _one_shot(session, prompt, approval)
    except UserError as exc:  # printed by the CLI, past the session's masked stream
        raise UserError(session.ctx.secret_mask.apply(str(exc))) from None


def _one_shot(session: ChatSession, prompt: str, approval: ChatApproval | None) -> int:
    result = run_in_foreground(session, prompt)
    report(session, result)
    session.show_changes()
    if result.error is not None:
        raise UserError(f"the turn did not finish: {result.error}")
    if approval is not None:
        approval.request, approval.answer = prompt, result.text
        if approval.shown is None or approval.shown.empty:
            session.say("nothing to approve: the turn made no changes")
            return 0
        approval.approve()
    return 0


def scratch_checkout(url: str, settings: Settings) -> Path:
    """A fresh checkout of `url`'s base branch under the workdir, made from the repo cache.

    The user's repository is never touched; the checkout stays after exit so its changes can be
    inspected (its path is printed), and a later chat reuses the cache.
    """
    token = settings.github_token
    credentials = TokenCredentials(token.get_secret_value) if token is not None else None
    name = f"chat-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}"
    try:
        cache = RepoCache(settings.workdir, url, credentials=credentials)
        cache.refresh_if_older(30.0)  # clones on first use; a fresh clone is not fetched twice
        checkout = cache.start(name, base_branch=settings.base_branch, branch=f"tanka-bot/{name}")
    except GitError as exc:
        raise UserError(
            f"--repo {scrub_credentials(url)}: {exc}; check the URL, TANKA_BOT_BASE_BRANCH "
            f"({settings.base_branch}) and GITHUB_TOKEN"
        ) from None
    except OSError as exc:  # the workdir cannot hold the cache or the checkout
        raise UserError(
            f"TANKA_BOT_WORKDIR ({settings.workdir}): {exc.strerror or exc} at {exc.filename}; "
            "point it at a writable directory"
        ) from None
    return checkout.root


def resolve_repo(repo: str | None, cwd: Path) -> Path:
    """The top of the git checkout at `repo` (or around `cwd`); UserError when there is none."""
    start = Path(repo).expanduser() if repo else cwd
    if not start.exists():
        raise UserError(f"--repo {repo}: no such directory; pass the path of a git checkout")
    if not start.is_dir():
        raise UserError(f"--repo {repo}: not a directory; pass the path of a git checkout")
    try:
        top = run_git(start.resolve(), "rev-parse", "--show-toplevel").strip()
    except GitError:
        shown = f"--repo {repo}" if repo else f"the current directory ({start})"
        raise UserError(
            f"{shown} is not inside a git repository; run chat in a checkout or pass --repo PATH"
        ) from None
    return Path(top)


def pull_request_source(settings: Settings, root: Path) -> PullRequestSource | None:
    """GitHub for github_pr_list when credentials are set; the checkout's origin names the repo."""
    if not (settings.github_repo or settings.repo_url):
        try:
            origin = run_git(root, "config", "--get", "remote.origin.url").strip()
        except GitError:
            origin = ""
        settings = settings.model_copy(update={"repo_url": origin or None})
    try:
        return build_code_host(settings)
    except BotError as exc:  # chat still works; only the PR list is unavailable
        log.warning("github_pr_list unavailable: %s", exc)
        return None


def head_commit(root: Path) -> str | None:
    """HEAD's commit id, the base every diff compares with; None in a repository without commits."""
    try:
        return run_git(root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}").strip() or None
    except GitError:
        return None
