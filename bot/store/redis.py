"""The Redis store: shared by every replica, so dedupe and locks hold across processes.

Atomicity comes from Redis itself: SET NX PX for dedupe tokens and lock leases, Lua scripts for
compare-and-extend and compare-and-delete, MULTI/EXEC for draining a queue and for keeping a
session and its sorted-set entries in step.

Outages are reported fast and plainly: short socket timeouts, and every connection or timeout
error becomes `StoreUnavailable` naming host:port (never the password). redis-py reconnects on
the next call (its pool replaces connections the server closed), so the same object works again
once Redis is back. A connection that breaks mid-command is retried once; a timeout is not
retried, because the command may have run and a blind repeat could double it.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Final, cast

import redis
from redis.backoff import ExponentialBackoff
from redis.retry import Retry

from bot.domain.thread import ThreadKey
from bot.store.base import StoreUnavailable, mark_time, ttl_millis
from bot.store.expiring import ExpiringDict
from bot.store.session_mirror import SessionMirror

TIMEOUT_SECONDS: Final = 2.0
LOCAL_INDEX: Final = 20_000  # message-index entries kept in memory (about 3 MB)

_OUTAGES: Final = (
    redis.exceptions.ConnectionError,  # also authentication and "loading dataset" errors
    redis.exceptions.TimeoutError,
    redis.exceptions.ReadOnlyError,  # a replica that cannot take writes
)

# SET NX of each key in order with a per-call nonce, and "the nonce is ours" on a repeat: a call
# retried after a dropped reply still reports the first sightings it made instead of a duplicate.
# Stops at the first key seen before, leaving the rest unmarked.
_FIRST_SEEN: Final = """
for _, key in ipairs(KEYS) do
  if not redis.call('SET', key, ARGV[1], 'NX', 'PX', ARGV[2]) then
    if redis.call('GET', key) ~= ARGV[1] then return 0 end
  end
end
return 1
"""

# Take the lease if free, or refresh it if `owner` already holds it (idempotent acquire).
_ACQUIRE: Final = """
local current = redis.call('GET', KEYS[1])
if current and current ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
"""

# Hand the lease from ARGV[1] to ARGV[2] if ARGV[1] still holds it (a renewal when they are equal).
_TAKE_OVER: Final = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  return 1
end
return 0
"""

# RPUSH unless the list already holds ARGV[2] items (then 0).
_PUT_WITHIN: Final = """
if redis.call('LLEN', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
return redis.call('RPUSH', KEYS[1], ARGV[1])
"""

# A set with the time of each member's latest mark: KEYS[1] a sorted set of the members, scored
# by a per-set counter (KEYS[2]) so the order of adding is kept; KEYS[3] a hash member -> time of
# its latest mark, add or removal. ARGV: member, ttl ms, the mark's time, 1 (add) or 0 (removal).
# An older mark changes nothing, and a removal beats an add of the same time: whatever order the
# two arrive in, the latest stands. Returns 1 when the member's presence changed.
_MARK_MEMBER: Final = """
local last = redis.call('HGET', KEYS[3], ARGV[1])
local at = tonumber(ARGV[3])
local adding = ARGV[4] == '1'
if last then
  last = tonumber(last)
  if at < last or (at == last and adding) then return 0 end
end
redis.call('HSET', KEYS[3], ARGV[1], ARGV[3])
local changed = 0
if adding then
  if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then
    local n = redis.call('INCR', KEYS[2])
    redis.call('ZADD', KEYS[1], n, ARGV[1])
    changed = 1
  end
else
  changed = redis.call('ZREM', KEYS[1], ARGV[1])
end
for _, key in ipairs(KEYS) do redis.call('PEXPIRE', key, ARGV[2]) end
return changed
"""

# The cards (key ARGV[2] .. member) of the newest ARGV[1] members of the sorted set KEYS[1] that
# still have one, newest first: the Home tab's one query per section. Members whose card is gone
# (the session was deleted) are dropped from the set on the way, so it stays small.
_NEWEST_CARDS: Final = """
local want = tonumber(ARGV[1])
local out = {}
local start = 0
while #out < want do
  local ids = redis.call('ZREVRANGE', KEYS[1], start, start + want - 1)
  if #ids == 0 then break end
  local kept = 0
  for _, id in ipairs(ids) do
    local card = redis.call('GET', ARGV[2] .. id)
    if card then
      kept = kept + 1
      if #out < want then table.insert(out, card) end
    else
      redis.call('ZREM', KEYS[1], id)
    end
  end
  start = start + kept
end
return out
"""

_RELEASE: Final = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


class RedisStore:
    """`Store` on Redis; thread-safe (redis-py's connection pool is)."""

    def __init__(
        self, url: str, *, prefix: str = "tanka-bot:", clock: Callable[[], float] = time.time
    ) -> None:
        self.client = _client(url)
        self._clock = clock  # the local index's deadlines (Redis keeps its own expiry)
        self._url = url  # for the session mirror's own connection (follow_sessions)
        self._mirror: SessionMirror | None = None
        self._prefix = prefix
        self._where = _address(self.client)
        self._password = self.client.connection_pool.connection_kwargs.get("password") or ""
        self._first_seen = self.client.register_script(_FIRST_SEEN)
        self._acquire = self.client.register_script(_ACQUIRE)
        self._take_over = self.client.register_script(_TAKE_OVER)
        self._put_within = self.client.register_script(_PUT_WITHIN)
        self._release = self.client.register_script(_RELEASE)
        self._mark_member = self.client.register_script(_MARK_MEMBER)
        self._newest_cards = self.client.register_script(_NEWEST_CARDS)
        self._local: ExpiringDict[tuple[str, str], ThreadKey] = ExpiringDict()
        self._local_lock = threading.Lock()
        # Told of each message indexed here (channel, ts, thread, deadline): a work process
        # tells its serving process, which triages reactions (bot.work_process).
        self.on_index: Callable[[str, str, ThreadKey, float], None] | None = None

    def __repr__(self) -> str:
        return f"RedisStore({self._where}, prefix={self._prefix!r})"

    # sessions

    def load(self, key: ThreadKey) -> str | None:
        with self.reachable():
            data = self._get(self._key("session", key.id))
        return None if data is None else data.decode()

    def has_session(self, key: ThreadKey) -> bool:
        mirror = self._mirror
        if mirror is not None and mirror.lacks(key.id):
            return False  # known to have none: no round trip (a "maybe" is asked below)
        with self.reachable():
            return bool(self.client.exists(self._key("session", key.id)))

    def save(self, key: ThreadKey, data: str, *, updated: float) -> None:
        with self.reachable():
            tx = self.client.pipeline(transaction=True)
            tx.set(self._key("session", key.id), data.encode())
            tx.zadd(self._key("sessions"), {key.id: updated})
            tx.zadd(self._key("sessions", key.channel), {key.id: updated})
            tx.publish(self._key("session-changes"), f"+{key.id}".encode())
            tx.execute()

    def delete(self, key: ThreadKey) -> None:
        with self.reachable():
            tx = self.client.pipeline(transaction=True)
            tx.delete(self._key("session", key.id), self._key("pending", key.id))
            tx.zrem(self._key("sessions"), key.id)
            tx.zrem(self._key("sessions", key.channel), key.id)
            tx.zrem(self._key("awaiting"), key.id)  # by-requester entries are skipped once gone
            tx.delete(self._key("card", key.id))
            tx.publish(self._key("session-changes"), f"-{key.id}".encode())
            tx.execute()

    def follow_sessions(self) -> SessionMirror:
        """Mirror which threads have a session in memory, from now on (bot.store.session_mirror):
        `has_session` answers "none" without a round trip while the mirror is in step."""
        if self._mirror is None:
            # No retry on this connection: redis-py would reconnect and resubscribe unseen, and
            # what was published meanwhile would be missing from the mirror.
            listener = _client(self._url, retries=0)
            self._mirror = SessionMirror(
                listener.pubsub, self._session_ids, self._key("session-changes")
            )
            self._mirror.start()
        return self._mirror

    def _session_ids(self) -> list[str]:
        rows = cast("list[bytes]", self.client.zrange(self._key("sessions"), 0, -1))
        return [row.decode() for row in rows]

    def index_session(
        self, key: ThreadKey, card: str, *, requester: str, awaiting: bool, updated: float
    ) -> None:
        with self.reachable():
            tx = self.client.pipeline(transaction=True)
            tx.set(self._key("card", key.id), card.encode())
            tx.zadd(self._key("by-requester", requester), {key.id: updated})
            if awaiting:
                tx.zadd(self._key("awaiting"), {key.id: updated})
            else:
                tx.zrem(self._key("awaiting"), key.id)
            tx.execute()

    def sessions_by(self, requester: str, limit: int) -> list[str]:
        return self._newest(self._key("by-requester", requester), limit)

    def awaiting(self, limit: int) -> list[str]:
        return self._newest(self._key("awaiting"), limit)

    def _newest(self, index: str, limit: int) -> list[str]:
        if limit <= 0:
            return []
        args: list[str | int] = [limit, self._key("card", "")]
        with self.reachable():
            rows = cast("list[bytes]", self._newest_cards(keys=[index], args=args))
        return [row.decode() for row in rows]

    def sessions(self, channel: str | None = None) -> list[tuple[ThreadKey, float]]:
        index = self._key("sessions") if channel is None else self._key("sessions", channel)
        with self.reachable():
            rows = cast(
                "list[tuple[bytes, float]]", self.client.zrange(index, 0, -1, withscores=True)
            )
        return [(ThreadKey.parse(member.decode()), score) for member, score in rows]

    # message index and dedupe

    def index_message(self, channel: str, ts: str, key: ThreadKey, ttl: float) -> None:
        px = ttl_millis(ttl)
        with self.reachable():
            self.client.set(self._message_key(channel, ts), key.id.encode(), px=px)
        deadline = self._clock() + px / 1000
        self.remember(channel, ts, key, deadline)
        if self.on_index is not None:
            self.on_index(channel, ts, key, deadline)

    def thread_of(self, channel: str, ts: str) -> ThreadKey | None:
        # The index is kept in memory too: this replica's own messages (the ones people react
        # to on it) are found without a round trip, and found while Redis is down, so a
        # reaction on one can still be answered in its thread.
        with self._local_lock:
            known = self._local.get((channel, ts), self._clock())
        if known is not None:
            return known
        with self.reachable():
            tx = self.client.pipeline(transaction=False)
            tx.get(self._message_key(channel, ts))
            tx.pttl(self._message_key(channel, ts))
            value, pttl = tx.execute()
        if value is None:
            return None
        key = ThreadKey.parse(cast("bytes", value).decode())
        if isinstance(pttl, int) and pttl > 0:
            self.remember(channel, ts, key, self._clock() + pttl / 1000)
        return key

    def remember(self, channel: str, ts: str, key: ThreadKey, deadline: float) -> None:
        """Know until `deadline` (epoch seconds) that message `ts` belongs to thread `key`, in
        memory only: found without a round trip, and while Redis is down."""
        with self._local_lock:
            self._local.set((channel, ts), key, deadline)
            if len(self._local) > LOCAL_INDEX:
                self._local.sweep(self._clock())
                if len(self._local) > LOCAL_INDEX:  # all alive: forget the oldest half
                    for old in list(self._local)[: LOCAL_INDEX // 2]:
                        self._local.pop(old)

    def link_pull_request(self, repo: str, number: int, key: ThreadKey, ttl: float) -> None:
        px = ttl_millis(ttl)
        with self.reachable():
            self.client.set(self._pull_key(repo, number), key.id.encode(), px=px)

    def thread_of_pull_request(self, repo: str, number: int) -> ThreadKey | None:
        with self.reachable():
            value = self._get(self._pull_key(repo, number))
        return None if value is None else ThreadKey.parse(value.decode())

    def first_seen(self, token: str, ttl: float) -> bool:
        return self.first_seen_all([token], ttl)

    def first_seen_all(self, tokens: Sequence[str], ttl: float) -> bool:
        keys = [self._key("seen", token) for token in tokens]
        args: list[str | int] = [uuid.uuid4().hex, ttl_millis(ttl)]
        with self.reachable():
            return bool(self._first_seen(keys=keys, args=args))

    # pending messages

    def push_pending(self, key: ThreadKey, item: str) -> None:
        with self.reachable():
            self.client.rpush(self._key("pending", key.id), item.encode())

    def has_pending(self, key: ThreadKey) -> bool:
        with self.reachable():
            return bool(self.client.llen(self._key("pending", key.id)))

    def drain_pending(self, key: ThreadKey) -> list[str]:
        queue = self._key("pending", key.id)
        with self.reachable():
            tx = self.client.pipeline(transaction=True)
            tx.lrange(queue, 0, -1)
            tx.delete(queue)
            items, _ = tx.execute()
        return [item.decode() for item in items]

    # the work queue: a list, and one list of taken items per owner (the reliable-queue pattern)

    def put_work(self, item: str, limit: int | None = None) -> int:
        with self.reachable():
            if limit is None:
                return int(self.client.rpush(self._key("work"), item.encode()))
            return int(self._put_within(keys=[self._key("work")], args=[item.encode(), limit]))

    def work_waiting(self, item: str) -> bool:
        with self.reachable():
            return self.client.lpos(self._key("work"), item) is not None

    def take_work(self, owner: str, timeout: float) -> str | None:
        taken = self._key("taken", owner)
        with self.reachable():
            self.client.sadd(self._key("owners"), owner.encode())
            # whole seconds (BLMOVE's unit here), below the socket timeout, so an empty wait
            # is not mistaken for an outage
            wait = max(1, min(int(timeout), int(TIMEOUT_SECONDS) - 1))
            moved = self.client.blmove(self._key("work"), taken, wait, "LEFT", "RIGHT")
            item = cast("bytes | None", moved)
        return None if item is None else item.decode()

    def done_work(self, owner: str, item: str) -> None:
        with self.reachable():
            self.client.lrem(self._key("taken", owner), 1, item)

    def return_work(self, owner: str) -> int:
        taken, moved = self._key("taken", owner), 0
        with self.reachable():
            # newest first onto the head, so the queue keeps the items' order
            while self.client.lmove(taken, self._key("work"), "RIGHT", "LEFT") is not None:
                moved += 1
            self.client.srem(self._key("owners"), owner.encode())
        return moved

    def work_owners(self) -> list[str]:
        with self.reachable():
            members = cast("set[bytes]", self.client.smembers(self._key("owners")))
        return sorted(m.decode() for m in members)

    # sets

    def add_member(self, name: str, member: str, ttl: float, *, at: float) -> bool:
        return self._mark(name, member, ttl, at=at, present=True)

    def remove_member(self, name: str, member: str, ttl: float, *, at: float) -> bool:
        return self._mark(name, member, ttl, at=at, present=False)

    def _mark(self, name: str, member: str, ttl: float, *, at: float, present: bool) -> bool:
        keys = [
            self._key("set", name),
            self._key("set-counter", name),
            self._key("set-marks", name),
        ]
        args: list[str | int] = [member, ttl_millis(ttl), repr(mark_time(at)), int(present)]
        with self.reachable():
            return bool(self._mark_member(keys=keys, args=args))

    def members(self, name: str) -> list[str]:
        with self.reachable():
            rows = cast("list[bytes]", self.client.zrange(self._key("set", name), 0, -1))
        return [row.decode() for row in rows]

    # blobs

    def put_blob(self, name: str, data: bytes, ttl: float | None) -> None:
        px = None if ttl is None else ttl_millis(ttl)
        with self.reachable():
            # a plain SET also clears the TTL of a blob it replaces, as ttl=None asks
            self.client.set(self._key("blob", name), bytes(data), px=px)

    def get_blob(self, name: str) -> bytes | None:
        with self.reachable():
            return self._get(self._key("blob", name))

    def delete_blob(self, name: str) -> None:
        with self.reachable():
            self.client.delete(self._key("blob", name))

    def ping(self) -> None:
        with self.reachable():
            self.client.ping()

    def close(self) -> None:
        if self._mirror is not None:
            self._mirror.stop()
        self.client.close()

    # locks

    def acquire(self, name: str, owner: str, ttl: float) -> bool:
        args: list[str | int] = [owner, ttl_millis(ttl)]
        with self.reachable():
            return bool(self._acquire(keys=[self._key("lock", name)], args=args))

    def renew(self, name: str, owner: str, ttl: float) -> bool:
        return self.take_over(name, owner, owner, ttl)  # the holder taking it from itself

    def release(self, name: str, owner: str) -> bool:
        with self.reachable():
            return bool(self._release(keys=[self._key("lock", name)], args=[owner]))

    def holder(self, name: str) -> str | None:
        with self.reachable():
            owner = self._get(self._key("lock", name))
        return None if owner is None else owner.decode()

    def take_over(self, name: str, previous: str, owner: str, ttl: float) -> bool:
        args: list[str | int] = [previous, owner, ttl_millis(ttl)]
        with self.reachable():
            return bool(self._take_over(keys=[self._key("lock", name)], args=args))

    # helpers

    def _get(self, key: str) -> bytes | None:
        # the client is built without decode_responses, so values come back as bytes
        return cast("bytes | None", self.client.get(key))

    def _key(self, kind: str, name: str | None = None) -> str:
        return f"{self._prefix}{kind}" if name is None else f"{self._prefix}{kind}:{name}"

    def _message_key(self, channel: str, ts: str) -> str:
        # built through ThreadKey so a ':' in either part cannot make two messages collide
        return self._key("message", ThreadKey(channel, ts).id)

    def _pull_key(self, repo: str, number: int) -> str:
        # GitHub's owner/name never holds a '#', so every pull request has its own key
        return self._key("pull", f"{repo}#{number}")

    @contextmanager
    def reachable(self) -> Iterator[None]:
        try:
            yield
        except _OUTAGES as exc:
            raise StoreUnavailable(self._outage(exc)) from None

    def _outage(self, exc: BaseException) -> str:
        reason = str(exc) or type(exc).__name__
        if self._password:
            reason = reason.replace(self._password, "***")
        return f"Redis at {self._where} is unavailable: {reason}"


def _client(url: str, *, retries: int = 1) -> redis.Redis:
    try:
        return redis.Redis.from_url(
            url,
            socket_timeout=TIMEOUT_SECONDS,
            socket_connect_timeout=TIMEOUT_SECONDS,
            retry=Retry(
                ExponentialBackoff(cap=0.2, base=0.05),
                retries=retries,
                supported_errors=(redis.exceptions.ConnectionError,),
            ),
        )
    except ValueError as exc:
        # redis-py's messages name the scheme or port at fault; the URL itself (and any
        # password in it) is left out on purpose
        raise ValueError(f"invalid Redis URL: {exc}") from None


def _address(client: redis.Redis) -> str:
    """host:port (or the socket path) of the client's server, for error messages."""
    kwargs: dict[str, Any] = client.connection_pool.connection_kwargs
    if "path" in kwargs:
        return f"unix:{kwargs['path']}"
    return f"{kwargs.get('host', 'localhost')}:{kwargs.get('port', 6379)}"
