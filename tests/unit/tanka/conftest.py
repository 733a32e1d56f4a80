"""The `evaluator` fixture: a test marked with it runs once per Jsonnet implementation.

Conformance modules opt in with `pytestmark = pytest.mark.usefixtures("evaluator")`, so each
oracle (tk's bytes, go-jsonnet's messages) is checked against go-jsonnet and against jrsonnet with
its fallback. The choice is the engine's process-wide one (implementation.choose) and
TANKA_BOT_JSONNET for child processes, restored after.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tools.tanka.evaluation.implementation import ENV_VAR, IMPLEMENTATIONS, choose, parse


@pytest.fixture(params=IMPLEMENTATIONS)
def evaluator(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    choose(parse(request.param))
    monkeypatch.setenv(ENV_VAR, request.param)  # for the tests that run a subprocess
    yield request.param
    choose(None)
