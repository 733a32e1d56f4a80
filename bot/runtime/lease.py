"""A thread's lease: held while a turn (or an approval) runs, renewed in the background.

The lease is the store's lock with an owner token, so it works across replicas; if the process
dies (SIGKILL, OOM) the renewals stop and the lease expires after its TTL, which is how another
replica learns that a turn was cut off. While held, the keeper also polls the store for a cancel
request made on another replica, and cancels the turn's token when it finds one.

A replica declared dead (its owner lease ran out: bot.runtime.admission marks it) may still hold
thread leases for up to a TTL; another replica takes those over at once, so the dead one's
requests, queued again, continue their turns now rather than after the lease runs out.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Callable
from typing import Protocol

from bot.agent.cancel import CancelToken
from bot.domain.thread import ThreadKey
from bot.store.base import Blobs, Leases, StoreUnavailable

log = logging.getLogger(__name__)

POLL = 1.0  # seconds between cancel checks: "stops within seconds"


def lock_name(key: ThreadKey) -> str:
    return f"thread:{key.id}"


def cancel_blob(key: ThreadKey) -> str:
    return f"cancel:{key.id}"


def owner_lock(replica: str) -> str:
    """The replica's owner lease: held while the process lives (bot.runtime.admission)."""
    return f"replica:{replica}"


def dead_mark(replica: str) -> str:
    """Set once the replica's owner lease ran out: its thread leases may be taken over."""
    return f"replica-dead:{replica}"


class LeaseStore(Leases, Blobs, Protocol):
    """The store's roles a thread's lease uses: the lock, and the cancel and dead marks."""


class Lease:
    def __init__(self, store: LeaseStore, key: ThreadKey, *, ttl: float, replica: str) -> None:
        self.store = store
        self.key = key
        self.ttl = ttl
        self.replica = replica
        self.owner = f"{replica}:{uuid.uuid4().hex}"
        self.token = CancelToken()
        self.lost = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def acquire(self) -> bool:
        if (
            not self.store.acquire(lock_name(self.key), self.owner, self.ttl)
            and not self._take_over()
        ):
            return False
        self.store.delete_blob(cancel_blob(self.key))  # a cancel for an earlier turn is stale
        self._thread = threading.Thread(target=self._keep, name=f"lease-{self.key.id}", daemon=True)
        self._thread.start()
        return True

    def _take_over(self) -> bool:
        """Take the lease from its holder if that holder's replica was declared dead."""
        holder = self.store.holder(lock_name(self.key)) or ""
        replica = holder.rpartition(":")[0]
        if not replica or replica == self.replica:
            return False
        if self.store.get_blob(dead_mark(replica)) is None:
            return False
        if self.store.holder(owner_lock(replica)) is not None:
            return False  # it was only cut off from the store, and is back: its leases stand
        if not self.store.take_over(lock_name(self.key), holder, self.owner, self.ttl):
            return False
        log.warning("%s: took over the lease of replica %s, which stopped", self.key.id, replica)
        return True

    def _keep(self) -> None:
        renew_every = max(self.ttl / 3, POLL)
        since_renew = 0.0
        while not self._stop.wait(POLL):
            since_renew += POLL
            try:
                if self.store.get_blob(cancel_blob(self.key)) is not None:
                    self.token.cancel()
                if since_renew >= renew_every:
                    since_renew = 0.0
                    if not self.store.renew(lock_name(self.key), self.owner, self.ttl):
                        self.lost = True
                        self.token.cancel("the thread's lease was lost; the turn stopped")
                        return
            except StoreUnavailable as exc:  # keep trying: the TTL gives the store time to return
                log.warning("lease upkeep failed for %s: %s", self.key.id, exc)

    def release(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        try:
            self.store.release(lock_name(self.key), self.owner)
        except StoreUnavailable as exc:  # it expires by itself
            log.warning("could not release the lease of %s: %s", self.key.id, exc)


def request_cancel(store: LeaseStore, key: ThreadKey, local: Callable[[ThreadKey], bool]) -> bool:
    """Cancel the thread's running turn here or on whichever replica runs it; whether one runs."""
    if local(key):
        return True
    if store.holder(lock_name(key)) is None:
        return False
    store.put_blob(cancel_blob(key), b"1", 600.0)
    return True
