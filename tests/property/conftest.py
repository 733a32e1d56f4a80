"""Counts the hypothesis cases the confinement properties ran and reports them after the run."""

from __future__ import annotations

from collections import Counter

import pytest

CASES: Counter[str] = Counter()
STATUSES: Counter[str] = Counter()  # test_inbound_fuzz: answers by route, signing and status


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if CASES:
        total = sum(CASES.values())
        detail = ", ".join(f"{name}: {count}" for name, count in sorted(CASES.items()))
        terminalreporter.write_line(f"confinement properties: {total} cases run ({detail})")
    if STATUSES:
        detail = ", ".join(f"{name}: {count}" for name, count in sorted(STATUSES.items()))
        terminalreporter.write_line(f"inbound fuzz: {sum(STATUSES.values())} requests ({detail})")
