"""Fixtures the unit tests of several packages share."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.redis_server import RedisServer
from tests.unit.store.conftest import start_redis


@pytest.fixture(scope="session")
def shared_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """One Redis for the whole run; tests keep apart by key prefix."""
    server = start_redis(tmp_path_factory.mktemp("redis"))
    yield server
    server.stop()
