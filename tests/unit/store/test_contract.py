"""The store contract, run against every backend (memory, and a real Redis)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

from bot.domain.thread import ThreadKey
from bot.store import Store
from tests.unit.store.conftest import Backend

A = ThreadKey("C1", "1700000000.000100")
B = ThreadKey("C1", "1700000001.000200")
OTHER_CHANNEL = ThreadKey("C2", "1700000000.000100")
LONG = 60.0  # a TTL no test outlives
SHORT = 0.2  # a TTL tests do outlive, after pass_time(PAST_SHORT)
PAST_SHORT = 0.25


def race(count: int, action: Callable[[int], Any]) -> list[Any]:
    """Run action(i) on `count` threads released at the same instant; their results in order."""
    barrier = threading.Barrier(count)
    results: list[Any] = [None] * count
    errors: list[BaseException] = []

    def run(i: int) -> None:
        barrier.wait()
        try:
            results[i] = action(i)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    return results


# sessions


def test_load_of_unknown_session_is_none(backend: Backend) -> None:
    assert backend.store.load(A) is None


def test_save_then_load_returns_the_same_text(backend: Backend) -> None:
    data = '{"messages": ["héllo ✓", "\\u0000"], "n": 1}'
    backend.store.save(A, data, updated=1.0)
    assert backend.store.load(A) == data
    assert backend.store.load(B) is None


def test_has_session_is_true_once_saved_and_false_once_deleted(backend: Backend) -> None:
    assert not backend.store.has_session(A)
    backend.store.save(A, "{}", updated=1.0)
    assert backend.store.has_session(A)
    assert not backend.store.has_session(B)
    backend.store.delete(A)
    assert not backend.store.has_session(A)


def test_save_replaces_the_session(backend: Backend) -> None:
    backend.store.save(A, '{"v": 1}', updated=1.0)
    backend.store.save(A, '{"v": 2}', updated=2.0)
    assert backend.store.load(A) == '{"v": 2}'
    assert backend.store.sessions() == [(A, 2.0)]


def test_delete_forgets_the_session_and_its_pending_messages(backend: Backend) -> None:
    backend.store.save(A, "{}", updated=1.0)
    backend.store.save(B, "{}", updated=2.0)
    backend.store.push_pending(A, "queued")
    backend.store.delete(A)
    assert backend.store.load(A) is None
    assert backend.store.drain_pending(A) == []
    assert backend.store.sessions() == [(B, 2.0)]
    assert backend.store.sessions("C1") == [(B, 2.0)]
    backend.store.delete(A)  # deleting again is a no-op


def test_sessions_are_listed_oldest_first_with_exact_times(backend: Backend) -> None:
    backend.store.save(B, "{}", updated=1_700_000_300.654321)
    backend.store.save(OTHER_CHANNEL, "{}", updated=1_700_000_200.5)
    backend.store.save(A, "{}", updated=1_700_000_100.123456)
    assert backend.store.sessions() == [
        (A, 1_700_000_100.123456),
        (OTHER_CHANNEL, 1_700_000_200.5),
        (B, 1_700_000_300.654321),
    ]


def test_sessions_with_equal_times_are_ordered_by_key_id(backend: Backend) -> None:
    backend.store.save(B, "{}", updated=5.0)
    backend.store.save(OTHER_CHANNEL, "{}", updated=5.0)
    backend.store.save(A, "{}", updated=5.0)
    assert backend.store.sessions() == [(A, 5.0), (B, 5.0), (OTHER_CHANNEL, 5.0)]


def test_sessions_of_one_channel(backend: Backend) -> None:
    backend.store.save(A, "{}", updated=3.0)
    backend.store.save(OTHER_CHANNEL, "{}", updated=1.0)
    backend.store.save(B, "{}", updated=2.0)
    assert backend.store.sessions("C1") == [(B, 2.0), (A, 3.0)]
    assert backend.store.sessions("C2") == [(OTHER_CHANNEL, 1.0)]
    assert backend.store.sessions("C3") == []


def test_saving_again_moves_a_session_in_the_order(backend: Backend) -> None:
    backend.store.save(A, "{}", updated=1.0)
    backend.store.save(B, "{}", updated=2.0)
    backend.store.save(A, "{}", updated=3.0)
    assert backend.store.sessions() == [(B, 2.0), (A, 3.0)]
    assert backend.store.sessions("C1") == [(B, 2.0), (A, 3.0)]


def test_a_session_saved_by_one_replica_is_seen_by_another(backend: Backend) -> None:
    backend.store.save(A, '{"from": "replica 1"}', updated=1.0)
    other = backend.replica()
    assert other.load(A) == '{"from": "replica 1"}'
    assert other.sessions() == [(A, 1.0)]


# message index


def test_thread_of_an_indexed_message(backend: Backend) -> None:
    backend.store.index_message("C1", "1700000005.000001", A, LONG)
    assert backend.store.thread_of("C1", "1700000005.000001") == A
    assert backend.store.thread_of("C2", "1700000005.000001") is None
    assert backend.store.thread_of("C1", "1700000005.000002") is None


def test_indexing_a_message_again_points_it_at_the_new_thread(backend: Backend) -> None:
    backend.store.index_message("C1", "1.1", A, LONG)
    backend.store.index_message("C1", "1.1", B, LONG)
    assert backend.store.thread_of("C1", "1.1") == B


def test_indexed_messages_expire_after_their_ttl(backend: Backend) -> None:
    backend.store.index_message("C1", "1.1", A, SHORT)
    backend.store.index_message("C1", "1.2", B, LONG)
    backend.pass_time(PAST_SHORT)
    assert backend.store.thread_of("C1", "1.1") is None
    assert backend.store.thread_of("C1", "1.2") == B


# pull request -> thread


def test_a_linked_pull_request_maps_to_its_thread_on_every_replica(backend: Backend) -> None:
    backend.store.link_pull_request("acme/infra", 7, A, LONG)
    assert backend.store.thread_of_pull_request("acme/infra", 7) == A
    assert backend.replica().thread_of_pull_request("acme/infra", 7) == A
    assert backend.store.thread_of_pull_request("acme/infra", 8) is None
    assert backend.store.thread_of_pull_request("acme/other", 7) is None


def test_linking_a_pull_request_again_points_it_at_the_new_thread(backend: Backend) -> None:
    backend.store.link_pull_request("acme/infra", 7, A, LONG)
    backend.store.link_pull_request("acme/infra", 7, B, LONG)
    assert backend.store.thread_of_pull_request("acme/infra", 7) == B


def test_pull_request_links_expire_after_their_ttl(backend: Backend) -> None:
    backend.store.link_pull_request("acme/infra", 1, A, SHORT)
    backend.store.link_pull_request("acme/infra", 2, B, LONG)
    backend.pass_time(PAST_SHORT)
    assert backend.store.thread_of_pull_request("acme/infra", 1) is None
    assert backend.store.thread_of_pull_request("acme/infra", 2) == B


# dedupe


def test_first_seen_is_true_once_per_token(backend: Backend) -> None:
    assert backend.store.first_seen("Ev1", LONG) is True
    assert backend.store.first_seen("Ev1", LONG) is False
    assert backend.store.first_seen("Ev2", LONG) is True
    assert backend.replica().first_seen("Ev1", LONG) is False


def test_first_seen_is_true_again_after_the_ttl(backend: Backend) -> None:
    assert backend.store.first_seen("short", SHORT)
    assert backend.store.first_seen("long", LONG)
    backend.pass_time(PAST_SHORT)
    assert backend.store.first_seen("short", LONG) is True
    assert backend.store.first_seen("long", LONG) is False


def test_first_seen_racing_threads_see_exactly_one_true(backend: Backend) -> None:
    stores = [backend.store, backend.replica()]
    results = race(20, lambda i: stores[i % 2].first_seen("C1:1700000000.000100", LONG))
    assert results.count(True) == 1
    assert results.count(False) == 19


def test_first_seen_all_marks_in_order_and_stops_at_the_first_repeat(backend: Backend) -> None:
    store = backend.store
    assert store.first_seen_all(["event:Ev1", "C1:1.1"], LONG) is True
    assert backend.replica().first_seen_all(["event:Ev2", "C1:1.1"], LONG) is False  # a twin
    assert store.first_seen("event:Ev2", LONG) is False  # marked on the way: it was new
    assert store.first_seen_all(["event:Ev1", "C1:2.2"], LONG) is False  # a redelivery
    assert store.first_seen("C1:2.2", LONG) is True  # left unmarked after the repeat


def test_first_seen_all_racing_replicas_see_exactly_one_true(backend: Backend) -> None:
    stores = [backend.store, backend.replica()]
    tokens = ["event:Ev9", "C1:1700000000.000100"]
    results = race(20, lambda i: stores[i % 2].first_seen_all(tokens[i % 2 :], LONG))
    assert results.count(True) == 1


# pending messages


def test_pending_messages_drain_in_order_and_once(backend: Backend) -> None:
    for item in ("one", "two", "three"):
        backend.store.push_pending(A, item)
    backend.store.push_pending(B, "other thread")
    assert backend.store.drain_pending(A) == ["one", "two", "three"]
    assert backend.store.drain_pending(A) == []
    assert backend.store.drain_pending(B) == ["other thread"]


def test_has_pending_looks_without_taking(backend: Backend) -> None:
    assert not backend.store.has_pending(A)
    backend.store.push_pending(A, "one")
    assert backend.store.has_pending(A)
    assert backend.store.has_pending(A)  # looking took nothing
    assert not backend.store.has_pending(B)
    assert backend.store.drain_pending(A) == ["one"]
    assert not backend.store.has_pending(A)


def test_drain_of_an_empty_queue_is_empty(backend: Backend) -> None:
    assert backend.store.drain_pending(A) == []


def test_drain_loses_and_duplicates_nothing_under_concurrent_pushes(backend: Backend) -> None:
    pushers, per_pusher = 4, 100
    stores = [backend.store, backend.replica()]
    drained: list[str] = []
    done = threading.Event()

    def drain_until_done() -> None:
        while not done.is_set():
            drained.extend(stores[1].drain_pending(A))

    def push_all(pusher: int) -> None:
        for n in range(per_pusher):
            stores[0].push_pending(A, f"{pusher}:{n}")

    drainer = threading.Thread(target=drain_until_done)
    drainer.start()
    try:
        race(pushers, push_all)
    finally:
        done.set()
        drainer.join()
    drained.extend(backend.store.drain_pending(A))

    expected = {f"{p}:{n}" for p in range(pushers) for n in range(per_pusher)}
    assert len(drained) == len(expected)
    assert set(drained) == expected
    for p in range(pushers):  # each pusher's items come out in the order it pushed them
        mine = [item for item in drained if item.startswith(f"{p}:")]
        assert mine == [f"{p}:{n}" for n in range(per_pusher)]


# blobs


def test_binary_blobs_round_trip(backend: Backend) -> None:
    data = bytes(range(256)) * 4096 + b"\x00\r\n\xff"  # every byte value, about 1 MiB
    backend.store.put_blob("patch:A", data, None)
    assert backend.store.get_blob("patch:A") == data
    assert backend.replica().get_blob("patch:A") == data
    assert backend.store.get_blob("patch:B") is None


def test_empty_blob_is_not_a_missing_blob(backend: Backend) -> None:
    backend.store.put_blob("empty", b"", None)
    assert backend.store.get_blob("empty") == b""


def test_put_blob_replaces_and_delete_blob_forgets(backend: Backend) -> None:
    backend.store.put_blob("patch", b"v1", None)
    backend.store.put_blob("patch", b"v2", None)
    assert backend.store.get_blob("patch") == b"v2"
    backend.store.delete_blob("patch")
    assert backend.store.get_blob("patch") is None
    backend.store.delete_blob("patch")  # a no-op


def test_blobs_expire_after_their_ttl_unless_put_without_one(backend: Backend) -> None:
    backend.store.put_blob("short", b"s", SHORT)
    backend.store.put_blob("long", b"l", LONG)
    backend.store.put_blob("kept", b"k", SHORT)
    backend.store.put_blob("kept", b"k2", None)  # replacing without a TTL clears the old one
    backend.pass_time(PAST_SHORT)
    assert backend.store.get_blob("short") is None
    assert backend.store.get_blob("long") == b"l"
    assert backend.store.get_blob("kept") == b"k2"


def test_ping_of_a_reachable_store_returns(backend: Backend) -> None:
    backend.store.ping()


# locks


def test_a_lock_excludes_other_owners_until_released(backend: Backend) -> None:
    other = backend.replica()
    assert backend.store.acquire("thread:A", "owner-1", LONG) is True
    assert backend.store.holder("thread:A") == "owner-1"
    assert other.holder("thread:A") == "owner-1"
    assert other.acquire("thread:A", "owner-2", LONG) is False
    assert backend.store.acquire("thread:B", "owner-2", LONG) is True  # locks are per name
    assert backend.store.release("thread:A", "owner-1") is True
    assert backend.store.holder("thread:A") is None
    assert other.acquire("thread:A", "owner-2", LONG) is True
    assert backend.store.holder("thread:A") == "owner-2"


def test_holder_of_a_free_lock_is_none(backend: Backend) -> None:
    assert backend.store.holder("nobody") is None


def test_acquire_is_idempotent_for_the_holder(backend: Backend) -> None:
    assert backend.store.acquire("l", "owner-1", SHORT) is True
    assert backend.store.acquire("l", "owner-1", LONG) is True  # and resets the lease
    backend.pass_time(PAST_SHORT)
    assert backend.store.holder("l") == "owner-1"


def test_release_and_renew_by_another_owner_are_refused(backend: Backend) -> None:
    backend.store.acquire("l", "owner-1", SHORT)
    assert backend.store.release("l", "owner-2") is False
    assert backend.store.renew("l", "owner-2", LONG) is False
    assert backend.store.holder("l") == "owner-1"
    backend.pass_time(PAST_SHORT)  # the refused renew did not extend the lease
    assert backend.store.holder("l") is None


def test_release_and_renew_of_a_free_lock_are_refused(backend: Backend) -> None:
    assert backend.store.release("l", "owner-1") is False
    assert backend.store.renew("l", "owner-1", LONG) is False
    assert backend.store.holder("l") is None


def test_renew_extends_the_holders_lease(backend: Backend) -> None:
    backend.store.acquire("l", "owner-1", SHORT)
    assert backend.store.renew("l", "owner-1", LONG) is True
    backend.pass_time(PAST_SHORT)
    assert backend.store.holder("l") == "owner-1"


def test_an_expired_lock_can_be_taken_and_the_old_owner_is_locked_out(backend: Backend) -> None:
    backend.store.acquire("l", "owner-1", SHORT)
    backend.pass_time(PAST_SHORT)
    assert backend.store.holder("l") is None
    assert backend.store.renew("l", "owner-1", LONG) is False
    assert backend.replica().acquire("l", "owner-2", LONG) is True
    assert backend.store.release("l", "owner-1") is False
    assert backend.store.renew("l", "owner-1", LONG) is False
    assert backend.store.holder("l") == "owner-2"


def test_racing_owners_get_the_lock_exactly_once(backend: Backend) -> None:
    stores = [backend.store, backend.replica()]
    results = race(20, lambda i: stores[i % 2].acquire("l", f"owner-{i}", LONG))
    assert results.count(True) == 1
    assert backend.store.holder("l") == f"owner-{results.index(True)}"


# TTL validation


@pytest.mark.parametrize("ttl", [0, -1.0, float("nan"), float("inf")])
@pytest.mark.parametrize(
    "call",
    [
        lambda s, ttl: s.first_seen("t", ttl),
        lambda s, ttl: s.index_message("C1", "1.1", A, ttl),
        lambda s, ttl: s.put_blob("b", b"x", ttl),
        lambda s, ttl: s.acquire("l", "o", ttl),
        lambda s, ttl: s.renew("l", "o", ttl),
    ],
    ids=["first_seen", "index_message", "put_blob", "acquire", "renew"],
)
def test_ttls_must_be_positive_and_finite(
    backend: Backend, call: Callable[[Store, float], object], ttl: float
) -> None:
    with pytest.raises(ValueError, match="ttl must be a positive number"):
        call(backend.store, ttl)


# sets (approvals of a proposal): marks with their event times, the latest standing

T = 1_700_000_000.000100  # an event time; later marks add to it


def test_set_members_keep_the_order_they_were_first_added(backend: Backend) -> None:
    store = backend.store
    assert store.members("approvals:x") == []
    assert store.add_member("approvals:x", "U0BOB", LONG, at=T) is True
    assert store.add_member("approvals:x", "U0CAROL", LONG, at=T) is True
    assert store.add_member("approvals:x", "U0BOB", LONG, at=T + 1) is False
    assert store.members("approvals:x") == ["U0BOB", "U0CAROL"]
    assert store.members("approvals:y") == []


def test_removing_a_member_and_adding_it_again_puts_it_last(backend: Backend) -> None:
    store = backend.store
    for user in ("U1", "U2", "U3"):
        store.add_member("s", user, LONG, at=T)
    assert store.remove_member("s", "U1", LONG, at=T + 1) is True
    assert store.remove_member("s", "U1", LONG, at=T + 2) is False
    assert store.remove_member("missing", "U1", LONG, at=T) is False
    assert store.members("s") == ["U2", "U3"]
    assert store.add_member("s", "U1", LONG, at=T + 3) is True
    assert store.members("s") == ["U2", "U3", "U1"]


def test_a_removal_delivered_before_its_add_still_wins(backend: Backend) -> None:
    """Slack does not order deliveries: the reaction's removal may be handled first."""
    store = backend.store
    assert store.remove_member("s", "U0BOB", LONG, at=T + 0.000001) is False
    assert store.add_member("s", "U0BOB", LONG, at=T) is False
    assert store.members("s") == []
    # A later add (the reaction put back) counts again.
    assert store.add_member("s", "U0BOB", LONG, at=T + 1) is True
    assert store.members("s") == ["U0BOB"]


def test_an_add_delivered_after_a_newer_add_and_removal_changes_nothing(backend: Backend) -> None:
    store = backend.store
    store.add_member("s", "U0BOB", LONG, at=T + 2)
    store.remove_member("s", "U0BOB", LONG, at=T + 3)
    assert store.add_member("s", "U0BOB", LONG, at=T + 1) is False
    assert store.members("s") == []
    assert store.remove_member("s", "U0CAROL", LONG, at=T) is False  # others are untouched


def test_a_removal_older_than_the_standing_add_changes_nothing(backend: Backend) -> None:
    store = backend.store
    store.add_member("s", "U0BOB", LONG, at=T + 2)
    assert store.remove_member("s", "U0BOB", LONG, at=T + 1) is False
    assert store.members("s") == ["U0BOB"]


def test_of_an_add_and_a_removal_at_the_same_time_the_removal_wins(backend: Backend) -> None:
    store = backend.store
    store.add_member("a", "U0BOB", LONG, at=T)
    assert store.remove_member("a", "U0BOB", LONG, at=T) is True
    store.remove_member("b", "U0BOB", LONG, at=T)
    assert store.add_member("b", "U0BOB", LONG, at=T) is False
    assert store.members("a") == store.members("b") == []


@pytest.mark.parametrize("removal_first", [True, False], ids=["removal-first", "add-first"])
def test_replicas_agree_on_a_withdrawn_member_whichever_order_they_handle_it(
    backend: Backend, removal_first: bool
) -> None:
    one, two = backend.replica(), backend.replica()
    marks: list[Callable[[], bool]] = [
        lambda: one.remove_member("s", "U0BOB", LONG, at=T + 1),
        lambda: two.add_member("s", "U0BOB", LONG, at=T),
    ]
    for mark in marks if removal_first else reversed(marks):
        mark()
    assert one.members("s") == two.members("s") == []


def test_concurrent_add_and_removal_on_two_replicas_leave_the_latest(backend: Backend) -> None:
    def mark(store: Store, i: int) -> bool:
        if i == 0:
            return store.remove_member("s", "U0BOB", LONG, at=T + 1)
        return store.add_member("s", "U0BOB", LONG, at=T)

    replicas = [backend.replica(), backend.replica()]
    race(2, lambda i: mark(replicas[i], i))
    assert backend.store.members("s") == []


def test_a_set_expires_after_its_last_write(backend: Backend) -> None:
    backend.store.add_member("s", "U1", SHORT, at=T)
    backend.pass_time(PAST_SHORT)
    assert backend.store.members("s") == []


def test_concurrent_adds_of_one_member_report_one_addition(backend: Backend) -> None:
    replicas = [backend.replica() for _ in range(8)]
    results = race(8, lambda i: replicas[i].add_member("s", "U0BOB", LONG, at=T))
    assert results.count(True) == 1
    assert backend.store.members("s") == ["U0BOB"]


@pytest.mark.parametrize("at", [float("nan"), float("inf"), True])
def test_mark_times_must_be_finite(backend: Backend, at: float) -> None:
    with pytest.raises(ValueError, match="a mark's time must be a finite unix time"):
        backend.store.add_member("s", "U1", LONG, at=at)
    with pytest.raises(ValueError, match="a mark's time must be a finite unix time"):
        backend.store.remove_member("s", "U1", LONG, at=at)


# the Home tab's indexes


def test_sessions_by_requester_are_newest_first_limited_and_skip_deleted(backend: Backend) -> None:
    store = backend.store
    c = ThreadKey("C1", "1700000002.000300")
    for n, key in enumerate((A, B, c, OTHER_CHANNEL)):
        store.save(key, f'{{"n": {n}, "conversation": "long"}}', updated=float(n))
        store.index_session(key, f'{{"n": {n}}}', requester="U1" if key != B else "U2",
                            awaiting=False, updated=float(n))  # fmt: skip
    assert store.sessions_by("U1", 10) == ['{"n": 3}', '{"n": 2}', '{"n": 0}']
    assert store.sessions_by("U1", 2) == ['{"n": 3}', '{"n": 2}']
    assert store.sessions_by("U2", 10) == ['{"n": 1}']
    assert store.sessions_by("U9", 10) == []
    store.delete(c)
    assert store.sessions_by("U1", 2) == ['{"n": 3}', '{"n": 0}']  # the limit counts live ones


def test_awaiting_holds_the_sessions_indexed_as_awaiting_until_they_are_not(
    backend: Backend,
) -> None:
    store = backend.store
    store.save(A, '{"a": 1}', updated=1.0)
    store.save(B, '{"b": 1}', updated=2.0)
    store.index_session(A, '{"a": 1}', requester="U1", awaiting=True, updated=1.0)
    store.index_session(B, '{"b": 1}', requester="U1", awaiting=True, updated=2.0)
    assert store.awaiting(10) == ['{"b": 1}', '{"a": 1}']
    store.index_session(B, '{"b": 2}', requester="U1", awaiting=False, updated=3.0)
    assert store.awaiting(10) == ['{"a": 1}']
    assert store.sessions_by("U1", 10) == ['{"b": 2}', '{"a": 1}']  # the card was replaced
    store.delete(A)
    assert store.awaiting(10) == []
    assert store.awaiting(0) == []


def test_sessions_by_skips_many_deleted_sessions_between_live_ones(backend: Backend) -> None:
    store = backend.store
    keys = [ThreadKey("C1", f"1700000{n:03d}.000100") for n in range(30)]
    for n, key in enumerate(keys):
        store.save(key, "{}", updated=float(n))
        store.index_session(key, f'{{"n": {n}}}', requester="U1", awaiting=False,
                            updated=float(n))  # fmt: skip
    for key in keys[5:28]:
        store.delete(key)
    assert store.sessions_by("U1", 4) == ['{"n": 29}', '{"n": 28}', '{"n": 4}', '{"n": 3}']
    assert store.sessions_by("U1", 4) == ['{"n": 29}', '{"n": 28}', '{"n": 4}', '{"n": 3}']


# the work queue


def test_work_is_taken_oldest_first_and_each_item_once(backend: Backend) -> None:
    store = backend.store
    assert store.put_work("w1") == 1
    assert store.put_work("w2") == 2
    other = backend.replica()
    assert store.take_work("r1", 1.0) == "w1"
    assert other.take_work("r2", 1.0) == "w2"
    assert store.take_work("r1", 0.05) is None  # empty: waits, then None


def test_work_waiting_until_taken(backend: Backend) -> None:
    store = backend.store
    store.put_work("w1")
    assert backend.replica().work_waiting("w1") is True
    assert store.work_waiting("w2") is False
    assert store.take_work("r1", 1.0) == "w1"
    assert store.work_waiting("w1") is False


def test_a_full_queue_takes_nothing_more_even_from_racing_replicas(backend: Backend) -> None:
    store = backend.store
    assert store.put_work("w0", limit=5) == 1
    added = race(4, lambda i: [backend.replica().put_work(f"r{i}-{n}", limit=5) for n in range(3)])
    depths = [d for batch in added for d in batch]
    assert sorted(d for d in depths if d) == [2, 3, 4, 5]  # four more fit, then 0 for the rest
    assert store.put_work("late", limit=5) == 0
    assert store.take_work("r", 1.0) == "w0"
    assert store.put_work("late", limit=5) == 5  # room again


def test_concurrent_takers_share_the_items_without_overlap(backend: Backend) -> None:
    for i in range(20):
        backend.store.put_work(f"w{i}")
    taken = race(4, lambda i: [backend.replica().take_work(f"r{i}", 0.05) for _ in range(6)])
    items = [x for batch in taken for x in batch if x is not None]
    assert sorted(items) == sorted(f"w{i}" for i in range(20))


def test_returned_work_goes_back_to_the_head_in_order(backend: Backend) -> None:
    store = backend.store
    for name in ("w1", "w2", "w3", "w4"):
        store.put_work(name)
    assert [store.take_work("dead", 1.0) for _ in range(3)] == ["w1", "w2", "w3"]
    store.done_work("dead", "w2")  # finished before it died
    assert store.work_owners() == ["dead"]
    assert backend.replica().return_work("dead") == 2
    assert store.work_owners() == []
    assert [store.take_work("alive", 1.0) for _ in range(3)] == ["w1", "w3", "w4"]
    assert store.return_work("nobody") == 0


def test_done_work_forgets_only_that_item(backend: Backend) -> None:
    store = backend.store
    store.put_work("same")
    store.put_work("other")
    store.take_work("r", 1.0)
    store.take_work("r", 1.0)
    store.done_work("r", "same")
    store.done_work("r", "missing")  # a no-op
    assert store.return_work("r") == 1
    assert store.take_work("r2", 1.0) == "other"
