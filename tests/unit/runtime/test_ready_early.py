"""/readyz answers 200 once the repository is fetched, before any spare checkout or base render,
and a mention arriving then is served all the same (it makes its own checkout and renders)."""

from __future__ import annotations

import threading
from pathlib import Path

from bot.inbound.http import Readiness
from bot.runtime.scheduler import CacheMaintenance
from bot.store.memory import MemoryStore
from tests.unit.runtime.harness import rig, scale_dev


def test_a_mention_before_the_first_spare_and_base_render_gets_its_proposal(
    tmp_path: Path,
) -> None:
    with rig(tmp_path, MemoryStore()) as bot:
        cache = bot.svc.workspaces.cache
        prepared: list[bool] = []
        job = CacheMaintenance(
            cache, base_branch="main", interval=0.0, spares=1,
            prepare=lambda _repo, _commit, render: prepared.append(render),
        )  # fmt: skip
        release = threading.Event()
        replenish = cache.replenish

        def held(count: int, *, branch: str = "main") -> int:
            release.wait(30)
            return replenish(count, branch=branch)

        cache.replenish = held  # type: ignore[method-assign]
        run = threading.Thread(target=job.run_once)
        run.start()
        try:
            assert job.fetched.wait(30)
            readiness = Readiness(store=bot.svc.store, cache=cache, maintenance=job)
            assert readiness.problem() is None
            assert not cache.spares_dir.is_dir() or not list(cache.spares_dir.iterdir())
            assert prepared == []

            scale_dev(bot.model)
            key = bot.mention("scale grafana in dev to 3")
            bot.settle()
            assert any("replicas: 3" in text for text in bot.texts(key))  # the rendered diff
        finally:
            release.set()
            run.join(30)
        assert prepared == [False, True]
        assert len(list(cache.spares_dir.iterdir())) == 1
