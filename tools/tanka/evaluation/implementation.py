"""Which Jsonnet evaluator runs an evaluation: go-jsonnet (tk's own) or jrsonnet (faster).

`go` is the reference: it is what tk runs, and every answer jrsonnet cannot vouch for is taken from
it (rust_eval.py says when). `rust` evaluates with jrsonnet first and falls back to go-jsonnet
wherever the two could differ, so its output is go-jsonnet's. The choice is per process: the
service sets it from TANKA_BOT_JSONNET (bot/config.py), `tanka-bot tk` from
--jsonnet-implementation; without either, TANKA_BOT_JSONNET in the environment or the default.
The parent decides and says so in each request: worker processes get a scrubbed environment.
"""

from __future__ import annotations

import os
from typing import Literal, get_args

Implementation = Literal["go", "rust"]
IMPLEMENTATIONS: tuple[str, ...] = get_args(Implementation)
ENV_VAR = "TANKA_BOT_JSONNET"
DEFAULT: Implementation = "rust"

_chosen: Implementation | None = None


def parse(value: str) -> Implementation:
    """`value` as an implementation name; ValueError naming the accepted ones otherwise."""
    if value == "go":
        return "go"
    if value == "rust":
        return "rust"
    raise ValueError(f"{value!r} is not a Jsonnet implementation; use one of: go, rust")


def choose(implementation: Implementation | None) -> Implementation | None:
    """Use `implementation` for this process's evaluations from now on (None: back to the
    environment variable or the default); returns the choice it replaces."""
    global _chosen
    previous, _chosen = _chosen, implementation
    return previous


def chosen() -> Implementation:
    """The implementation evaluations use now."""
    if _chosen is not None:
        return _chosen
    value = os.environ.get(ENV_VAR, "")
    try:
        return parse(value) if value else DEFAULT
    except ValueError:  # bot/config.py refuses it at start-up; a bare engine user gets tk's
        return "go"
