"""`/tanka help`, `/tanka envs`, `/tanka status`: quick answers that need no agent."""

from __future__ import annotations

from bot.domain.alerts import mention
from bot.domain.commands import help_text
from bot.domain.prices import dollars, turn_cost
from bot.domain.sessions import Session, SessionCorrupt
from bot.services import Services
from tools.gitrun import Git, GitError

MAX_LISTED = 60


def help_message(svc: Services, problem: str = "") -> str:
    return help_text(svc.settings.approve_emoji, svc.settings.cancel_emoji, problem)


def environment_names(svc: Services) -> list[str]:
    """The environments on the base branch: directories holding a main.jsonnet, from the mirror.
    GitError when the mirror cannot be read."""
    cache = svc.workspaces.cache
    commit = cache.commit_of(svc.settings.base_branch)
    files = Git(cache.path, 60.0).out("ls-tree", "-r", "--name-only", commit).splitlines()
    return sorted(
        f.removesuffix("/main.jsonnet")
        for f in files
        if f.endswith("/main.jsonnet") and "/vendor/" not in f and not f.startswith("vendor/")
    )


def environments_message(svc: Services) -> str:
    """The environments on the base branch: directories holding a main.jsonnet, from the mirror."""
    branch = svc.settings.base_branch
    try:
        envs = environment_names(svc)
    except GitError as exc:
        return f"The environments could not be listed: {exc}"
    if not envs:
        return f"No environment (a directory with main.jsonnet) on `{branch}`."
    shown = "\n".join(f"• `{e}`" for e in envs[:MAX_LISTED])
    more = f"\n… and {len(envs) - MAX_LISTED} more" if len(envs) > MAX_LISTED else ""
    return f"*Environments on `{branch}`* ({len(envs)}):\n{shown}{more}"


def status_message(svc: Services, channel: str) -> str:
    now = svc.clock()
    lines = []
    entries = svc.store.sessions(channel)
    # Newest first, and only as many as are shown: each line costs a store read and a permalink.
    for key, updated in sorted(entries, key=lambda e: e[1], reverse=True)[:MAX_LISTED]:
        try:
            session = svc.sessions.get(key)
        except SessionCorrupt:
            lines.append(f"• {key.thread_ts}: unreadable session record")
            continue
        if session is None:
            continue
        lines.append(_line(svc, session, now - updated))
    if not lines:
        return "No active sessions in this channel."
    more = f"\n… and {len(entries) - MAX_LISTED} more" if len(entries) > MAX_LISTED else ""
    return f"*Active sessions* ({len(entries)}):\n" + "\n".join(lines) + more


def _line(svc: Services, session: Session, idle: float) -> str:
    link = svc.chat.permalink(session.channel, session.thread_ts)
    title = session.request.splitlines()[0][:80] if session.request else "(no request)"
    where = f"<{link}|{title}>" if link else title
    state = "running" if session.state == "running" else f"idle {_age(idle)}"
    pr = (
        f" · PR <{session.pull_request.url}|#{session.pull_request.number}>"
        if session.pull_request
        else ""
    )
    tokens = session.input_tokens + session.output_tokens
    cost = turn_cost(svc.settings.price_table, svc.settings.model_id,
                     session.input_tokens, session.output_tokens)  # fmt: skip
    return (
        f"• {where} · {mention(session.requester)} · {state} · {len(session.proposals)} proposal(s)"
        f"{pr} · {tokens / 1000:.1f}k tokens" + (f" · {dollars(cost)}" if cost is not None else "")
    )


def _age(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
