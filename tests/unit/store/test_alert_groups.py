"""Alert groups on the store contract, against every backend (memory, and a real Redis)."""

from __future__ import annotations

from bot.domain.thread import ThreadKey
from bot.store.alert_groups import AlertGroups
from tests.unit.store.conftest import Backend
from tests.unit.store.test_contract import LONG, race

GROUP = '{}:{alertname="KubeContainerOOMKilled", namespace="prod"}'
A = ThreadKey("C1", "1700000000.000100")
B = ThreadKey("C1", "1700000009.000100")
NOW = 1_700_000_000.0


def test_a_group_is_bound_to_its_thread_and_shared_by_replicas(backend: Backend) -> None:
    groups = AlertGroups(backend.store)
    assert groups.thread(GROUP) is None
    groups.bind(GROUP, A, LONG)
    assert AlertGroups(backend.replica()).thread(GROUP) == A
    assert groups.thread(GROUP + " ") is None  # another group
    groups.bind(GROUP, B, LONG)  # the next session of the group
    assert groups.thread(GROUP) == B


def test_one_replica_decides_for_a_group_at_a_time(backend: Backend) -> None:
    first, second = AlertGroups(backend.store), AlertGroups(backend.replica(), wait=0.1)
    with first.deciding(GROUP, "replica-1") as held:
        assert held
        with second.deciding(GROUP, "replica-2") as other:
            assert not other
        with second.deciding("another group", "replica-2") as other:
            assert other
    with second.deciding(GROUP, "replica-2") as held:
        assert held


def test_firing_and_resolved_alerts_are_news_once(backend: Backend) -> None:
    groups = AlertGroups(backend.store)
    assert groups.firing(A, "fp1", at=NOW, ttl=LONG)
    assert not groups.firing(A, "fp1", at=NOW + 1, ttl=LONG)  # a repeat notification
    assert groups.firing(B, "fp1", at=NOW + 1, ttl=LONG)  # another session's thread
    assert groups.resolved(A, "fp1", at=NOW + 2, ttl=LONG)
    assert not groups.resolved(A, "fp1", at=NOW + 3, ttl=LONG)
    assert not groups.resolved(A, "never-fired", at=NOW + 3, ttl=LONG)
    assert groups.firing(A, "fp1", at=NOW + 4, ttl=LONG)  # fired again


def test_the_hourly_budget_holds_under_a_race(backend: Backend) -> None:
    groups = AlertGroups(backend.store)
    admitted = race(8, lambda _i: groups.admit("oom", 3, now=NOW))
    assert sum(admitted) <= 3
    assert not groups.admit("oom", 3, now=NOW + 10)
    assert groups.admit("other", 3, now=NOW)  # each route has its own
    assert groups.admit("oom", 3, now=NOW + 3600)  # the next hour


def test_the_over_budget_note_is_due_once_an_hour(backend: Backend) -> None:
    groups = AlertGroups(backend.store)
    assert [groups.note_due("oom", now=NOW + s) for s in (0, 1, 60)] == [True, False, False]
    assert AlertGroups(backend.replica()).note_due("oom", now=NOW + 3600)


def test_a_threads_notes_are_budgeted_by_the_hour_and_the_held_line_is_due_once(
    backend: Backend,
) -> None:
    groups, other = AlertGroups(backend.store), AlertGroups(backend.replica())
    assert [groups.admit_note(A, 2, now=NOW + s) for s in (0, 1)] == [True, True]
    assert not other.admit_note(A, 2, now=NOW + 2)  # every replica counts the same notes
    assert groups.admit_note(B, 2, now=NOW + 2)  # each thread has its own
    assert groups.admit("oom", 1, now=NOW)  # and sessions theirs
    assert groups.admit_note(A, 2, now=NOW + 3600)  # the next hour
    assert [groups.held_note_due(A, now=NOW + s) for s in (0, 1)] == [True, False]
    assert other.held_note_due(B, now=NOW + 1)
    assert other.held_note_due(A, now=NOW + 3600)
