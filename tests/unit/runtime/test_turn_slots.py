"""TANKA_BOT_WORKERS bounds the turns running at once in a replica, whichever pool runs them:
the work queue's consumers and the dispatcher's jobs (/tanka, alerts, PR news) share the slots."""

from __future__ import annotations

import functools
import threading
import time

import pytest

from bot.config import load_settings
from bot.domain.thread import ThreadKey
from bot.runtime.dispatch import Dispatcher
from bot.runtime.lease import Lease
from bot.runtime.pending import Pending
from bot.runtime.threads import Threads
from fakes.chat import RecordingChat
from tests.unit.services import bare_services

CHANNEL = "C0DEPLOY"


class Turns:
    """A turn that lasts a moment and counts how many run together."""

    def __init__(self) -> None:
        self.running = self.most = self.done = 0
        self._lock = threading.Lock()

    def __call__(self, _t: Threads, _key: ThreadKey, _items: list[Pending], _l: Lease) -> None:
        with self._lock:
            self.running += 1
            self.most = max(self.most, self.running)
        time.sleep(0.2)
        with self._lock:
            self.running -= 1
            self.done += 1


@pytest.mark.parametrize("workers", [1, 2])
def test_turns_from_both_pools_share_the_workers_setting(workers: int) -> None:
    chat = RecordingChat()
    svc = bare_services(load_settings({"TANKA_BOT_WORKERS": str(workers)}), chat=chat)
    turns = Turns()
    dispatcher = Dispatcher(workers, 8)
    threads = Threads(svc, dispatcher, None, turns)
    keys = [ThreadKey(CHANNEL, f"1700000000.00000{i}") for i in range(4)]

    def drive(key: ThreadKey) -> None:
        threads.enqueue_and_drive(key, Pending("U0A", "hi"), new=False)

    def consumer(key: ThreadKey) -> None:  # a work-queue consumer runs its request inline
        with threads.inline():
            threads.submit(key, lambda: drive(key))

    consumers = [threading.Thread(target=consumer, args=(k,)) for k in keys[:2]]
    for thread in consumers:
        thread.start()
    for key in keys[2:]:  # the dispatcher's pool, as /tanka new-env or an alert does
        threads.submit(key, functools.partial(drive, key))
    for thread in consumers:
        thread.join(10)
    assert dispatcher.shutdown(10)
    assert turns.done == 4
    assert turns.most == workers
