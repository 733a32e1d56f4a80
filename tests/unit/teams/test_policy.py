"""Who may steer, and what a proposal needs: rules matched on affected environments, distinct
approvers, self-approval, user groups, failing closed."""

from __future__ import annotations

from bot.domain.ports import ChatError
from bot.policy.rules import NOT_SET_UP, Steering, needs_text, refusal, requirements, tally
from bot.policy.teams import ApprovalRule, ChannelConfig, Teams

GROUPS = {"S0SRE": frozenset({"U0BOB", "U0CAROL", "U0ALICE"}), "S0DBA": frozenset({"U0DAN"})}
PROD = ApprovalRule(("environments/prod*",), ("S0SRE",), 2, False)
DB = ApprovalRule(("environments/*/db",), ("S0DBA", "U0LEAD"), 1, True)


def members(group: str) -> frozenset[str]:
    if group == "S0DOWN":
        raise ChatError("usergroups.users.list: ratelimited")
    return GROUPS.get(group, frozenset())


def test_no_matching_rule_falls_back_to_one_approval_by_the_listed_approvers() -> None:
    reqs = requirements(["environments/dev"], [PROD], approvers=("U0BOB",), allow_self=True)
    (req,) = reqs
    assert (req.approvers, req.min_approvals, req.label) == (("U0BOB",), 1, "")
    assert refusal("U0ALICE", reqs, "U0ALICE", members) is None  # self-approval allowed
    assert refusal("U0BOB", reqs, "U0ALICE", members) is None
    assert "not one of the approvers" in (refusal("U0EVE", reqs, "U0ALICE", members) or "")
    assert tally(reqs, ["U0BOB"], "U0ALICE", members).complete


def test_with_no_approvers_only_the_requester_may_approve() -> None:
    reqs = requirements([], [PROD], approvers=(), allow_self=True)
    assert refusal("U0ALICE", reqs, "U0ALICE", members) is None
    assert "only the requester (<@U0ALICE>)" in (refusal("U0BOB", reqs, "U0ALICE", members) or "")
    assert (
        needs_text(reqs, "U0ALICE") == "Needs 1 approval from the requester (<@U0ALICE>); 0 so far"
    )


def test_every_matching_rule_applies_with_distinct_approvers_and_no_self_approval() -> None:
    affected = ["environments/dev", "environments/prod-eu", "environments/prod-eu/db"]
    reqs = requirements(affected, [PROD, DB], approvers=("U0BOB",), allow_self=True)
    assert [r.envs for r in reqs] == [
        ("environments/prod-eu", "environments/prod-eu/db"), ("environments/prod-eu/db",),
    ]  # fmt: skip
    assert "requesters may not approve" in (refusal("U0ALICE", reqs, "U0ALICE", members) or "")
    counted = tally(reqs, ["U0ALICE", "U0BOB", "U0BOB"], "U0ALICE", members)
    assert [p.counted for p in counted.parts] == [("U0BOB",), ()]
    assert counted.missing == 2
    assert counted.missing_text() == (
        "2 more approvals needed: 1 from <!subteam^S0SRE> (`environments/prod*`); "
        "1 from <!subteam^S0DBA>, <@U0LEAD> (`environments/*/db`)"
    )
    done = tally(reqs, ["U0BOB", "U0DAN", "U0CAROL"], "U0ALICE", members)
    assert done.complete
    assert done.approvers == ("U0BOB", "U0CAROL", "U0DAN")
    text = needs_text(reqs, "U0ALICE")
    assert text.startswith("Needs 2 approvals from <!subteam^S0SRE> for `environments/prod-eu`")
    assert ", not the requester" in text


def test_unknown_environments_apply_every_rule() -> None:
    reqs = requirements(None, [PROD, DB], approvers=(), allow_self=True)
    assert [r.label for r in reqs] == ["environments/prod*", "environments/*/db"]
    assert "environments unknown" in needs_text(reqs, "U0ALICE")


def test_a_group_that_cannot_be_read_admits_nobody_and_says_so() -> None:
    rule = ApprovalRule(("environments/*",), ("S0DOWN",), 1, False)
    reqs = requirements(["environments/prod"], [rule], approvers=(), allow_self=True)
    why = refusal("U0BOB", reqs, "U0ALICE", members) or ""
    assert "could not be read (usergroups.users.list: ratelimited)" in why
    assert not tally(reqs, ["U0BOB"], "U0ALICE", members).complete


def test_steering_by_channel_and_user() -> None:
    anyone = Steering(Teams(), members)
    assert anyone.channel_refusal("C0ANY") is None
    assert anyone.user_refusal("U0EVE") is None
    teams = Teams(channels={"C0DEPLOY": ChannelConfig()}, allowed_users=("U0ALICE", "S0SRE"))
    gate = Steering(teams, members)
    assert gate.channel_refusal("C0DEPLOY") is None
    assert gate.channel_refusal("C0RANDOM") == NOT_SET_UP
    assert gate.user_refusal("U0ALICE") is None
    assert gate.user_refusal("U0CAROL") is None  # via S0SRE
    assert "not on the list" in (gate.user_refusal("U0EVE") or "")
    down = Steering(Teams(allowed_users=("S0DOWN",)), members)
    assert "could not check" in (down.user_refusal("U0BOB") or "")


def test_two_thousand_environments_and_fifty_rules() -> None:
    affected = [f"environments/team-{i}/cluster-{j}" for i in range(200) for j in range(10)]
    rules = [ApprovalRule((f"environments/team-{i}/*",), ("S0SRE",), 2, False)
             for i in range(0, 250, 5)]  # fmt: skip
    reqs = requirements(affected, rules, approvers=(), allow_self=True)
    counted = tally(reqs, ["U0BOB", "U0CAROL"], "U0ALICE", members)
    assert len(reqs) == 40
    assert counted.complete
