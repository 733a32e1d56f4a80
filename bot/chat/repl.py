"""The terminal front end of a conversation: run a turn in the foreground, and the REPL.

A turn runs on a worker thread while the main thread waits, so Ctrl+C (a KeyboardInterrupt in
the main thread) cancels the turn through its token instead of killing the process mid-edit; the
loop stops within a second and keeps the edits. At the prompt Ctrl+C just clears the line.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TextIO

from bot.agent.agent import Agent, TurnResult
from bot.agent.cancel import CancelToken
from bot.agent.conversation import Conversation
from bot.agent.review import Review, ReviewInput, run_reviewed_turn
from bot.chat.changes import ChatChanges
from bot.chat.terminal import TerminalObserver, describe_usage
from bot.errors import BotError
from tools.context import ToolContext
from tools.git import working_diff

PROMPT = "❯ "  # noqa: RUF001 - the prompt of the `tk agent` CLI
HISTORY_FILE = Path("~/.cache/tanka-bot/chat_history")
HISTORY_LENGTH = 1000
CTRL_C_REASON = "cancelled with Ctrl+C; edits made so far are kept"

HELP = """\
Ask for a change to the Tanka repository in plain words; the agent edits the checkout.
  /diff    show what changed since the session started
  /approve open a pull request with the change last shown (commit, push, PR), as the approve
           reaction does in Slack; if files changed since it was shown, shows the new diff instead
  /clear   start a fresh conversation (edits in the checkout stay)
  /help    this help
  /exit    leave (Ctrl+D works too)
Ctrl+C during a turn stops it and keeps the edits made so far; at the prompt it clears the line.
Nothing is ever applied to a cluster.
"""


@dataclass
class ChatSession:
    """What each turn of a terminal chat needs."""

    agent: Agent
    ctx: ToolContext
    out: TextIO
    show_changes: Callable[[], None]
    conversation: Conversation
    # Set by the chat command: publish what was last shown (raises BotError when it must not).
    approve: Callable[[], None] | None = None
    # Called after each REPL turn with its prompt and result (the chat shows a new change).
    after_turn: Callable[[str, TurnResult], None] | None = None
    # The change as printed; before a turn's answer is printed it teaches the output's mask the
    # Secret values of the change (the answer may quote one the agent never rendered).
    changes: ChatChanges | None = None
    # TANKA_BOT_REVIEW: a turn that changed files is reviewed (and may be revised once).
    review: bool = False
    last_review: Review | None = None

    def say(self, text: str) -> None:
        self.out.write(text.rstrip("\n") + "\n")
        self.out.flush()


def run_in_foreground(session: ChatSession, prompt: str) -> TurnResult:
    """Run one turn on a worker thread; Ctrl+C here cancels the turn, not the program."""
    token = CancelToken()
    outcome: list[TurnResult | BaseException] = []
    # An Event, not Thread.join: an interrupted join() can leave the thread marked as finished.
    finished = threading.Event()

    def work() -> None:
        try:
            outcome.append(_turn(session, prompt, token))
        except BaseException as exc:  # handed to the main thread, which reports it
            outcome.append(exc)
        finally:
            finished.set()

    def interrupted() -> None:
        if not token.is_set():
            session.say("  ✗ cancelling (edits made so far are kept)…")
        token.cancel(CTRL_C_REASON)

    with _on_ctrl_c(interrupted):
        threading.Thread(target=work, name="chat-turn", daemon=True).start()
        while not finished.is_set():
            try:
                finished.wait(0.1)
            except KeyboardInterrupt:  # not the main thread: no handler could be installed
                interrupted()
    result = outcome[0]
    if isinstance(result, BaseException):
        raise result
    return result


@contextlib.contextmanager
def _on_ctrl_c(action: Callable[[], None]) -> Iterator[None]:
    """Ctrl+C runs `action` for as long as the block runs. A handler, not `except
    KeyboardInterrupt`: the exception may be raised at any instruction of the main thread, even
    between the wait and its `try`, and would then end the program mid-turn."""
    if threading.current_thread() is not threading.main_thread():
        yield  # signal handlers can only be set from the main thread
        return
    previous = signal.signal(signal.SIGINT, lambda _signum, _frame: action())
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _turn(session: ChatSession, prompt: str, token: CancelToken) -> TurnResult:
    observer = TerminalObserver(session.out)
    changes = session.changes
    if not session.review or changes is None:
        return session.agent.run(
            session.conversation, prompt, session.ctx, observer=observer, cancel=token
        )

    def describe() -> ReviewInput | None:
        patch = working_diff(session.ctx.root, session.ctx.base_commit)
        if not patch.strip():
            return None
        return ReviewInput(prompt, patch, changes.rendered() or "")

    reviewed = run_reviewed_turn(
        session.agent, session.conversation.history, prompt, session.ctx, describe=describe,
        observer=observer, cancel=token,
    )  # fmt: skip
    session.conversation.record(reviewed.result.messages, reviewed.result.usage)
    session.last_review = reviewed.review
    return reviewed.result


def report(session: ChatSession, result: TurnResult) -> None:
    """The answer (or why there is none) and what the turn cost."""
    session.ctx.teach_mask()  # a turn without tool calls has not taught it yet
    if session.changes is not None:
        session.changes.learn()
    if result.text.strip():
        session.say(f"\n{result.text.strip()}\n")
    if result.error is not None:
        session.say(f"✗ turn stopped: {result.error}")
    if session.last_review is not None:
        session.say(f"── review ── {session.last_review.text()}\n")
        session.last_review = None
    session.say(describe_usage(result.usage, session.conversation.usage, result.steps))


class LineReader:
    """Reads prompts: line editing and history on a terminal, plain lines from any other stream."""

    def __init__(self, stdin: TextIO, out: TextIO, history: Path | None = HISTORY_FILE) -> None:
        self._stdin = stdin
        self._out = out
        self._history = history.expanduser() if history else None
        self._readline = self._setup_readline() if self._interactive() else None

    def _interactive(self) -> bool:
        return self._stdin is sys.stdin and self._stdin.isatty() and self._out is sys.stdout

    def _setup_readline(self) -> ModuleType | None:
        try:
            import readline  # noqa: PLC0415 - readline is optional (absent on some platforms)
        except ImportError:  # not every Python build has it; plain input() still works
            return None
        if self._history is not None:
            with contextlib.suppress(OSError):
                readline.read_history_file(self._history)
            readline.set_history_length(HISTORY_LENGTH)
        return readline

    def read(self, prompt: str = PROMPT) -> str | None:
        """One line without its newline, or None at end of input (Ctrl+D)."""
        if self._interactive():
            try:
                return input(prompt)
            except EOFError:
                return None
        self._out.write(prompt)
        self._out.flush()
        line = self._stdin.readline()
        return line.rstrip("\n") if line else None

    def close(self) -> None:
        if self._readline is None or self._history is None:
            return
        with contextlib.suppress(OSError):
            self._history.parent.mkdir(parents=True, exist_ok=True)
            self._readline.write_history_file(self._history)


def _command(session: ChatSession, line: str) -> bool:
    """Handle a /command; False means leave the REPL."""
    name = line.split(maxsplit=1)[0].lower()
    if name in {"/exit", "/quit"}:
        return False
    if name == "/help":
        session.say(HELP)
    elif name == "/clear":
        session.conversation.clear()
        session.say("conversation cleared (edits in the checkout stay)")
    elif name == "/diff":
        session.show_changes()
    elif name == "/approve" and session.approve is not None:
        try:
            session.approve()
        except BotError as exc:
            session.say(f"✗ {exc}")
    else:
        session.say(f"unknown command {name}; type /help for the commands")
    return True


def repl(session: ChatSession, reader: LineReader) -> int:
    """Read requests until /exit or end of input; each one is a turn of the same conversation."""
    try:
        while True:
            try:
                line = reader.read()
            except KeyboardInterrupt:
                session.say("")  # abandon the line, show a fresh prompt
                continue
            if line is None:
                session.say("")
                return 0
            line = line.strip()
            if not line:
                continue
            if line.startswith("/"):
                if not _command(session, line):
                    return 0
                continue
            result = run_in_foreground(session, line)
            report(session, result)
            if session.after_turn is not None:
                session.after_turn(line, result)
    finally:
        reader.close()
