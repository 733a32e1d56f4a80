"""Prometheus metrics of the Slack service, on their own registry (one per service instance).

With Redis, `serve` runs its turns in a work process of their own (bot.work_process); that
process counts on its own registry, and the serving process's /metrics merges the two
(`merge`): one replica, one scrape, each series once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.metrics_core import Metric
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.samples import Sample


class Metrics:
    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry or CollectorRegistry()
        r = self.registry
        self.events = Counter(
            "tanka_bot_events_total", "Slack events received", ["kind"], registry=r
        )
        self.deduplicated = Counter(
            "tanka_bot_events_deduplicated_total", "Slack events dropped as duplicates", registry=r
        )
        self.turns = Counter(
            "tanka_bot_turns_total", "Agent turns by outcome", ["outcome"], registry=r
        )
        self.tool_calls = Counter(
            "tanka_bot_tool_calls_total", "Tool calls by tool and outcome", ["tool", "outcome"],
            registry=r,
        )  # fmt: skip
        self.tokens = Counter(
            "tanka_bot_tokens_total", "Model tokens", ["provider", "model", "direction"], registry=r
        )
        self.errors = Counter("tanka_bot_errors_total", "Errors by kind", ["kind"], registry=r)
        self.approvals = Counter(
            "tanka_bot_approvals_total", "Approval reactions by outcome", ["outcome"], registry=r
        )
        self.prs = Counter("tanka_bot_pull_requests_total", "Pull requests opened or updated",
                           ["action"], registry=r)  # fmt: skip
        self.ack_seconds = Histogram(
            "tanka_bot_ack_seconds", "Time from receiving a Slack request to handing it off",
            buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 3.0), registry=r,
        )  # fmt: skip
        self.turn_seconds = Histogram(
            "tanka_bot_turn_seconds", "Wall time of agent turns",
            buckets=(1, 5, 15, 30, 60, 120, 300, 600, 1200), registry=r,
        )  # fmt: skip
        self.sessions_active = Gauge(
            "tanka_bot_sessions_active", "Sessions in the store", registry=r
        )
        self.audit_dropped = Counter(
            "tanka_bot_audit_dropped_total", "Audit events dropped (log unavailable or behind)",
            registry=r,
        )  # fmt: skip
        # Events that were not work for the bot (triage at the edge), by why: never posted to,
        # no Web API call, no worker.
        self.dropped = Counter("tanka_bot_events_dropped_total",
                               "Events dropped at the edge as not for the bot", ["reason"],
                               registry=r)  # fmt: skip
        self.queued = Gauge("tanka_bot_jobs_queued", "Jobs waiting for a worker", registry=r)
        # External MCP servers (TANKA_BOT_MCP_CONFIG): calls by outcome, and their latency.
        self.mcp_calls = Counter(
            "tanka_bot_mcp_calls_total", "MCP tool calls by server and outcome (ok, error: the "
            "tool said so, failed: the server did)", ["server", "outcome"], registry=r,
        )  # fmt: skip
        self.mcp_seconds = Histogram(
            "tanka_bot_mcp_call_seconds", "Latency of MCP tool calls", ["server"],
            buckets=(0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30, 120), registry=r,
        )  # fmt: skip
        # Alertmanager's alert groups (bot.runtime.alerts) by outcome: session (one started),
        # noted (news in an open session's thread), notes_held (over the thread's hourly notes),
        # repeat, unrouted, rate_limited, ignored.
        self.alert_groups = Counter(
            "tanka_bot_alert_groups_total", "Alertmanager notifications by outcome", ["outcome"],
            registry=r,
        )  # fmt: skip

        # Approvals and turns a guardrail refused (bot.guards.gate.GUARDS: freeze, waiver, hold,
        # stale, budget).
        self.guard_refusals = Counter(
            "tanka_bot_guard_refusals_total", "Approvals and turns refused by a guardrail",
            ["guard"], registry=r,
        )  # fmt: skip

        # The work process's metrics (text), merged into `render`; None: no such process.
        self.more: Callable[[], bytes] | None = None

    def observe_mcp(self, server: str, outcome: str, seconds: float) -> None:
        self.mcp_calls.labels(server, outcome).inc()
        self.mcp_seconds.labels(server).observe(seconds)

    def render(self) -> bytes:
        own = generate_latest(self.registry)
        if self.more is None:
            return own
        return merge([own, self.more()])


def merge(expositions: Iterable[bytes]) -> bytes:
    """One exposition from several processes' (Prometheus text format): a series present in more
    than one is their sum (counters, histograms, and gauges each process sets alone), except a
    `_created` timestamp, which is the earliest."""
    families: dict[str, Metric] = {}
    series: dict[str, dict[tuple[str, tuple[tuple[str, str], ...]], Sample]] = {}
    for text in expositions:
        for family in text_string_to_metric_families(text.decode()):
            known = families.setdefault(family.name, family)
            samples = series.setdefault(family.name, {})
            earliest = family.name.endswith("_created")
            for sample in family.samples:
                key = (sample.name, tuple(sorted(sample.labels.items())))
                seen = samples.get(key)
                if seen is None:
                    samples[key] = sample
                    continue
                value = (min(seen.value, sample.value) if earliest
                         else seen.value + sample.value)  # fmt: skip
                samples[key] = seen._replace(value=value)
            known.samples = list(samples.values())
    registry = CollectorRegistry()
    registry.register(_Fixed(list(families.values())))
    return generate_latest(registry)


class _Fixed:
    """A collector of families already gathered."""

    def __init__(self, families: list[Metric]) -> None:
        self._families = families

    def collect(self) -> Iterator[Metric]:
        return iter(self._families)
