"""The `evaluator` fixture of tests/unit/tanka, for the modules here that run tk's own cases."""

from __future__ import annotations

from tests.unit.tanka.conftest import evaluator

__all__ = ["evaluator"]
