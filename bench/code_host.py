"""Figures for the GitHub code host: PyGithub over local HTTP against the fake GitHub.

What the bot adds on top of the network: per-call overhead of the client, the list cap, and
what a cached installation token saves. Real GitHub adds its own latency (typically 100-500 ms).
Run: .venv/bin/python bench/bench_code_host.py [ROUNDS]
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for fakes/ (the local fake GitHub)

from bot.github.auth import AppCredentials, InstallationTokens, StaticToken
from bot.github.code_host import GitHubCodeHost
from fakes.github_server import FakeGitHub, new_app_key

TOKEN = "ghp_benchtoken0123456789"  # noqa: S105 - only the local fake accepts it


def per_call_ms(rounds: int, call: Callable[[], object]) -> float:
    start = time.perf_counter()
    for _ in range(rounds):
        call()
    return (time.perf_counter() - start) * 1000 / rounds


def bench_token_host(fake: FakeGitHub, rounds: int) -> None:
    host = GitHubCodeHost(owner="acme", name="infra", tokens=StaticToken(TOKEN),
                          api_url=fake.url, write_interval=None)  # fmt: skip
    try:
        counter = iter(range(10**9))
        opened = per_call_ms(
            rounds, lambda: host.open_pull_request(f"b{next(counter)}", "main", "t", "b")
        )
        print(f"open_pull_request (new):        {opened:7.2f} ms/call")
        again = per_call_ms(rounds, lambda: host.open_pull_request("b0", "main", "t", "b"))
        print(f"open_pull_request (exists):     {again:7.2f} ms/call (422 + lookup)")
        found = per_call_ms(rounds, lambda: host.find_pull_request("b1"))
        print(f"find_pull_request:              {found:7.2f} ms/call")
        listed = per_call_ms(rounds, host.open_pull_requests)
        print(
            f"open_pull_requests ({len(host.open_pull_requests())} shown):  {listed:7.2f} ms/call"
        )
    finally:
        host.close()


def bench_app_tokens(fake: FakeGitHub, pem: str, rounds: int) -> None:
    tokens = InstallationTokens(AppCredentials("1", pem, 1), repo=("acme", "infra"),
                                base_url=fake.url)  # fmt: skip
    try:
        fetched = per_call_ms(1, tokens.token)
        cached = per_call_ms(rounds * 100, tokens.token) * 1000
    finally:
        tokens.close()
    print(f"installation token (fetch, JWT signing + POST): {fetched:7.2f} ms")
    print(f"installation token (cached):                    {cached:7.2f} us/call")


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    pem, public_key = new_app_key()
    with FakeGitHub(tokens=(TOKEN,), app_id="1", app_public_key=public_key) as fake:
        fake.add_repo("acme", "infra", installation_id=1)
        print(f"GitHub code host against the local fake, {rounds} rounds")
        bench_token_host(fake, rounds)
        bench_app_tokens(fake, pem, rounds)


if __name__ == "__main__":
    main()
