"""The ids of the threads that have a session, mirrored in memory from Redis.

In a busy channel most messages are replies in people's own threads. Triage must tell them from
replies in the bot's sessions before Slack is acknowledged, and a Redis round trip for each one
costs the serving process more CPU than everything else it does for that reply. The mirror
answers "no session here" from memory, so such a reply costs no round trip; "maybe" is still
confirmed by Redis (`RedisStore.has_session`), so a stale entry can never admit a reply.

Kept exact across replicas: every save and delete of a session publishes its id (`+id`, `-id`)
in the same MULTI as the write (bot.store.redis), so the changes are ordered with the sorted set
of all sessions. The mirror subscribes, waits for Redis to confirm the subscription, reads that
sorted set, then applies every change published since, in order: whichever way a change and the
snapshot interleave, the last word on each id wins, and it is Redis's. While the subscription is
down (Redis restarting, a network fault) the mirror knows nothing and says so (`lacks` is False
for every id), so triage asks Redis as it would without a mirror; it resubscribes and reads the
snapshot again once Redis answers.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any, Final, Protocol

log = logging.getLogger(__name__)

RETRY_SECONDS: Final = (0.2, 0.5, 1.0, 2.0, 5.0)  # between attempts to follow again
POLL_SECONDS: Final = 1.0  # how long one read waits: also how soon `stop` is noticed
# A subscription hears nothing while nothing changes: a PING this often (answered on the same
# connection) tells a quiet workspace from a fault that closed nothing, such as a lost network.
PING_SECONDS: Final = 5.0
# Read every session again this often: a writer that does not publish (a replica of an older
# version, during a rolling upgrade) is seen within this long.
RELOAD_SECONDS: Final = 60.0


class Subscription(Protocol):
    """What the mirror uses of redis-py's `PubSub`."""

    def subscribe(self, *channels: str) -> Any: ...
    def get_message(self, ignore_subscribe_messages: bool = ..., timeout: float = ...) -> Any: ...
    def ping(self, message: str | None = ...) -> Any: ...
    def close(self) -> Any: ...


class SessionMirror:
    def __init__(
        self, subscribe: Callable[[], Subscription], snapshot: Callable[[], Iterable[str]],
        channel: str,
    ) -> None:  # fmt: skip
        self._subscribe = subscribe  # a new subscription connection
        self._snapshot = snapshot  # the ids of every session, read from Redis now
        self._channel = channel
        self._ids: set[str] = set()
        self._synced = False
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    def lacks(self, thread_id: str) -> bool:
        """True only when the mirror is in step with Redis and the thread has no session."""
        with self._lock:
            return self._synced and thread_id not in self._ids

    @property
    def synced(self) -> bool:
        with self._lock:
            return self._synced

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="session-mirror", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(POLL_SECONDS * 3)

    def _run(self) -> None:
        failures = 0
        while not self._stopping.is_set():
            try:
                self._follow()
            except Exception as exc:
                if self.synced:  # lost after being in step: say so once, retry at once
                    failures = 0
                    log.warning("session mirror lost Redis (%s): asking Redis for each reply "
                                "until it is back", type(exc).__name__)  # fmt: skip
                self._forget()
                self._stopping.wait(RETRY_SECONDS[min(failures, len(RETRY_SECONDS) - 1)])
                failures += 1

    def _follow(self) -> None:
        subscription = self._subscribe()
        try:
            subscription.subscribe(self._channel)
            while True:  # the snapshot must come after Redis has the subscription
                message = subscription.get_message(timeout=POLL_SECONDS)
                if self._stopping.is_set():
                    return
                if message is not None and message.get("type") == "subscribe":
                    break
            self._load_snapshot()
            log.info("session mirror in step with Redis")
            pinged = heard = loaded = time.monotonic()
            while not self._stopping.is_set():
                message = subscription.get_message(timeout=POLL_SECONDS)
                now = time.monotonic()
                if now - loaded > RELOAD_SECONDS:
                    self._load_snapshot()
                    loaded = now
                if message is not None:
                    heard = now
                    if message.get("type") == "message":
                        self._apply(message.get("data"))
                    elif message.get("type") == "subscribe":  # subscribed again: read again
                        self._load_snapshot()
                if now - heard > 2 * PING_SECONDS:  # a fault that closed nothing
                    raise TimeoutError("no answer on the subscription")
                if now - pinged > PING_SECONDS:
                    subscription.ping()
                    pinged = now
        finally:
            subscription.close()

    def _load_snapshot(self) -> None:
        ids = set(self._snapshot())
        with self._lock:
            self._ids = ids
            self._synced = True
        log.debug("session mirror in step with Redis: %d sessions", len(ids))

    def _apply(self, data: object) -> None:
        change = data.decode() if isinstance(data, bytes) else str(data)
        sign, thread_id = change[:1], change[1:]
        with self._lock:
            if sign == "+":
                self._ids.add(thread_id)
            elif sign == "-":
                self._ids.discard(thread_id)

    def _forget(self) -> None:
        with self._lock:
            self._synced = False
            self._ids = set()
