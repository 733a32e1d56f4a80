"""Who may steer the agent, and what a proposal needs before it may become a pull request.

Pure policy over the settings (`bot.policy.teams`) and a member lookup
(`bot.policy.groups.GroupCache`).

Steering: with `allowed_users` set, only those users and members of those user groups may start a
session or write in one; with `channels` set, only listed channels are served at all.

Approvals: every approval rule whose `envs` globs match one of the proposal's affected
environments applies, each needing `min_approvals` distinct approvers from its list (the
requester only with `allow_self`). With no matching rule, the default of "Slack behaviour"
applies: one approval by a listed approver (TANKA_BOT_APPROVERS or the channel's), or by the
requester when none are listed or self-approval is allowed. When the affected environments are
unknown (the analysis failed) every rule applies.

Fail closed: a user group whose members cannot be read admits nobody, and says so.
"""

from __future__ import annotations

import bisect
import fnmatch
import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bot.domain.alerts import mention
from bot.domain.ports import ChatError
from bot.policy.teams import ApprovalRule, Teams

Members = Callable[[str], frozenset[str]]

_WILD = re.compile(r"[*?\[]")
NOT_SET_UP = (
    "This channel is not set up for tanka-bot: an operator can add it under `channels` in the "
    "bot's settings file."
)


@dataclass(frozen=True, slots=True)
class Membership:
    member: bool
    unchecked: str = ""  # a group that could not be read, when that decided "not a member"


def membership(user: str, principals: Sequence[str], members: Members) -> Membership:
    """Whether `user` is one of `principals` (user ids, or members of user group ids)."""
    if user in principals:
        return Membership(True)
    unchecked = ""
    for group in (p for p in principals if p.startswith("S")):
        try:
            if user in members(group):
                return Membership(True)
        except ChatError as exc:
            unchecked = unchecked or f"the user group <!subteam^{group}> could not be read ({exc})"
    return Membership(False, unchecked)


class Steering:
    """The one check before a message, a reply or a `/tanka` command becomes work."""

    def __init__(self, teams: Teams, members: Members) -> None:
        self.teams = teams
        self.members = members

    def channel_refusal(self, channel: str) -> str | None:
        return NOT_SET_UP if self.teams.channel(channel) is None else None

    def user_refusal(self, user: str) -> str | None:
        allowed = self.teams.allowed_users
        if allowed is None:
            return None
        found = membership(user, allowed, self.members)
        if found.member:
            return None
        if found.unchecked:
            return f"I could not check who may use me here: {found.unchecked}; try again later."
        return (
            "you are not on the list of people who may ask me for changes "
            "(`allowed_users` in the bot's settings); ask an operator to add you."
        )


@dataclass(frozen=True, slots=True)
class ApprovalRequirement:
    approvers: tuple[str, ...]  # empty: only the requester
    min_approvals: int
    allow_self: bool
    label: str  # the rule's globs, or "" for the default
    envs: tuple[str, ...] = ()  # the affected environments that matched the rule
    self_unlisted: bool = False  # the default: an allowed requester need not be listed

    def eligible(self, user: str, requester: str, members: Members) -> Membership:
        if not self.approvers:
            return Membership(user == requester)
        if user == requester:
            if not self.allow_self:
                return Membership(False)
            if self.self_unlisted:
                return Membership(True)
        return membership(user, self.approvers, members)


def _matching(globs: Sequence[str], envs: Sequence[str]) -> tuple[str, ...]:
    """The environments of sorted `envs` some glob matches. Each glob is tried only on the
    environments that start with its literal prefix (a bisect), so thousands of environments
    cost a rule little more than its matches."""
    found: set[str] = set()
    for glob in globs:
        prefix = _WILD.split(glob, maxsplit=1)[0]
        low = bisect.bisect_left(envs, prefix)
        high = bisect.bisect_left(envs, prefix + "\U0010ffff")
        match = _compiled(glob).match
        found.update(e for e in envs[low:high] if match(e))
    return tuple(sorted(found))


@functools.lru_cache(maxsize=4096)
def _compiled(glob: str) -> re.Pattern[str]:
    return re.compile(fnmatch.translate(glob))


def requirements(
    affected: Sequence[str] | None,
    rules: Sequence[ApprovalRule],
    *,
    approvers: Sequence[str],
    allow_self: bool,
) -> tuple[ApprovalRequirement, ...]:
    """What a proposal affecting `affected` environments needs (None: not known)."""
    found = []
    envs = sorted(set(affected or ()))
    for rule in rules:
        if affected is None:
            matched: tuple[str, ...] = ()
        else:
            matched = _matching(rule.envs, envs)
            if not matched:
                continue
        label = ", ".join(rule.envs)
        found.append(
            ApprovalRequirement(rule.approvers, rule.min_approvals, rule.allow_self, label, matched)
        )
    if found:
        return tuple(found)
    return (ApprovalRequirement(tuple(approvers), 1, allow_self, "", (), self_unlisted=True),)


@dataclass(frozen=True, slots=True)
class Part:
    requirement: ApprovalRequirement
    counted: tuple[str, ...]

    @property
    def missing(self) -> int:
        return max(self.requirement.min_approvals - len(self.counted), 0)


@dataclass(frozen=True, slots=True)
class Tally:
    parts: tuple[Part, ...]
    requester: str

    @property
    def complete(self) -> bool:
        return all(p.missing == 0 for p in self.parts)

    @property
    def approvers(self) -> tuple[str, ...]:
        """Everyone whose approval counts, in the order they approved."""
        seen: dict[str, None] = {}
        for part in self.parts:
            seen.update(dict.fromkeys(part.counted))
        return tuple(seen)

    @property
    def missing(self) -> int:
        return sum(p.missing for p in self.parts)

    def missing_text(self) -> str:
        """`1 more approval needed: 1 from <!subteam^S0SRE> (environments/prod*)`."""
        parts = [p for p in self.parts if p.missing]
        if not parts:
            return "no more approvals needed"
        each = "; ".join(
            f"{p.missing} from {who(p.requirement, self.requester)}" + _label(p.requirement)
            for p in parts
        )
        total = self.missing
        return f"{total} more approval{'s' if total != 1 else ''} needed: {each}"


def tally(
    reqs: Sequence[ApprovalRequirement], approvals: Sequence[str], requester: str, members: Members
) -> Tally:
    """Which recorded approvals count toward each requirement (a group that cannot be read
    now counts nobody: the approval waits rather than being guessed)."""
    distinct = tuple(dict.fromkeys(approvals))
    parts = tuple(
        Part(r, tuple(u for u in distinct if r.eligible(u, requester, members).member))
        for r in reqs
    )
    return Tally(parts, requester)


def refusal(
    user: str, reqs: Sequence[ApprovalRequirement], requester: str, members: Members
) -> str | None:
    """Why `user`'s approval counts toward none of `reqs`, or None when it counts."""
    unchecked = ""
    for req in reqs:
        found = req.eligible(user, requester, members)
        if found.member:
            return None
        unchecked = unchecked or found.unchecked
    if unchecked:
        return f"{unchecked}; try again"
    if user == requester:
        return "requesters may not approve their own sessions here; ask one of the approvers"
    if len(reqs) == 1 and not reqs[0].approvers:
        return (
            f"only the requester ({mention(requester)}) may approve this session; an operator can "
            "allow others with TANKA_BOT_APPROVERS"
        )
    names = " or ".join(who(r, requester) for r in reqs)
    return f"you are not one of the approvers this proposal needs ({names})"


def who(req: ApprovalRequirement, requester: str) -> str:
    if not req.approvers:
        return f"the requester ({mention(requester)})"
    names = ", ".join(f"<!subteam^{p}>" if p.startswith("S") else f"<@{p}>" for p in req.approvers)
    if req.allow_self and req.self_unlisted:
        names += " or the requester"
    return names


def _label(req: ApprovalRequirement) -> str:
    return f" (`{req.label}`)" if req.label else ""


def needs_text(reqs: Sequence[ApprovalRequirement], requester: str) -> str:
    """What the proposal needs, for its message: `Needs 2 approvals from <!subteam^S0SRE> ...`."""
    lines = []
    for req in reqs:
        n = req.min_approvals
        line = f"{n} approval{'s' if n != 1 else ''} from {who(req, requester)}"
        if req.label:
            envs = ", ".join(f"`{e}`" for e in req.envs[:5])
            more = f" and {len(req.envs) - 5} more" if len(req.envs) > 5 else ""
            line += f" for {envs}{more}" if envs else " (environments unknown: every rule applies)"
            line += _label(req)
            if not req.allow_self:
                line += ", not the requester"
        lines.append(line)
    return "Needs " + "; and ".join(lines) + "; 0 so far"
