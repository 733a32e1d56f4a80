"""The history in Redis (`History`), shared by every replica and kept across restarts.

Keys under `<prefix>h:`: `card:<id>` (a string), `item:<kind>:<id>` (a hash), `ev:<id>` (a
list), each expiring `days` after its thread's last write; the indexes `i:all`, `i:ch:<channel>`,
`i:req:<user>`, `i:st:<state>`, `i:cs:<channel>:<state>`, `i:env:<env>` (sorted sets of thread
ids by update time; a channel's sessions in a state are a set of their own, so a reader's
"waiting for approval" merges a few small sets), `text`
and `meta` (hashes id -> the request, id -> the index fields the card was filed under), `touched`
(id -> last write, for `prune`), `channels` (a set) and `cost` (a hash `day|channel|what`).

A card moves between indexes in one Lua script, so a reader never sees it filed twice. A page of
the unfiltered list is ZREVRANGE and MGET: two round trips whatever the number of sessions.
Filters intersect their sorted sets into a key that lives for one query.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Collection
from contextlib import AbstractContextManager
from typing import Any, Final, cast

import redis

from bot.domain.thread import ThreadKey
from bot.store.history import (
    DAY,
    EVENTS_KEPT,
    CostRow,
    SessionFields,
    SessionQuery,
    day_of,
)

# ARGV: prefix, id, card, ttl s, score, channel, requester, state, text, meta, touched, envs...
_PUT_SESSION: Final = """
local p, id = ARGV[1], ARGV[2]
local old = redis.call('HGET', p .. 'meta', id)
if old then
  local m = cjson.decode(old)
  redis.call('ZREM', p .. 'i:req:' .. m.r, id)
  redis.call('ZREM', p .. 'i:st:' .. m.s, id)
  redis.call('ZREM', p .. 'i:cs:' .. m.c .. ':' .. m.s, id)
  for _, e in ipairs(m.e) do redis.call('ZREM', p .. 'i:env:' .. e, id) end
end
local score = ARGV[5]
redis.call('SET', p .. 'card:' .. id, ARGV[3], 'EX', ARGV[4])
redis.call('ZADD', p .. 'i:all', score, id)
redis.call('ZADD', p .. 'i:ch:' .. ARGV[6], score, id)
redis.call('ZADD', p .. 'i:req:' .. ARGV[7], score, id)
redis.call('ZADD', p .. 'i:st:' .. ARGV[8], score, id)
redis.call('ZADD', p .. 'i:cs:' .. ARGV[6] .. ':' .. ARGV[8], score, id)
redis.call('HSET', p .. 'text', id, ARGV[9])
redis.call('HSET', p .. 'meta', id, ARGV[10])
redis.call('SADD', p .. 'channels', ARGV[6])
redis.call('ZADD', p .. 'touched', ARGV[11], id)
for i = 12, #ARGV do redis.call('ZADD', p .. 'i:env:' .. ARGV[i], score, id) end
return 1
"""

# ARGV: prefix, cutoff. Unfiles every thread last written before the cutoff; how many.
_PRUNE: Final = """
local p = ARGV[1]
local gone = redis.call('ZRANGEBYSCORE', p .. 'touched', '-inf', '(' .. ARGV[2], 'LIMIT', 0, 1000)
for _, id in ipairs(gone) do
  local old = redis.call('HGET', p .. 'meta', id)
  if old then
    local m = cjson.decode(old)
    redis.call('ZREM', p .. 'i:req:' .. m.r, id)
    redis.call('ZREM', p .. 'i:st:' .. m.s, id)
    redis.call('ZREM', p .. 'i:ch:' .. m.c, id)
    redis.call('ZREM', p .. 'i:cs:' .. m.c .. ':' .. m.s, id)
    for _, e in ipairs(m.e) do redis.call('ZREM', p .. 'i:env:' .. e, id) end
  end
  redis.call('ZREM', p .. 'i:all', id)
  redis.call('HDEL', p .. 'meta', id)
  redis.call('HDEL', p .. 'text', id)
  redis.call('ZREM', p .. 'touched', id)
end
return #gone
"""


# KEYS: the candidates (a sorted set), the text hash; ARGV: q (lower case), offset, limit. The
# matching count and the page of matching ids, newest first. The texts are read in one HGETALL
# and only the matches are looked up among the candidates, so a rare word costs one pass.
_SEARCH: Final = """
local all = redis.call('HGETALL', KEYS[2])
local found = {}
for i = 1, #all, 2 do
  if string.find(all[i + 1], ARGV[1], 1, true) then
    local score = redis.call('ZSCORE', KEYS[1], all[i])
    if score then table.insert(found, {tonumber(score), all[i]}) end
  end
end
table.sort(found, function(a, b)
  if a[1] ~= b[1] then return a[1] > b[1] end
  return a[2] > b[2]
end)
local page = {}
local offset, limit = tonumber(ARGV[2]), tonumber(ARGV[3])
for i = offset + 1, math.min(#found, offset + limit) do table.insert(page, found[i][2]) end
return {#found, page}
"""


class RedisHistory:
    def __init__(
        self, client: redis.Redis, reachable: Callable[[], AbstractContextManager[None]], *,
        prefix: str, days: float, clock: Callable[[], float] | None = None,
    ) -> None:  # fmt: skip
        self._client = client
        self._reachable = reachable  # the store's: outages become StoreUnavailable
        self._p = f"{prefix}h:"
        self.keep = days * DAY
        self._clock = clock or time.time
        self._put = client.register_script(_PUT_SESSION)
        self._prune = client.register_script(_PRUNE)
        self._search = client.register_script(_SEARCH)

    @property
    def _ttl(self) -> int:
        return max(1, int(self.keep))

    def put_session(
        self, key: ThreadKey, card: str, fields: SessionFields, *, updated: float
    ) -> None:
        meta = json.dumps({"r": fields.requester, "s": fields.state, "e": list(fields.envs),
                           "c": key.channel})  # fmt: skip
        args: list[Any] = [self._p, key.id, card, self._ttl, updated, key.channel,
                           fields.requester, fields.state, fields.text.lower(), meta,
                           self._clock(), *fields.envs]  # fmt: skip
        with self._reachable():
            self._put(args=args)

    def _touch(self, pipe: Any, key: ThreadKey) -> None:
        pipe.expire(f"{self._p}card:{key.id}", self._ttl)
        pipe.zadd(f"{self._p}touched", {key.id: self._clock()}, xx=True)

    def put_item(self, key: ThreadKey, kind: str, name: str, data: str) -> None:
        name_key = f"{self._p}item:{kind}:{key.id}"
        with self._reachable():
            pipe = self._client.pipeline(transaction=False)
            pipe.hset(name_key, name, data)
            pipe.expire(name_key, self._ttl)
            self._touch(pipe, key)
            pipe.execute()

    def add_event(self, key: ThreadKey, event: str) -> None:
        list_key = f"{self._p}ev:{key.id}"
        with self._reachable():
            pipe = self._client.pipeline(transaction=False)
            pipe.rpush(list_key, event)
            pipe.ltrim(list_key, -EVENTS_KEPT, -1)
            pipe.expire(list_key, self._ttl)
            self._touch(pipe, key)
            pipe.execute()

    def replace_events(self, key: ThreadKey, changed: dict[int, str]) -> None:
        if not changed:
            return
        list_key = f"{self._p}ev:{key.id}"
        with self._reachable():
            pipe = self._client.pipeline(transaction=False)
            for index, event in changed.items():
                pipe.lset(list_key, index, event)
            # An index out of range: trimmed meanwhile, so that event went anyway.
            pipe.execute(raise_on_error=False)

    def add_cost(
        self, day: str, channel: str, usd: float, input_tokens: int, output_tokens: int
    ) -> None:
        name = f"{self._p}cost"
        with self._reachable():
            pipe = self._client.pipeline(transaction=False)
            pipe.hincrbyfloat(name, f"{day}|{channel}|usd", usd)
            pipe.hincrby(name, f"{day}|{channel}|in", input_tokens)
            pipe.hincrby(name, f"{day}|{channel}|out", output_tokens)
            pipe.hincrby(name, f"{day}|{channel}|turns", 1)
            pipe.execute()

    def card(self, key: ThreadKey) -> str | None:
        with self._reachable():
            raw = cast("bytes | None", self._client.get(f"{self._p}card:{key.id}"))
        return raw.decode() if raw is not None else None

    def items(self, key: ThreadKey, kind: str) -> dict[str, str]:
        with self._reachable():
            raw = cast("dict[bytes, bytes]",
                       self._client.hgetall(f"{self._p}item:{kind}:{key.id}"))  # fmt: skip
        return {k.decode(): v.decode() for k, v in raw.items()}

    def events(self, key: ThreadKey) -> list[str]:
        with self._reachable():
            raw = cast("list[bytes]", self._client.lrange(f"{self._p}ev:{key.id}", 0, -1))
        return [e.decode() for e in raw]

    def known(self, keys: Collection[ThreadKey]) -> set[ThreadKey]:
        ordered = list(keys)
        with self._reachable():
            pipe = self._client.pipeline(transaction=False)
            for key in ordered:
                pipe.exists(f"{self._p}card:{key.id}")
            found = pipe.execute()
        return {k for k, there in zip(ordered, found, strict=True) if there}

    def channels(self) -> list[str]:
        with self._reachable():
            raw = cast("set[bytes]", self._client.smembers(f"{self._p}channels"))
        return sorted(c.decode() for c in raw)

    def find(self, query: SessionQuery, *, offset: int, limit: int) -> tuple[int, list[str]]:
        p, state = self._p, query.state

        def channel_index(channel: str) -> str:  # with a state: that state's sessions only
            return f"{p}i:cs:{channel}:{state}" if state else f"{p}i:ch:{channel}"

        narrowing = [
            f"{p}i:req:{query.requester}" if query.requester else "",
            f"{p}i:env:{query.env}" if query.env else "",
        ]
        keys = [k for k in narrowing if k]
        union: list[str] = []
        if query.channel:
            if query.channels is not None and query.channel not in query.channels:
                return 0, []
            keys.insert(0, channel_index(query.channel))
        elif query.channels is not None:
            union = [channel_index(c) for c in sorted(query.channels)]
            if not union:
                return 0, []
        else:
            keys.insert(0, f"{p}i:st:{state}" if state else f"{p}i:all")
        with self._reachable():
            if len(keys) == 1 and not union and not query.q:
                return self._page(keys[0], offset, limit)
            if union and not keys and not query.q:
                return self._merged(union, offset, limit)
            return self._filtered(keys, union, query.q.lower(), offset, limit)

    def _page(self, index: str, offset: int, limit: int) -> tuple[int, list[str]]:
        pipe = self._client.pipeline(transaction=False)
        pipe.zcard(index)
        pipe.zrevrange(index, offset, offset + limit - 1)
        total, page = pipe.execute()
        return int(total), self._cards([i.decode() for i in page])

    def _merged(self, indexes: list[str], offset: int, limit: int) -> tuple[int, list[str]]:
        """A page of several channels' sessions: each channel's newest `offset + limit` merged
        here (a session is in one channel, so the counts add up), rather than a union of every
        session of those channels built in Redis for each page."""
        pipe = self._client.pipeline(transaction=False)
        for index in indexes:
            pipe.zcard(index)
            pipe.zrevrange(index, 0, offset + limit - 1, withscores=True)
        out = pipe.execute()
        total = sum(int(n) for n in out[0::2])
        rows = [(score, raw.decode()) for page in out[1::2] for raw, score in page]
        rows.sort(reverse=True)  # newest first, ties by id as ZREVRANGE orders them
        return total, self._cards([i for _, i in rows[offset : offset + limit]])

    def _filtered(
        self, keys: list[str], union: list[str], q: str, offset: int, limit: int
    ) -> tuple[int, list[str]]:
        source, tmp = (keys[0] if keys else ""), ""
        if union or len(keys) > 1:
            tmp = source = f"{self._p}tmp:{uuid.uuid4().hex}"
            pipe = self._client.pipeline(transaction=True)
            if union:
                pipe.zunionstore(tmp, union, aggregate="MAX")
                keys = [tmp, *keys]
            if len(keys) > 1:
                pipe.zinterstore(tmp, keys, aggregate="MAX")
            pipe.pexpire(tmp, 10_000)  # gone even if this process dies before its DEL
            pipe.execute()
        try:
            if q:
                # The search runs in Redis: 50,000 requests read there, not sent here.
                total, page = self._search(keys=[source, f"{self._p}text"],
                                           args=[q, offset, limit])  # fmt: skip
                return int(total), self._cards([i.decode() for i in page])
            return self._page(source, offset, limit)
        finally:
            if tmp:
                self._client.delete(tmp)

    def _cards(self, page: list[str]) -> list[str]:
        if not page:
            return []
        raw = cast("list[bytes | None]", self._client.mget([f"{self._p}card:{i}" for i in page]))
        return [c.decode() for c in raw if c is not None]  # gone: expired since it was filed

    def costs(self, since_day: str) -> list[CostRow]:
        with self._reachable():
            raw = cast("dict[bytes, bytes]", self._client.hgetall(f"{self._p}cost"))
        rows: dict[tuple[str, str], dict[str, float]] = {}
        for field, value in raw.items():
            day, channel, what = field.decode().split("|", 2)
            if day >= since_day:
                rows.setdefault((day, channel), {})[what] = float(value)
        return sorted(
            CostRow(
                day,
                channel,
                v.get("usd", 0.0),
                int(v.get("in", 0)),
                int(v.get("out", 0)),
                int(v.get("turns", 0)),
            )
            for (day, channel), v in rows.items()
        )

    def prune(self) -> int:
        cutoff = self._clock() - self.keep
        gone = 0
        with self._reachable():
            while True:
                n = int(self._prune(args=[self._p, cutoff]))
                gone += n
                if n < 1000:
                    break
            oldest = day_of(cutoff)
            fields = cast("list[bytes]", self._client.hkeys(f"{self._p}cost"))
            old = [f for f in fields if f.decode() < oldest]
            if old:
                self._client.hdel(f"{self._p}cost", *old)
        return gone
