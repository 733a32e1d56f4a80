"""/metrics of a replica whose turns run in a work process: both processes' series, merged."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

from bot.telemetry.metrics import Metrics, merge


def samples(text: bytes) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text.decode())
        for s in family.samples
    }


def test_series_in_both_processes_are_summed_and_each_appears_once() -> None:
    serving, work = Metrics(), Metrics()
    serving.events.labels("message").inc(3)
    work.events.labels("message").inc(2)  # never happens today; summed if it did
    work.turns.labels("ok").inc()
    serving.ack_seconds.observe(0.02)
    work.sessions_active.set(4)
    serving.more = work.render

    text = serving.render()
    merged = samples(text)
    assert merged[("tanka_bot_events_total", (("kind", "message"),))] == 5
    assert merged[("tanka_bot_turns_total", (("outcome", "ok"),))] == 1
    assert merged[("tanka_bot_ack_seconds_count", ())] == 1
    assert merged[("tanka_bot_sessions_active", ())] == 4
    lines = [line for line in text.decode().splitlines() if not line.startswith("#")]
    assert len(lines) == len(set(lines))
    assert text.decode().count("# TYPE tanka_bot_turns_total counter") == 1


def test_a_created_timestamp_is_the_earliest_of_the_two() -> None:
    first = b"# TYPE x_total counter\nx_total 1.0\nx_created 100.0\n"
    second = b"# TYPE x_total counter\nx_total 2.0\nx_created 50.0\n"
    merged = samples(merge([first, second]))
    assert merged[("x_total", ())] == 3
    assert merged[("x_created", ())] == 50


def test_without_a_work_process_render_is_the_registry_alone() -> None:
    metrics = Metrics()
    metrics.turns.labels("ok").inc()
    assert samples(metrics.render())[("tanka_bot_turns_total", (("outcome", "ok"),))] == 1
