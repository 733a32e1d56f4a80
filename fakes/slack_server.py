"""A stateful fake of the Slack Web API over real HTTP, for slack_sdk's `WebClient` to talk to.

Point a client at `server.api_url` (`WebClient(token=server.bot_token, base_url=server.api_url)`,
or `TANKA_BOT_SLACK_API_URL` for the bot process) and it answers the methods a bot uses in
Slack's response shapes: `{"ok": true, ...}` or HTTP 200 with `{"ok": false, "error": "..."}`.

    with SlackServer(usergroups={"S0SRE": ["U0LEAD"]}) as slack:
        client = WebClient(token=slack.bot_token, base_url=slack.api_url)
        root = slack.add_message("C0DEPLOY", "<@U0BOT> add env staging", user="U0ALICE")
        ...  # drive the bot
        reply = slack.wait_for(lambda: slack.thread("C0DEPLOY", root.ts)[1:])
        assert slack.violations == []

Bodies are accepted both as JSON and form-encoded (the SDK sends `chat.*` as JSON and most other
methods as forms, always with POST); the token comes from `Authorization: Bearer` or, as Slack
also allows, a `token` field. Messages get unique, increasing `ts` values across the workspace.

Slack's documented limits are enforced where a bot could break them, and every breach is also
kept in `violations`, so an end-to-end test can assert the bot never came close:
`text` over 40,000 characters is truncated (warning `message_truncated`), more than 50 blocks or
an oversized block field is `invalid_blocks`, blocks whose text adds up to more than
`max_blocks_chars` is `msg_blocks_too_long`, and `markdown_text` over 12,000 characters is
`msg_too_long` (Slack documents that limit without naming its error; the fake picks this one).

`new_response_url()` mints a slash command `response_url` on this server and `responses` holds
what the bot posted to it. `fail()` and `rate_limit()` make the next calls of one method fail;
`wait_for()` polls any condition, so tests never sleep blindly. With `socket_mode=True` the
server also runs a `SocketModeServer` and answers `apps.connections.open` (with the app token,
not the bot token) with its URL.
"""

from __future__ import annotations

import contextlib
import copy
import itertools
import json
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Self, TypeVar
from urllib.parse import parse_qsl

from fakes.http_server import RecordedRequest, Reply, ScriptedHTTPServer
from fakes.slack_views import block_problems, view_problems
from fakes.socket_mode_server import SocketModeServer

__all__ = [
    "ApiCall",
    "AssistantStatus",
    "CommandResponse",
    "Ephemeral",
    "OpenedView",
    "SlackMessage",
    "SlackServer",
    "UploadedFile",
    "Violation",
]

T = TypeVar("T")
JSONDict = dict[str, Any]

BOT_TOKEN = "dummy-slack-bot-token"
APP_TOKEN = "dummy-slack-app-token"

MAX_TEXT = 40_000  # longer `text` is truncated, with warning `message_truncated`
MAX_BLOCKS = 50
MAX_SECTION_TEXT = 3_000
MAX_SECTION_FIELDS = 10
MAX_FIELD_TEXT = 2_000
MAX_HEADER_TEXT = 150
MAX_MARKDOWN = 12_000  # markdown blocks and `markdown_text`
MAX_BLOCK_ID = 255
MAX_LOADING_MESSAGES = 10

# Fields Slack takes as JSON; in a form body they arrive as JSON strings.
_JSON_FIELDS = ("blocks", "attachments", "metadata", "files", "loading_messages", "view")


@dataclass
class SlackMessage:
    """A message in a channel, posted by the bot (via the API) or added by a test as a user's."""

    channel: str
    ts: str
    text: str
    user: str
    bot_id: str | None = None
    thread_ts: str | None = None
    blocks: list[JSONDict] | None = None
    files: list[JSONDict] = field(default_factory=list)
    reactions: dict[str, list[str]] = field(default_factory=dict)  # name -> users, in order
    truncated: bool = False  # Slack cut `text` at 40,000 characters
    edits: list[str] = field(default_factory=list)  # earlier texts, oldest first
    reply_broadcast: bool = False

    @property
    def is_bot(self) -> bool:
        return self.bot_id is not None

    @property
    def thread_root(self) -> str:
        """The ts that identifies this message's thread (its own ts at top level)."""
        return self.thread_ts or self.ts

    def to_api(self, team_id: str = "") -> JSONDict:
        """The message as Slack's API returns it (history, replies, postMessage)."""
        body: JSONDict = {"type": "message", "ts": self.ts, "user": self.user, "text": self.text}
        if team_id:
            body["team"] = team_id
        if self.bot_id:
            body["bot_id"] = self.bot_id
        if self.blocks is not None:
            body["blocks"] = copy.deepcopy(self.blocks)
        if self.thread_ts:
            body["thread_ts"] = self.thread_ts
        if self.files:
            body["files"] = copy.deepcopy(self.files)
            body["upload"] = True
        if self.reactions:
            body["reactions"] = [
                {"name": name, "users": list(users), "count": len(users)}
                for name, users in self.reactions.items()
            ]
        if self.edits:
            body["edited"] = {"user": self.user, "ts": self.ts}
        return body


@dataclass(frozen=True)
class Ephemeral:
    channel: str
    user: str
    text: str
    message_ts: str
    thread_ts: str | None
    blocks: list[JSONDict] | None


@dataclass(frozen=True)
class CommandResponse:
    """A message posted to a slash command's `response_url` (as Bolt's `respond()` does)."""

    url_key: str
    body: Any  # {"text": ..., "response_type": "ephemeral" | "in_channel", ...}


@dataclass(frozen=True)
class AssistantStatus:
    channel: str
    thread_ts: str
    status: str  # "" clears the status
    loading_messages: tuple[str, ...] = ()


@dataclass
class UploadedFile:
    """A file from the `files_upload_v2` flow; `completed` once shared (or kept private)."""

    id: str
    filename: str
    length: int
    snippet_type: str | None
    alt_txt: str | None
    content: bytes | None = None
    title: str | None = None
    channel: str | None = None
    thread_ts: str | None = None
    initial_comment: str | None = None
    completed: bool = False
    share_ts: str | None = None  # the message that shared it

    @property
    def text(self) -> str:
        return (self.content or b"").decode()

    def to_api(self, user: str) -> JSONDict:
        body: JSONDict = {
            "id": self.id,
            "name": self.filename,
            "title": self.title or self.filename,
            "user": user,
            "size": self.length,
            "mimetype": "text/plain",
            "filetype": self.snippet_type or "text",
            "permalink": f"https://files.slack.example/files/{user}/{self.id}/{self.filename}",
        }
        if self.channel and self.completed:
            share: JSONDict = {"ts": self.share_ts or ""}
            if self.thread_ts:
                share["thread_ts"] = self.thread_ts
            body["channels"] = [self.channel]
            body["shares"] = {"public": {self.channel: [share]}}
        return body


@dataclass(frozen=True)
class ApiCall:
    """One Web API call as the fake understood it (answered or failed)."""

    method: str
    args: Mapping[str, Any]  # JSON fields (blocks, files...) already parsed
    token: str | None
    status: int
    response: Mapping[str, Any]

    @property
    def ok(self) -> bool:
        return self.status == 200 and bool(self.response.get("ok"))


@dataclass(frozen=True)
class Violation:
    """A call that broke one of Slack's limits (answered as Slack would)."""

    method: str
    error: str  # the error or warning Slack answers with
    detail: str


@dataclass
class _Failure:
    method: str
    times: int
    status: int
    body: JSONDict
    headers: dict[str, str]


class _ApiError(Exception):
    def __init__(self, error: str, **extra: Any) -> None:
        super().__init__(error)
        self.error = error
        self.extra = extra


@dataclass
class OpenedView:
    """A modal opened with views.open, or a Home tab published with views.publish."""

    surface: str  # "modal" or "home"
    view: JSONDict
    id: str
    user: str = ""  # views.publish's user_id
    trigger_id: str = ""  # views.open's


class SlackServer(ScriptedHTTPServer):
    """The Web API methods tanka-bot uses, with state: channels, threads, reactions, files."""

    def __init__(
        self,
        *,
        bot_token: str = BOT_TOKEN,
        app_token: str = APP_TOKEN,
        team_id: str = "T0TEAM",
        team_domain: str = "tanka-test",
        bot_user_id: str = "U0BOT",
        bot_id: str = "B0BOT",
        app_id: str = "A0APP",
        bot_name: str = "tanka-bot",
        usergroups: Mapping[str, Sequence[str]] | None = None,
        usergroups_need_upgrade: bool = False,
        users: Mapping[str, str] | None = None,
        channels: Iterable[str] | None = None,
        max_blocks_chars: int = 12_000,
        socket_mode: bool = False,
    ) -> None:
        super().__init__()
        self.bot_token = bot_token
        self.app_token = app_token
        self.team_id = team_id
        self.team_domain = team_domain
        self.bot_user_id = bot_user_id
        self.bot_id = bot_id
        self.app_id = app_id
        self.bot_name = bot_name
        self.usergroups = {k: list(v) for k, v in (usergroups or {}).items()}
        # Free workspaces have no user groups: the API answers `plan_upgrade_required`.
        self.usergroups_need_upgrade = usergroups_need_upgrade
        self.users: dict[str, str] = dict(users or {})
        self.emails: dict[str, str] = {}  # users.lookupByEmail: email -> user id
        self.users.setdefault(bot_user_id, bot_name)
        # None: any channel id exists and the bot is a member of it.
        self.channels: set[str] | None = set(channels) if channels is not None else None
        self.not_member: set[str] = set()
        self.max_blocks_chars = max_blocks_chars
        self.socket_mode: SocketModeServer | None = SocketModeServer() if socket_mode else None
        self.violations: list[Violation] = []
        self.errors: list[str] = []  # tracebacks of fake bugs (answered as 500)
        self._state = threading.RLock()
        self._changed = threading.Condition(self._state)
        self._messages: dict[str, list[SlackMessage]] = {}
        self._ephemerals: list[Ephemeral] = []
        self._statuses: list[AssistantStatus] = []
        self._files: dict[str, UploadedFile] = {}
        self._response_urls: set[str] = set()
        self._responses: list[CommandResponse] = []
        self._calls: list[ApiCall] = []
        self._failures: list[_Failure] = []
        self._ts = itertools.count(1)
        self._ids = itertools.count(1)
        self._views: list[OpenedView] = []  # views.open and views.publish, in order
        # conversations.members: set with set_members(); otherwise whoever posted there
        self._members: dict[str, list[str]] = {}

    # -- lifecycle -------------------------------------------------------------------------

    def __enter__(self) -> Self:
        super().__enter__()
        if self.socket_mode is not None:
            self.socket_mode.start()
        return self

    def close(self) -> None:
        if self.socket_mode is not None:
            self.socket_mode.close()
        super().close()

    @property
    def api_url(self) -> str:
        """The Web API base URL, for `WebClient(base_url=...)`."""
        return f"{self.url}/api/"

    # -- test set-up -----------------------------------------------------------------------

    def add_message(
        self,
        channel: str,
        text: str,
        *,
        user: str = "U0HUMAN",
        thread_ts: str | None = None,
        bot_id: str | None = None,
    ) -> SlackMessage:
        """A message someone "posted": gets a fresh ts and is visible to history and replies."""
        with self._state:
            message = SlackMessage(channel, self._next_ts(), text, user, bot_id, thread_ts)
            self._store(message)
            return copy.deepcopy(message)

    def add_reaction(self, channel: str, ts: str, name: str, *, user: str) -> None:
        """Record a user's reaction on a message (the matching event is the test's to send)."""
        with self._state:
            message = self._find(channel, ts)
            if message is None:
                raise KeyError(f"no message {channel}/{ts}")
            message.reactions.setdefault(name, []).append(user)
            self._changed.notify_all()

    def new_response_url(self) -> str:
        """A slash command's `response_url` on this server; what is posted to it is recorded."""
        with self._state:
            key = f"R{next(self._ids):08d}"
            self._response_urls.add(key)
        return f"{self.url}/response_url/{key}"

    def remove_bot_from(self, channel: str) -> None:
        """The bot is no longer in `channel`: posting there fails with `not_in_channel`."""
        with self._state:
            self.not_member.add(channel)

    def fail(
        self,
        method: str,
        error: str = "fatal_error",
        *,
        status: int = 200,
        times: int = 1,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        """Answer the next `times` calls of `method` with `{"ok": false, "error": error}`.

        `status=200` is how Slack reports API errors; `status=500` imitates an outage.
        """
        body: JSONDict = {"ok": False, "error": error}
        with self._state:
            self._failures.append(_Failure(method, times, status, body, dict(headers or {})))

    def rate_limit(self, method: str, *, retry_after: int = 1, times: int = 1) -> None:
        """Answer the next `times` calls of `method` with HTTP 429 and `Retry-After`."""
        self.fail(
            method,
            "ratelimited",
            status=429,
            times=times,
            headers={"Retry-After": str(retry_after)},
        )

    # -- assertions ------------------------------------------------------------------------

    def messages(self, channel: str, thread_ts: str | None = None) -> list[SlackMessage]:
        """Messages of `channel` in ts order; with `thread_ts`, that thread (root first)."""
        with self._state:
            found = [
                m
                for m in self._messages.get(channel, [])
                if thread_ts is None or thread_ts in (m.ts, m.thread_ts)
            ]
            return copy.deepcopy(found)

    def thread(self, channel: str, ts: str) -> list[SlackMessage]:
        """The thread `ts` belongs to (a root or any reply's ts), root first; [] if unknown."""
        with self._state:
            message = self._find(channel, ts)
            return [] if message is None else self.messages(channel, message.thread_root)

    def message(self, channel: str, ts: str) -> SlackMessage:
        with self._state:
            found = self._find(channel, ts)
            if found is None:
                raise KeyError(f"no message {channel}/{ts}")
            return copy.deepcopy(found)

    def bot_messages(self, channel: str, thread_ts: str | None = None) -> list[SlackMessage]:
        return [m for m in self.messages(channel, thread_ts) if m.bot_id == self.bot_id]

    def set_members(self, channel: str, users: Iterable[str]) -> None:
        """Who is in `channel` (conversations.members); the bot is always in it."""
        with self._state:
            self._members[channel] = [*users, self.bot_user_id]

    def views(self, surface: str | None = None) -> list[OpenedView]:
        """Views opened (modals) or published (Home tabs), oldest first."""
        with self._state:
            return [v for v in self._views if surface is None or v.surface == surface]

    def home_of(self, user: str) -> JSONDict | None:
        """The Home tab last published for `user`."""
        published = [v for v in self.views("home") if v.user == user]
        return published[-1].view if published else None

    def calls(self, method: str | None = None) -> list[ApiCall]:
        """Web API calls in arrival order (all, or those of one method like "chat.postMessage")."""
        with self._state:
            return [c for c in self._calls if method is None or c.method == method]

    @property
    def statuses(self) -> list[AssistantStatus]:
        with self._state:
            return list(self._statuses)

    @property
    def ephemerals(self) -> list[Ephemeral]:
        with self._state:
            return list(self._ephemerals)

    @property
    def responses(self) -> list[CommandResponse]:
        """What was posted to the `response_url`s from `new_response_url()`, in order."""
        with self._state:
            return list(self._responses)

    @property
    def uploads(self) -> list[UploadedFile]:
        """Files whose upload was completed, in completion order."""
        with self._state:
            return copy.deepcopy([f for f in self._files.values() if f.completed])

    def wait_for(self, predicate: Callable[[], T | None], timeout: float = 5.0) -> T:
        """Poll `predicate` until it returns something truthy and return that; fail on timeout.

        Woken early by every API call, so a test waits only as long as the bot takes.
        """
        deadline = time.monotonic() + timeout
        while True:
            # Called without the lock: the predicate may itself call this server over HTTP.
            value = predicate()
            if value:
                return value
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"condition not met within {timeout}s: {predicate!r}")
            # The short cap also covers predicates that watch something other than this server.
            with self._changed:
                self._changed.wait(min(remaining, 0.05))

    def wait_for_calls(self, method: str, count: int = 1, timeout: float = 5.0) -> list[ApiCall]:
        """Wait until `method` was called at least `count` times; returns those calls."""
        return self.wait_for(
            lambda: calls if len(calls := self.calls(method)) >= count else None, timeout
        )

    # -- request handling ------------------------------------------------------------------

    def answer(self, request: RecordedRequest) -> Reply:
        with self._state:
            self.requests.append(request)
        try:
            if request.path.startswith("/upload/"):
                return self._receive_upload(request)
            if request.path.startswith("/response_url/"):
                return self._receive_response(request)
            if not request.path.startswith("/api/"):
                return Reply(status=404, raw=b"not found")
            return self._api(request.path.removeprefix("/api/"), request)
        except Exception:  # a bug in the fake must be loud, not a hung client
            with self._state:
                self.errors.append(traceback.format_exc())
            return Reply(status=500, body={"ok": False, "error": "fake_server_bug"})
        finally:
            with self._changed:
                self._changed.notify_all()

    def _api(self, method: str, request: RecordedRequest) -> Reply:
        args = _parse_args(request)
        token = _token(request, args)
        args.pop("token", None)
        handler = _METHODS.get(method)
        with self._state:
            failure = self._take_failure(method)
            if failure is not None:
                reply = Reply(status=failure.status, body=failure.body, headers=failure.headers)
            elif handler is None:
                reply = Reply(body={"ok": False, "error": "unknown_method"})
            else:
                auth_error = self._check_token(method, token)
                if auth_error:
                    reply = Reply(body={"ok": False, "error": auth_error})
                else:
                    try:
                        reply = Reply(body={"ok": True, **handler(self, args)})
                    except _ApiError as e:
                        reply = Reply(body={"ok": False, "error": e.error, **e.extra})
            self._calls.append(ApiCall(method, args, token, reply.status, reply.body))
            return reply

    def _take_failure(self, method: str) -> _Failure | None:
        for failure in self._failures:
            if failure.method == method and failure.times > 0:
                failure.times -= 1
                return failure
        return None

    def _check_token(self, method: str, token: str | None) -> str | None:
        if not token:
            return "not_authed"
        wants_app_token = method == "apps.connections.open"
        if token in (self.bot_token, self.app_token):
            # App-level tokens only open Socket Mode connections; bot tokens cannot.
            return (
                None if (token == self.app_token) == wants_app_token else "not_allowed_token_type"
            )
        return "invalid_auth"

    def _receive_response(self, request: RecordedRequest) -> Reply:
        key = request.path.removeprefix("/response_url/").strip("/")
        with self._state:
            if key not in self._response_urls:
                return Reply(status=404, raw=b"unknown response_url")
            self._responses.append(CommandResponse(key, request.json))
        # A response_url answers plain "ok", not the Web API's JSON.
        return Reply(raw=b"ok")

    def _receive_upload(self, request: RecordedRequest) -> Reply:
        file_id = request.path.removeprefix("/upload/").strip("/")
        with self._state:
            upload = self._files.get(file_id)
            if upload is None or request.method != "POST":
                return Reply(status=404, raw=b"unknown upload")
            upload.content = request.body
        # The real upload endpoint answers in plain text, not JSON.
        return Reply(raw=f"OK - {len(request.body)}".encode())

    # -- state helpers (called with the lock held) -------------------------------------------

    def _next_ts(self) -> str:
        micros = 1_700_000_100_000_000 + next(self._ts) * 100
        return f"{micros // 1_000_000}.{micros % 1_000_000:06d}"

    def _store(self, message: SlackMessage) -> None:
        self._messages.setdefault(message.channel, []).append(message)
        self._changed.notify_all()

    def _find(self, channel: str, ts: str) -> SlackMessage | None:
        return next((m for m in self._messages.get(channel, []) if m.ts == ts), None)

    def _channel(self, channel: Any) -> str:
        if not isinstance(channel, str) or not channel:
            raise _ApiError("channel_not_found")
        if self.channels is not None and channel not in self.channels:
            raise _ApiError("channel_not_found")
        if channel in self.not_member:
            raise _ApiError("not_in_channel")
        return channel

    def _violation(self, method: str, error: str, detail: str) -> None:
        self.violations.append(Violation(method, error, detail))

    def _content(self, method: str, args: JSONDict) -> tuple[str, list[JSONDict] | None, JSONDict]:
        """Validate text/blocks/markdown_text as Slack does: (text, blocks, warning fields)."""
        text = args.get("text")
        blocks = args.get("blocks")
        markdown = args.get("markdown_text")
        if isinstance(blocks, str):
            raise _ApiError("invalid_blocks_format")
        if markdown is not None:
            if text or blocks:
                raise _ApiError("markdown_text_conflict")
            if len(str(markdown)) > MAX_MARKDOWN:
                self._violation(method, "msg_too_long", f"markdown_text of {len(markdown)} chars")
                raise _ApiError("msg_too_long")
            text = str(markdown)
        if not text and not blocks and not args.get("attachments"):
            raise _ApiError("no_text")
        if blocks is not None:
            self._check_blocks(method, blocks)
        text = "" if text is None else str(text)
        extra: JSONDict = {}
        if len(text) > MAX_TEXT:
            self._violation(method, "message_truncated", f"text of {len(text)} chars")
            text = text[:MAX_TEXT]
            extra = {
                "warning": "message_truncated",
                "response_metadata": {"warnings": ["message_truncated"]},
            }
        return text, blocks, extra

    def _check_blocks(self, method: str, blocks: Any) -> None:
        if not isinstance(blocks, list) or not all(isinstance(b, dict) for b in blocks):
            raise _ApiError("invalid_blocks_format")
        problems: list[str] = []
        if len(blocks) > MAX_BLOCKS:
            problems.append(f"no more than {MAX_BLOCKS} items allowed [json-pointer:/blocks]")
        total = 0
        for i, block in enumerate(blocks):
            block_problems, chars = _block_problems(f"/blocks/{i}", block)
            problems += block_problems
            total += chars
        if problems:
            for problem in problems:
                self._violation(method, "invalid_blocks", problem)
            raise _ApiError(
                "invalid_blocks",
                response_metadata={"messages": [f"[ERROR] {p}" for p in problems]},
            )
        if total > self.max_blocks_chars:
            self._violation(method, "msg_blocks_too_long", f"{total} chars of text in blocks")
            raise _ApiError("msg_blocks_too_long")

    # -- methods (each returns the fields after "ok": true, or raises _ApiError) ---------------

    def _auth_test(self, args: JSONDict) -> JSONDict:
        return {
            "url": f"https://{self.team_domain}.slack.com/",
            "team": self.team_domain,
            "user": self.bot_name,
            "team_id": self.team_id,
            "user_id": self.bot_user_id,
            "bot_id": self.bot_id,
            "app_id": self.app_id,
            "is_enterprise_install": False,
        }

    def _apps_connections_open(self, args: JSONDict) -> JSONDict:
        if self.socket_mode is None:
            raise _ApiError("socket_mode_not_enabled")  # the fake was built without it
        return {"url": self.socket_mode.new_url()}

    def _post_message(self, args: JSONDict) -> JSONDict:
        channel = self._channel(args.get("channel"))
        text, blocks, extra = self._content("chat.postMessage", args)
        thread_ts = args.get("thread_ts") or None
        if thread_ts is not None:
            parent = self._find(channel, str(thread_ts))
            if parent is None:
                # A bot replying to a thread_ts that never existed has lost track of its thread;
                # the fake refuses loudly rather than guess what Slack would do.
                raise _ApiError("thread_not_found")
            if parent.thread_root != parent.ts:
                # Slack asks for the parent's ts, not a reply's: note it, file it in the thread.
                self._violation("chat.postMessage", "reply_ts_as_thread_ts", str(thread_ts))
            thread_ts = parent.thread_root
        message = SlackMessage(
            channel,
            self._next_ts(),
            text,
            self.bot_user_id,
            self.bot_id,
            thread_ts,
            blocks,
            truncated=bool(extra),
            reply_broadcast=_truthy(args.get("reply_broadcast")),
        )
        self._store(message)
        return {
            "channel": channel,
            "ts": message.ts,
            "message": message.to_api(self.team_id),
            **extra,
        }

    def _update(self, args: JSONDict) -> JSONDict:
        channel = self._channel(args.get("channel"))
        message = self._find(channel, str(args.get("ts")))
        if message is None:
            raise _ApiError("message_not_found")
        if message.bot_id != self.bot_id:
            raise _ApiError("cant_update_message")
        # chat.update keeps what is not replaced: blocks stay unless new ones are given.
        if "blocks" not in args:
            args = {**args, "blocks": message.blocks}
        text, blocks, extra = self._content("chat.update", args)
        message.edits.append(message.text)
        message.text, message.blocks, message.truncated = text, blocks, bool(extra)
        self._changed.notify_all()
        return {
            "channel": channel,
            "ts": message.ts,
            "text": text,
            "message": message.to_api(self.team_id),
            **extra,
        }

    def _view(self, method: str, surface: str, args: JSONDict) -> OpenedView:
        view = args.get("view")
        if isinstance(view, str):
            raise _ApiError("invalid_arguments", response_metadata={"messages": ["view: JSON"]})
        problems = view_problems(view, surface=surface)
        if problems:
            for problem in problems:
                self._violation(method, "invalid_arguments", problem)
            raise _ApiError(
                "invalid_arguments",
                response_metadata={"messages": [f"[ERROR] {p}" for p in problems]},
            )
        opened = OpenedView(surface, copy.deepcopy(dict(view or {})), f"V{next(self._ids):08d}",
                            user=str(args.get("user_id") or ""),
                            trigger_id=str(args.get("trigger_id") or ""))  # fmt: skip
        self._views.append(opened)
        self._changed.notify_all()
        return opened

    def _conversations_members(self, args: JSONDict) -> JSONDict:
        channel = self._channel(args.get("channel"))
        members = self._members.get(channel)
        if members is None:
            posted = [m.user for m in self._messages.get(channel, []) if m.user]
            members = list(dict.fromkeys([*posted, self.bot_user_id]))
        limit = max(_int(args.get("limit"), 100), 1)
        start = _int(args.get("cursor") or 0, 0)
        page = members[start : start + limit]
        cursor = str(start + limit) if start + limit < len(members) else ""
        return {"members": page, "response_metadata": {"next_cursor": cursor}}

    def _views_open(self, args: JSONDict) -> JSONDict:
        if not args.get("trigger_id"):
            raise _ApiError("invalid_trigger_id")
        opened = self._view("views.open", "modal", args)
        return {"view": {**opened.view, "id": opened.id}}

    def _views_publish(self, args: JSONDict) -> JSONDict:
        if not args.get("user_id"):
            raise _ApiError("invalid_arguments")
        opened = self._view("views.publish", "home", args)
        return {"view": {**opened.view, "id": opened.id}}

    def _post_ephemeral(self, args: JSONDict) -> JSONDict:
        channel = self._channel(args.get("channel"))
        user = args.get("user")
        if not user:
            raise _ApiError("user_not_found")
        text, blocks, extra = self._content("chat.postEphemeral", args)
        thread_ts = args.get("thread_ts") or None
        ephemeral = Ephemeral(channel, str(user), text, self._next_ts(), thread_ts, blocks)
        self._ephemerals.append(ephemeral)
        return {"message_ts": ephemeral.message_ts, **extra}

    def _permalink(self, args: JSONDict) -> JSONDict:
        channel = self._channel(args.get("channel"))
        message = self._find(channel, str(args.get("message_ts")))
        if message is None:
            raise _ApiError("message_not_found")
        archive = f"https://{self.team_domain}.slack.com/archives/{channel}"
        link = f"{archive}/p{message.ts.replace('.', '')}"
        if message.thread_ts and message.thread_ts != message.ts:
            link += f"?thread_ts={message.thread_ts}&cid={channel}"
        return {"channel": channel, "permalink": link}

    def _replies(self, args: JSONDict) -> JSONDict:
        channel = self._channel(args.get("channel"))
        message = self._find(channel, str(args.get("ts")))
        if message is None:
            raise _ApiError("thread_not_found")
        thread = [m for m in self._messages[channel] if message.thread_root in (m.ts, m.thread_ts)]
        limit = _int(args.get("limit"), 1000)
        return {
            "messages": [m.to_api(self.team_id) for m in thread[:limit]],
            "has_more": len(thread) > limit,
            "response_metadata": {"next_cursor": ""},
        }

    def _history(self, args: JSONDict) -> JSONDict:
        channel = self._channel(args.get("channel"))
        inclusive = _truthy(args.get("inclusive"))
        latest = float(args.get("latest") or "inf")
        oldest = float(args.get("oldest") or 0)

        def in_range(m: SlackMessage) -> bool:
            ts = float(m.ts)
            if inclusive:
                return oldest <= ts <= latest
            return oldest < ts < latest

        # History holds top-level messages (and replies also sent to the channel), newest first.
        found = [
            m
            for m in reversed(self._messages.get(channel, []))
            if (m.thread_ts in (None, m.ts) or m.reply_broadcast) and in_range(m)
        ]
        limit = _int(args.get("limit"), 100)
        return {
            "messages": [m.to_api(self.team_id) for m in found[:limit]],
            "has_more": len(found) > limit,
            "response_metadata": {"next_cursor": ""},
        }

    def _reactions_add(self, args: JSONDict) -> JSONDict:
        channel = self._channel(args.get("channel"))
        message = self._find(channel, str(args.get("timestamp")))
        if message is None:
            raise _ApiError("message_not_found")
        name = str(args.get("name", "")).strip(":")
        if not name:
            raise _ApiError("invalid_name")
        users = message.reactions.setdefault(name, [])
        if self.bot_user_id in users:
            raise _ApiError("already_reacted")
        users.append(self.bot_user_id)
        return {}

    def _set_status(self, args: JSONDict) -> JSONDict:
        channel = self._channel(args.get("channel_id"))
        thread_ts = args.get("thread_ts")
        if not thread_ts or self._find(channel, str(thread_ts)) is None:
            raise _ApiError("invalid_thread_ts")
        loading = args.get("loading_messages") or []
        if len(loading) > MAX_LOADING_MESSAGES:
            self._violation("assistant.threads.setStatus", "invalid_arguments", "loading_messages")
            raise _ApiError("invalid_arguments")
        status = AssistantStatus(
            channel, str(thread_ts), str(args.get("status", "")), tuple(loading)
        )
        self._statuses.append(status)
        return {}

    def _usergroup_users(self, args: JSONDict) -> JSONDict:
        if self.usergroups_need_upgrade:
            raise _ApiError("plan_upgrade_required")
        group = args.get("usergroup")
        if group not in self.usergroups:
            raise _ApiError("no_such_subteam")
        return {"users": list(self.usergroups[str(group)])}

    def _users_info(self, args: JSONDict) -> JSONDict:
        user = str(args.get("user", ""))
        if user in self.users:
            name = self.users[user]
        elif user[:1] in ("U", "W") and user[1:].isalnum() and user[1:].isupper():
            name = user.lower()  # any plausible id is a person, so tests need not list everyone
        else:
            raise _ApiError("user_not_found")
        is_bot = user == self.bot_user_id
        return {
            "user": {
                "id": user,
                "team_id": self.team_id,
                "name": name,
                "real_name": name,
                "deleted": False,
                "is_bot": is_bot,
                "is_app_user": False,
                "profile": {"real_name": name, "display_name": name},
            }
        }

    def _lookup_by_email(self, args: JSONDict) -> JSONDict:
        user = self.emails.get(str(args.get("email", "")).lower())
        if user is None:
            raise _ApiError("users_not_found")
        return {"user": {"id": user, "team_id": self.team_id, "name": user.lower(),
                         "profile": {"email": args.get("email")}}}  # fmt: skip

    def _get_upload_url(self, args: JSONDict) -> JSONDict:
        filename = args.get("filename")
        length = _int(args.get("length"), 0)
        if not filename:
            raise _ApiError("invalid_arguments")
        if length < 1:
            raise _ApiError("invalid_arguments")
        file_id = f"F{next(self._ids):08d}"
        upload = UploadedFile(
            file_id, str(filename), length, args.get("snippet_type"), args.get("alt_txt")
        )
        self._files[file_id] = upload
        return {"upload_url": f"{self.url}/upload/{file_id}", "file_id": file_id}

    def _complete_upload(self, args: JSONDict) -> JSONDict:
        files = args.get("files")
        if not isinstance(files, list) or not files:
            raise _ApiError("invalid_arguments")
        channel = args.get("channel_id") or None
        if channel is None and args.get("channels"):
            channel = str(args["channels"]).split(",")[0]
        if channel is not None:
            channel = self._channel(channel)
        thread_ts = args.get("thread_ts") or None
        if thread_ts is not None and (channel is None or self._find(channel, thread_ts) is None):
            raise _ApiError("invalid_thread_ts")
        uploads: list[UploadedFile] = []
        for item in files:
            upload = self._files.get(str(item.get("id")))
            if upload is None or upload.content is None or upload.completed:
                raise _ApiError("file_not_found")
            uploads.append(upload)
        for item, upload in zip(files, uploads, strict=True):
            upload.title = item.get("title") or upload.filename
            upload.channel, upload.thread_ts = channel, thread_ts
            upload.initial_comment = args.get("initial_comment")
            upload.completed = True
        if channel is not None:
            # The share appears as one message from the bot carrying the files.
            share_ts = self._next_ts()
            for upload in uploads:
                upload.share_ts = share_ts
            share = SlackMessage(
                channel,
                share_ts,
                str(args.get("initial_comment") or ""),
                self.bot_user_id,
                self.bot_id,
                thread_ts,
                files=[u.to_api(self.bot_user_id) for u in uploads],
            )
            self._store(share)
        # Slack shares asynchronously, so its answer lists the files without their shares.
        listed = []
        for upload in uploads:
            body = upload.to_api(self.bot_user_id)
            body.pop("shares", None)
            listed.append(body)
        return {"files": listed}

    def _files_info(self, args: JSONDict) -> JSONDict:
        upload = self._files.get(str(args.get("file")))
        if upload is None or not upload.completed:
            raise _ApiError("file_not_found")
        return {"file": upload.to_api(self.bot_user_id)}


_Handler = Callable[[SlackServer, JSONDict], JSONDict]
_METHODS: dict[str, _Handler] = {
    "auth.test": SlackServer._auth_test,
    "apps.connections.open": SlackServer._apps_connections_open,
    "chat.postMessage": SlackServer._post_message,
    "chat.update": SlackServer._update,
    "chat.postEphemeral": SlackServer._post_ephemeral,
    "chat.getPermalink": SlackServer._permalink,
    "views.open": SlackServer._views_open,
    "conversations.members": SlackServer._conversations_members,
    "views.publish": SlackServer._views_publish,
    "conversations.replies": SlackServer._replies,
    "conversations.history": SlackServer._history,
    "reactions.add": SlackServer._reactions_add,
    "assistant.threads.setStatus": SlackServer._set_status,
    "usergroups.users.list": SlackServer._usergroup_users,
    "users.info": SlackServer._users_info,
    "users.lookupByEmail": SlackServer._lookup_by_email,
    "files.getUploadURLExternal": SlackServer._get_upload_url,
    "files.completeUploadExternal": SlackServer._complete_upload,
    "files.info": SlackServer._files_info,
}


def _parse_args(request: RecordedRequest) -> JSONDict:
    """Query string plus body, as JSON or form fields; JSON-valued form fields are parsed."""
    args: JSONDict = {k: v[-1] for k, v in request.query.items()}
    content_type = (request.header("content-type") or "").split(";")[0].strip().lower()
    if content_type == "application/json":
        if isinstance(request.json, dict):
            args.update(request.json)
    elif request.body:
        args.update(parse_qsl(request.body.decode(), keep_blank_values=True))
    for name in _JSON_FIELDS:
        value = args.get(name)
        if isinstance(value, str):
            # Unparseable stays a string: the method answers `invalid_blocks_format` & co.
            with contextlib.suppress(ValueError):
                args[name] = json.loads(value)
    return args


def _token(request: RecordedRequest, args: Mapping[str, Any]) -> str | None:
    authorization = request.header("authorization") or ""
    if authorization.startswith("Bearer "):
        return authorization.removeprefix("Bearer ").strip()
    token = args.get("token")
    return str(token) if token else None


def _too_long(limit: int, pointer: str) -> str:
    return f"must be less than {limit + 1} characters [json-pointer:{pointer}]"


def _block_problems(pointer: str, block: Mapping[str, Any]) -> tuple[list[str], int]:
    """What Slack would reject in one block, and how many characters of text it carries."""
    problems: list[str] = []
    if len(str(block.get("block_id", ""))) > MAX_BLOCK_ID:
        problems.append(_too_long(MAX_BLOCK_ID, f"{pointer}/block_id"))
    kind = block.get("type")
    if kind is None:
        return [*problems, f"missing required field: type [json-pointer:{pointer}]"], 0
    if kind == "section":
        text = _text_of(block.get("text"))
        fields = block.get("fields") or []
        if len(text) > MAX_SECTION_TEXT:
            problems.append(_too_long(MAX_SECTION_TEXT, f"{pointer}/text/text"))
        if len(fields) > MAX_SECTION_FIELDS:
            problems.append(f"no more than 10 items allowed [json-pointer:{pointer}/fields]")
        problems += [
            _too_long(MAX_FIELD_TEXT, f"{pointer}/fields/{j}/text")
            for j, f in enumerate(fields)
            if len(_text_of(f)) > MAX_FIELD_TEXT
        ]
        return problems, len(text) + sum(len(_text_of(f)) for f in fields)
    if kind == "header":
        text = _text_of(block.get("text"))
        if len(text) > MAX_HEADER_TEXT:
            problems.append(_too_long(MAX_HEADER_TEXT, f"{pointer}/text/text"))
        return problems, len(text)
    if kind == "markdown":
        text = str(block.get("text", ""))
        if len(text) > MAX_MARKDOWN:
            problems.append(_too_long(MAX_MARKDOWN, f"{pointer}/text"))
        return problems, len(text)
    if kind == "context":
        return problems, sum(len(_text_of(e)) for e in block.get("elements") or [])
    return [*problems, *block_problems(pointer, block, surface="message")], 0


def _text_of(obj: Any) -> str:
    """The text of a text object (`{"type": "mrkdwn", "text": ...}`), "" otherwise."""
    return str(obj.get("text", "")) if isinstance(obj, dict) else ""


def _truthy(value: Any) -> bool:
    return value in (True, 1, "1", "true", "True")


def _int(value: Any, default: int) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default
