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
from tools.tanka.source.jsonnet.linter import TreeCache

CHECKOUT = Path(os.environ.get("GOJSONNET_CHECKOUT", "/nonexistent"))
GOLDENS = goldens(CHECKOUT) if (CHECKOUT / "linter" / "linter.go").is_file() else []


@pytest.mark.skipif(not GOLDENS, reason="set GOJSONNET_CHECKOUT to an extracted go-jsonnet tree")
@pytest.mark.parametrize("shared", [False, True], ids=["own-trees", "shared-trees"])
def test_every_linter_golden_matches(shared: bool) -> None:
    # Shared: one TreeCache for all goldens, as `tk lint` shares one across the files it lints
    # (several goldens import the same files).
    trees = TreeCache() if shared else None
    mismatched: list[str] = []
    for golden in GOLDENS:
        outcome = run_golden(CHECKOUT, golden, trees)
        if not outcome.identical:
            mismatched.append(f"{golden.name}:\n{outcome.expected}---\n{outcome.actual}")
    print(f"{len(GOLDENS) - len(mismatched)} of {len(GOLDENS)} goldens identical")
    assert mismatched == []
