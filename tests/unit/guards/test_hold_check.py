"""The periodic hold check (bot.runtime.guard_holds.check): a bot pull request GitHub no longer
lists as open releases what it held and resumes its waiters; when GitHub cannot be asked, or a
full page of open pull requests may hide it, nothing is released (a hold is kept, not guessed
away)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import cast

from bot.config import load_settings
from bot.domain.thread import ThreadKey
from bot.github.errors import CodeHostError
from bot.publish.pipeline import PullRequestHost
from bot.runtime import guard_holds
from bot.runtime.threads import Threads
from bot.services import Services
from bot.store.guard_store import HoldRecord, MemoryGuardStore
from tests.unit.services import bare_services
from tools.context import PullRequestInfo

REPO = "acme/infra"
WAITING = "C0DEPLOY:1700000002.000100"


class Host:
    def __init__(self, numbers: Sequence[int], *, down: bool = False) -> None:
        self.numbers, self.down = numbers, down

    def open_pull_requests(self) -> list[PullRequestInfo]:
        if self.down:
            raise CodeHostError("GitHub is unavailable: 502")
        return [PullRequestInfo(n, "t", "h", "main", "bot", f"u{n}") for n in self.numbers]


@dataclass
class StubThreads:
    svc: Services
    submitted: list[ThreadKey] = field(default_factory=list)

    def submit(self, key: ThreadKey, job: Callable[[], None]) -> None:
        self.submitted.append(key)


def threads_with(host: Host) -> StubThreads:
    svc = bare_services(
        load_settings({"TANKA_BOT_GITHUB_REPO": REPO}),
        guards=MemoryGuardStore(clock=lambda: 1.0),
        code_host=lambda: cast(PullRequestHost, host),
    )
    for env, number in (("environments/prod", 7), ("environments/dev", 8)):
        svc.guards.claim(HoldRecord(env, REPO, number, f"u{number}", "C0DEPLOY:1.0", 1.0))
    svc.guards.wait_on(REPO, 7, WAITING, 3600)
    return StubThreads(svc)


def check(threads: StubThreads) -> int:
    return guard_holds.check(cast(Threads, threads))


def test_a_pull_request_no_longer_open_releases_its_holds_and_resumes_its_waiters() -> None:
    threads = threads_with(Host([8, 12]))
    assert check(threads) == 1
    assert [h.env for h in threads.svc.guards.holds()] == ["environments/dev"]
    assert threads.submitted == [ThreadKey.parse(WAITING)]
    assert check(threads) == 0  # released once


def test_github_down_releases_nothing() -> None:
    threads = threads_with(Host([], down=True))
    assert check(threads) == 0
    assert len(threads.svc.guards.holds()) == 2


def test_a_full_page_of_open_pull_requests_releases_nothing() -> None:
    threads = threads_with(Host(range(100, 100 + guard_holds.LISTED_PAGE)))
    assert check(threads) == 0
    assert len(threads.svc.guards.holds()) == 2
    assert threads.submitted == []
