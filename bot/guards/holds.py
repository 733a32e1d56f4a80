"""One bot pull request per environment: an open pull request the bot opened holds every
environment it changes, and another thread's proposal touching one of them waits for it to be
merged or closed (then that thread is rebased and proposed again: bot.handlers.guard_holds).
Pure over the store's hold records."""

from __future__ import annotations

from collections.abc import Sequence

from bot.guards.freezes import env_dir
from bot.store.guard_store import HoldRecord


def conflicts(
    holds: Sequence[HoldRecord], envs: Sequence[str] | None, thread: str
) -> list[HoldRecord]:
    """The holds of other threads' pull requests on `envs` (None: not known, so every hold,
    failing closed)."""
    others = [h for h in holds if h.thread != thread]
    if envs is None:
        return others
    wanted = {env_dir(e) for e in envs}
    return [h for h in others if h.env in wanted]


def text(held: Sequence[HoldRecord]) -> str:
    """`environments/prod` is in pull request #7 (<url>), ...: one clause per pull request."""
    by_pr: dict[tuple[str, int], list[HoldRecord]] = {}
    for hold in held:
        by_pr.setdefault((hold.repo, hold.number), []).append(hold)
    parts = []
    for (_, number), group in sorted(by_pr.items()):
        envs = ", ".join(f"`{h.env}`" for h in group[:5])
        more = f" and {len(group) - 5} more" if len(group) > 5 else ""
        parts.append(
            f"{envs}{more} {'is' if len(group) == 1 else 'are'} in pull request "
            f"<{group[0].url}|#{number}>"
        )
    return "; ".join(parts)
