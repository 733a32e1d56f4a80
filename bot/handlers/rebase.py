"""`rebase` in a session thread: move the session's change onto its base branch's newest commit.

Runs inside the thread's lease (bot.runtime.runner). The repo cache is fetched and the stored patch
is
re-applied on the new base with a 3-way merge (bot.workspace.workspaces.Workspaces.rebase). A clean
result
becomes the session's base and a new proposal, which an approval publishes to the same branch:
the push is forced (bot.git.checkout.Checkout.push), so its pull request shows the rebased commit.
A conflict is reported with the files' names and changes nothing.
"""

from __future__ import annotations

from bot.domain.sessions import Session
from bot.services import Services
from tools.redaction import SecretMask


def up_to_date_text(branch: str, commit: str) -> str:
    return f"Nothing to rebase: this session is already on the newest `{branch}` (`{commit[:7]}`)."


def conflict_text(branch: str, commit: str, files: tuple[str, ...], old: str) -> str:
    shown = ", ".join(f"`{f}`" for f in files[:20]) + (" …" if len(files) > 20 else "")
    return (
        f":warning: The change conflicts with the newest `{branch}` (`{commit[:7]}`) in "
        f"{len(files)} file(s): {shown}. Nothing was changed: the session stays on "
        f"`{old[:7]}`. Tell me how to resolve it (for example, redo the change on the new "
        "base) and I'll make a new proposal."
    )


def rebased_text(branch: str, old: str, new: str, *, empty: bool) -> str:
    head = f":arrows_counterclockwise: Rebased onto the newest `{branch}` ({old[:7]} → {new[:7]})"
    if empty:
        return head + ": the new base already holds this change, so there is nothing to propose."
    return head + ". Here is the change again on the new base:"


def rebase(svc: Services, session: Session, user: str, mask: SecretMask) -> None:
    """`svc.chat` must already mask with `mask` (the runner wraps it); the caller saves `session`.

    Audited as the `message` it is; the new proposal is audited as every `proposal` is, with its
    base commit.
    """
    # The agent's modules load only where turns run: the serving process of a split bot
    # (bot.work_process) imports this module, through approvals and holds, and runs no rebase.
    from bot.handlers.turn import new_change, propose  # noqa: PLC0415 - see the comment above

    key = session.key
    svc.audit.record(key.channel, key.thread_ts, user, "message", {"text": "rebase"})
    branch = session.base_branch
    if not session.base_commit or not session.proposals:
        post(svc, session, "Nothing to rebase yet: this session has not proposed a change.")
        return
    done = svc.workspaces.rebase(session)
    if done.conflicts:
        post(svc, session, conflict_text(branch, done.new_base, done.conflicts, done.old_base))
    elif done.checkout is None:
        post(svc, session, up_to_date_text(branch, done.new_base))
    else:
        empty = not done.checkout.has_changes()
        post(svc, session, rebased_text(branch, done.old_base, done.new_base, empty=empty))
        change = None if empty else new_change(svc, session, done.checkout, mask)
        if change is not None:
            propose(svc, session, *change)


def post(svc: Services, session: Session, text: str) -> None:
    key = session.key
    ts = svc.chat.post(key.channel, text, thread_ts=key.thread_ts)
    svc.store.index_message(key.channel, ts, key, svc.settings.session_ttl)
