"""Approval rules and the audit writer: the costs a 500-person organisation puts on them.

    .venv/bin/python bench/teams.py [ENVIRONMENTS] [RULES] [EVENTS]

1. A proposal touching ENVIRONMENTS environments (default 2,000) against RULES approval rules
   (default 50, each a glob on one team's environments, a tenth of them matching): the rules
   matched (`bot.policy.rules.requirements`), approvals counted (`tally`, 3 approvers, one group
   lookup cached in memory), and the proposal's "needs" text. Target: under 50 ms.
2. The audit writer's cost per event on the caller's thread (`Audit.record`: masking with a
   thread's SecretMask, JSON, the queue), and its throughput into the JSON-lines store.
   Target: under 0.2 ms per event.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.policy.rules import needs_text, requirements, tally
from bot.policy.teams import ApprovalRule
from bot.telemetry.audit import Audit
from bot.telemetry.audit_log import JsonLinesAudit
from tools.redaction import SecretMask

SRE = frozenset({f"U0SRE{i}" for i in range(40)})


def members(group: str) -> frozenset[str]:
    return SRE if group == "S0SRE" else frozenset()


def rules_bench(envs: int, rules: int) -> None:
    teams = max(envs // 10, 1)
    affected = [f"environments/team-{i % teams}/cluster-{i}" for i in range(envs)]
    rule_list = [
        ApprovalRule((f"environments/team-{i * 10}/*", f"environments/prod-{i}*"),
                     ("S0SRE", "U0LEAD"), 2, False)
        for i in range(rules)
    ]  # fmt: skip
    times = []
    for _ in range(20):
        start = time.perf_counter()
        reqs = requirements(affected, rule_list, approvers=(), allow_self=True)
        counted = tally(reqs, ["U0SRE1", "U0SRE2", "U0REQ"], "U0REQ", members)
        needs_text(reqs, "U0REQ")
        times.append(time.perf_counter() - start)
    print(
        f"approval rules: {envs} environments x {rules} rules -> {len(reqs)} matching, "
        f"complete={counted.complete}: median {statistics.median(times) * 1000:.1f} ms, "
        f"max {max(times) * 1000:.1f} ms (target < 50 ms)"
    )


def audit_bench(events: int) -> None:
    mask = SecretMask([f"secret-value-{i}" for i in range(50)])
    with tempfile.TemporaryDirectory() as tmp:
        store = JsonLinesAudit(Path(tmp), retention=90 * 86_400, max_events=1_000_000)
        audit = Audit(store, capacity=events + 1)
        view = audit.with_mask(mask.apply)
        start = time.perf_counter()
        for i in range(events):
            view.record("C0DEPLOY", "1700000000.000100", "U0ALICE", "tool_call",
                        {"tool": "file_edit", "ok": True, "seconds": 0.012, "n": i})  # fmt: skip
        caller = time.perf_counter() - start
        audit.start()
        audit.close(timeout=120)
        total = time.perf_counter() - start
        written = sum(1 for _ in store.read())
    print(
        f"audit writer: {events} events, {caller / events * 1000:.3f} ms per event on the "
        f"caller's thread (target < 0.2 ms); all {written} written in {total:.2f} s "
        f"({written / total:,.0f} events/s)"
    )


def main() -> None:
    envs = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    rules = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    events = int(sys.argv[3]) if len(sys.argv) > 3 else 20_000
    rules_bench(envs, rules)
    audit_bench(events)


if __name__ == "__main__":
    main()
