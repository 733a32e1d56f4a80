"""Who may approve with the default rule (TANKA_BOT_APPROVERS), failing closed when a group
cannot be read: bot.policy.rules.refusal, and bot.policy.groups.GroupCache in front of Slack."""

from __future__ import annotations

import pytest

from bot.domain.ports import ChatError
from bot.policy.groups import GroupCache
from bot.policy.rules import refusal, requirements

REQUESTER = "U0REQUEST"
GROUPS = {"S0SRE": frozenset({"U0SRE1", "U0SRE2"}), "S0LEADS": frozenset({"U0LEAD"})}


def members(group: str) -> frozenset[str]:
    return GROUPS[group]


def failing(group: str) -> frozenset[str]:
    raise ChatError("usergroups.users.list: plan_upgrade_required")


def check(
    user: str, approvers: list[str], *, allow_self: bool = True, lookup: object = members
) -> str | None:
    reqs = requirements(None, (), approvers=approvers, allow_self=allow_self)
    return refusal(user, reqs, REQUESTER, lookup)  # type: ignore[arg-type]


def test_no_approvers_only_the_requester() -> None:
    assert check(REQUESTER, []) is None
    reason = check("U0OTHER", [])
    assert reason is not None
    assert f"<@{REQUESTER}>" in reason
    assert "TANKA_BOT_APPROVERS" in reason


def test_no_approvers_ignores_allow_self() -> None:
    assert check(REQUESTER, [], allow_self=False) is None


def test_listed_user_may_approve() -> None:
    assert check("U0LEAD", ["U0LEAD"]) is None


def test_unlisted_user_is_refused() -> None:
    reason = check("U0OTHER", ["U0LEAD", "S0SRE"])
    assert reason == (
        "you are not one of the approvers this proposal needs "
        "(<@U0LEAD>, <!subteam^S0SRE> or the requester)"
    )


def test_requester_with_self_approval() -> None:
    assert check(REQUESTER, ["U0LEAD"], allow_self=True) is None


def test_requester_without_self_approval_even_when_listed() -> None:
    reason = check(REQUESTER, ["U0LEAD", REQUESTER], allow_self=False)
    assert reason is not None
    assert "own sessions" in reason


def test_group_member_may_approve() -> None:
    assert check("U0SRE2", ["S0SRE"]) is None
    assert check("U0LEAD", ["S0SRE", "S0LEADS"]) is None


def test_group_lookup_is_skipped_for_listed_users() -> None:
    assert check("U0LEAD", ["U0LEAD", "S0BROKEN"], lookup=failing) is None


def test_group_lookup_failure_refuses_with_a_message() -> None:
    reason = check("U0SRE1", ["S0SRE"], lookup=failing)
    assert reason is not None
    assert "<!subteam^S0SRE>" in reason
    assert "could not be read" in reason
    assert "plan_upgrade_required" in reason


def test_unreadable_group_does_not_block_a_member_of_a_readable_one() -> None:
    def lookup(group: str) -> frozenset[str]:
        if group == "S0BROKEN":
            raise ChatError("usergroups.users.list: no_such_subteam")
        return GROUPS[group]

    assert check("U0SRE1", ["S0BROKEN", "S0SRE"], lookup=lookup) is None
    reason = check("U0OTHER", ["S0BROKEN", "S0SRE"], lookup=lookup)
    assert reason is not None
    assert "<!subteam^S0BROKEN>" in reason  # still fails closed, and says why


def test_other_errors_are_not_swallowed() -> None:
    def broken(group: str) -> frozenset[str]:
        raise RuntimeError("bug")

    with pytest.raises(RuntimeError):
        check("U0X", ["S0SRE"], lookup=broken)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_group_cache_caches_until_the_ttl() -> None:
    calls: list[str] = []
    current = {"S0SRE": frozenset({"U1"})}

    def lookup(group: str) -> frozenset[str]:
        calls.append(group)
        return current[group]

    clock = Clock()
    cache = GroupCache(lookup, ttl=60, clock=clock)
    assert cache.members("S0SRE") == frozenset({"U1"})
    current["S0SRE"] = frozenset({"U2"})
    clock.now += 59
    assert cache.members("S0SRE") == frozenset({"U1"})
    assert calls == ["S0SRE"]
    clock.now += 1
    assert cache.members("S0SRE") == frozenset({"U2"})
    assert calls == ["S0SRE", "S0SRE"]


def test_group_cache_keeps_groups_apart() -> None:
    cache = GroupCache(members, clock=Clock())
    assert cache.members("S0SRE") == GROUPS["S0SRE"]
    assert cache.members("S0LEADS") == GROUPS["S0LEADS"]


def test_group_cache_does_not_cache_failures() -> None:
    attempts: list[str] = []

    def flaky(group: str) -> frozenset[str]:
        attempts.append(group)
        if len(attempts) == 1:
            raise ChatError("usergroups.users.list: ratelimited", retryable=True)
        return frozenset({"U1"})

    cache = GroupCache(flaky, clock=Clock())
    with pytest.raises(ChatError):
        cache.members("S0SRE")
    assert cache.members("S0SRE") == frozenset({"U1"})
    assert len(attempts) == 2


def test_refusal_through_the_cache() -> None:
    cache = GroupCache(failing, clock=Clock())
    reqs = requirements(None, (), approvers=["S0SRE"], allow_self=True)
    reason = refusal("U0SRE1", reqs, REQUESTER, cache.members)
    assert reason is not None
    assert "could not be read" in reason
