"""Who a guard names, and whether someone is one of them (admins, a rule's policy owners).
Membership is bot.policy.rules's: a user group that cannot be read admits nobody."""

from __future__ import annotations

from collections.abc import Sequence

from bot.policy.rules import Members, membership


def names(principals: Sequence[str]) -> str:
    """`<@U0OPS> or <!subteam^S0SRE>`: the people Slack shows for ids."""
    shown = [f"<!subteam^{p}>" if p.startswith("S") else f"<@{p}>" for p in principals]
    return " or ".join(shown)


def is_one_of(user: str, principals: Sequence[str], members: Members) -> bool:
    return bool(principals) and membership(user, principals, members).member


def admins_text(admins: Sequence[str]) -> str:
    """Who can act as an admin, or how an operator makes one."""
    if admins:
        return f"an admin ({names(admins)})"
    return (
        "an admin (nobody is one yet: an operator lists them under `admins` in the settings file)"
    )
