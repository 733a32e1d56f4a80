"""Our linter against go-jsonnet's linter goldens; skipped unless GOJSONNET_CHECKOUT points at an
extracted go-jsonnet tree (e.g. `git archive HEAD | tar x` of google/go-jsonnet).

Every golden is compared block by block (finding line and source snippet, as ErrorFormatter
prints them), type checker findings included: all must be identical text.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.unit.tanka.jsonnet.golden_lint import goldens, run_golden

CHECKOUT = Path(os.environ.get("GOJSONNET_CHECKOUT", "/nonexistent"))
GOLDENS = goldens(CHECKOUT) if (CHECKOUT / "linter" / "linter.go").is_file() else []


@pytest.mark.skipif(not GOLDENS, reason="set GOJSONNET_CHECKOUT to an extracted go-jsonnet tree")
def test_every_linter_golden_matches() -> None:
    mismatched: list[str] = []
    for golden in GOLDENS:
        outcome = run_golden(CHECKOUT, golden)
        if not outcome.identical:
            mismatched.append(f"{golden.name}:\n{outcome.expected}---\n{outcome.actual}")
    print(f"{len(GOLDENS) - len(mismatched)} of {len(GOLDENS)} goldens identical")
    assert mismatched == []
