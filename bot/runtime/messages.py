"""A mention or a thread reply: a turn on the session (created on the first request), a cancel,
or `rebase`."""

from __future__ import annotations

import logging

from bot.domain.commands import is_cancel, is_rebase
from bot.domain.requests import Mention, ThreadReply
from bot.domain.sessions import Session
from bot.domain.thread import ThreadKey
from bot.guards.replies import GuardReply, Override, parse_reply
from bot.handlers import ci, guard_budget, guard_words, rebase, steer
from bot.publish.pr_text import branch_name
from bot.runtime.lease import Lease
from bot.runtime.pending import Pending, prompt
from bot.runtime.threads import Threads

log = logging.getLogger(__name__)

CUT_OFF = (
    ":warning: The previous turn in this thread was cut off (the bot restarted or crashed). "
    "Edits saved up to that point are kept; continuing from there."
)


def handle(threads: Threads, message: Mention | ThreadReply) -> None:
    key = message.key
    if steer.refuse_message(threads.svc, message):  # teams: who may steer, which channels
        return
    if is_cancel(message.text):
        threads.cancel(key, message.user)
        return
    if is_rebase(message.text):
        threads.submit(key, lambda: _rebase(threads, message))
        return
    word = parse_reply(message.text)  # `override REASON`, `waive RULE REASON [for 7d]`
    if word is not None:
        threads.submit(key, lambda: _guard_word(threads, message, word))
        return
    threads.submit(key, lambda: _message(threads, message))


def _message(threads: Threads, message: Mention | ThreadReply) -> None:
    key = message.key
    exists = threads.svc.sessions.exists(key)
    if not exists and isinstance(message, ThreadReply):
        return  # a conversation between people in a thread the bot is not part of
    title = message.title if isinstance(message, Mention) else ""
    pending = Pending(message.user, message.text, request=title, ts=message.ts)
    threads.enqueue_and_drive(key, pending, new=not exists)


def turn(threads: Threads, key: ThreadKey, items: list[Pending], lease: Lease) -> None:
    """One turn on the thread's queued messages, under its lease (`Threads.drive`)."""
    # The agent and its tools load only where turns run: the serving process of a split bot
    # (bot.work_process) handles cancels through this module, never a turn.
    from bot.handlers.turn import run_turn  # noqa: PLC0415 - see the comment above

    svc = threads.channels(key.channel) or threads.svc
    stored = svc.sessions.get(key)
    if stored is None:
        first = items[0]
        now = svc.clock()
        session = Session(
            channel=key.channel, thread_ts=key.thread_ts, requester=first.user,
            request=first.request or first.text, created=now, updated=now,
            base_branch=svc.settings.base_branch,
            branch=branch_name(key.thread_ts, first.request or first.text),
        )  # fmt: skip
        svc.audit.record(key.channel, key.thread_ts, first.user, "session_started",
                         {"request": session.request, "repo": svc.settings.repo_url or "",
                          "base_branch": session.base_branch})  # fmt: skip
    else:
        session = stored
        # A request delivered again after a turn answered it (the replica that took it stopped
        # before it could say it was done, and its work was queued again: bot.runtime.admission)
        # is not run twice.
        again = [i for i in items if i.ts and i.ts in session.answered]
        if again:
            log.info("%s: %d request(s) answered already", key.id, len(again))
            items = [i for i in items if i not in again]
            if not items:
                return
        if session.state == "running":
            threads.post(key, CUT_OFF)
    session.take([i.ts for i in items if i.ts], continuing=session.state == "running")
    masked, mask = threads.masked(svc, key, session)
    for item in items:
        masked.audit.record(key.channel, key.thread_ts, item.user, "message",
                            {"text": item.text})  # fmt: skip
    # After a failing CI run or a change request, the turn starts from what GitHub said.
    context = ci.fix_context(svc, session, mask.apply)
    try:
        if guard_budget.admitted(masked, session):  # before any model call
            with guard_budget.metered(masked, session):
                run_turn(masked, session, context + prompt(session, items), lease.token, mask)
    finally:
        session.state = "idle"
        session.answer_taken()
        session.updated = svc.clock()
        masked.sessions.put(session)  # the history's copy masked by what the turn rendered


def _rebase(threads: Threads, message: Mention | ThreadReply) -> None:
    """`rebase` in a session thread (bot.handlers.rebase), under the thread's lease."""
    key = message.key
    svc = threads.channels(key.channel) or threads.svc
    if not svc.sessions.exists(key):
        _message(threads, message)  # not a session: an ordinary request, or people talking
        return

    def work() -> None:
        session = svc.sessions.get(key)
        if session is None:
            return
        masked, mask = threads.masked(svc, key, session)
        try:
            rebase.rebase(masked, session, message.user, mask)
        finally:  # a clean rebase has stored the new patch: the session must follow
            session.updated = svc.clock()
            masked.sessions.put(session)

    if not threads.holding(svc, key, work):
        threads.post(key, f"<@{message.user}> a turn is running in this thread; reply "
                              "`rebase` again when it has finished.")  # fmt: skip


def _guard_word(threads: Threads, message: Mention | ThreadReply, word: GuardReply) -> None:
    """A guard word in a session thread (bot.handlers.guard_words). It changes no session, so
    it needs no lease: an admin's override counts while a turn runs."""
    key = message.key
    svc = threads.channels(key.channel) or threads.svc
    session = svc.sessions.get(key)
    if session is None or (
        isinstance(word, Override) and not guard_words.is_override_for(svc, session, message.user)
    ):
        _message(threads, message)  # an ordinary request ("override the image tag")
        return
    masked, _ = threads.masked(svc, key, session)
    masked.audit.record(key.channel, key.thread_ts, message.user, "message",
                        {"text": message.text})  # fmt: skip
    guard_words.handle(masked, session, message.user, word)
