"""The guard commands (`/tanka freeze`, `unfreeze`, `freezes`, `budget`, `budget raise`), and
the guard lines `/tanka status` and the Home tab show: the freezes in force, the holds of the
bot's pull requests, and the budgets of the channel.

Answers go to the person who typed the command (ephemeral); a freeze, an unfreeze and a raise
are also said in the channel, so the people working there know. Admins only, where it changes
anything; failing closed when a user group cannot be read.
"""

from __future__ import annotations

from collections.abc import Callable

from bot.domain.alerts import quiet_broadcasts
from bot.domain.commands import Budget, Freeze, Freezes, GuardAction, Unfreeze
from bot.domain.prices import dollars
from bot.domain.requests import SlashCommand
from bot.domain.thread import ThreadKey
from bot.guards import budgets, freezes
from bot.guards.durations import describe, parse_duration
from bot.guards.people import admins_text, is_one_of
from bot.guards.windows import iso
from bot.services import Services
from bot.store.base import StoreUnavailable
from bot.store.guard_store import FreezeRecord

LONGEST_FREEZE = 90 * 86_400.0


def answer(svc: Services, command: SlashCommand, action: GuardAction) -> str:  # noqa: PLR0911
    """The ephemeral answer to a guard command."""
    try:
        if isinstance(action, Freezes):
            return freezes_text(svc)
        if isinstance(action, Budget) and action.raise_usd is None:
            return budget_text(svc, command.channel)
        admins = svc.settings.teams.admins
        if not is_one_of(command.user, admins, svc.groups.members):
            return f"Only {admins_text(admins)} may do that."
        if isinstance(action, Freeze):
            return _freeze(svc, command, action)
        if isinstance(action, Unfreeze):
            return _unfreeze(svc, command, action)
        return _raise(svc, command, action)
    except StoreUnavailable as exc:
        return f"The store is unavailable ({exc}); nothing was changed. Try again in a minute."


def _freeze(svc: Services, command: SlashCommand, action: Freeze) -> str:
    try:
        seconds = parse_duration(action.duration)
    except ValueError as exc:
        return f"Not frozen: {exc}."
    if seconds > LONGEST_FREEZE:
        return (
            "Not frozen: an ad hoc freeze lasts 90 days at most (the settings file's windows "
            "can be longer)."
        )
    now = svc.clock()
    # Said again in the channel, in refusals and in lists: it pings nobody when repeated.
    glob, reason = quiet_broadcasts(action.glob), quiet_broadcasts(action.reason)
    record = FreezeRecord(glob, reason, command.user, now, now + seconds)
    svc.guards.put_freeze(record)
    svc.audit.record(
        command.channel,
        "",
        command.user,
        "freeze",
        {"envs": glob, "until": iso(record.until), "reason": reason},
    )
    said = (
        f":snowflake: <@{command.user}> froze `{glob}` for {describe(seconds)}, until "
        f"{iso(record.until)}: {reason}. Proposals there cannot be approved until then "
        "(or an admin's `override REASON` in their thread)."
    )
    svc.chat.post(command.channel, said)
    return f"Frozen `{glob}` until {iso(record.until)}."


def _unfreeze(svc: Services, command: SlashCommand, action: Unfreeze) -> str:
    ended = svc.guards.end_freezes(action.glob)
    if not ended:
        listed = freezes_text(svc)
        return f"No ad hoc freeze of exactly `{action.glob}` to end.\n{listed}"
    svc.audit.record(
        command.channel,
        "",
        command.user,
        "unfreeze",
        {"envs": action.glob, "was_until": iso(ended[0].until)},
    )
    svc.chat.post(
        command.channel,
        f":sunny: <@{command.user}> ended the freeze of "
        f"`{action.glob}`; its proposals may be approved again.",
    )
    return f"Unfrozen `{action.glob}`."


def _raise(svc: Services, command: SlashCommand, action: Budget) -> str:
    covering = budgets.covering(svc.settings.guards.budgets, command.channel)
    if not covering or action.raise_usd is None:
        return "No budget covers this channel (`budgets` in the settings file)."
    now = svc.clock()
    lines = []
    for budget in covering:
        used = budgets.raise_limit(svc.guards, budget, action.raise_usd, now)
        svc.audit.record(
            command.channel,
            "",
            command.user,
            "budget_raised",
            {
                "budget": budget.name,
                "by_usd": action.raise_usd,
                "limit_usd": used.limit,
                "resets": iso(used.resets),
            },
        )
        lines.append(used.text())
    svc.chat.post(
        command.channel,
        f":moneybag: <@{command.user}> raised this channel's "
        f"budgets by {dollars(action.raise_usd)} for the current period: " + "; ".join(lines),
    )
    return "Raised: " + "; ".join(lines)


def freezes_text(svc: Services) -> str:
    active = freezes.active(svc.settings.guards, svc.guards.freezes(), svc.clock())
    if not active:
        return "Nothing is frozen now."
    lines = [
        f"• `{f.glob}` until {iso(f.until)}: {f.reason}"
        + (f" (by <@{f.by}>)" if f.by else " (settings file)")
        for f in sorted(active, key=lambda f: (f.glob, f.until))
    ]
    return "*Frozen now*:\n" + "\n".join(lines)


def budget_text(svc: Services, channel: str) -> str:
    s = svc.settings
    covering = budgets.covering(s.guards.budgets, channel)
    if not covering:
        return "No budget covers this channel."
    now = svc.clock()
    lines = [f"• {budgets.usage(svc.guards, b, now).text()}" for b in covering]
    if s.price_table.get(s.model_id) is None:
        lines.append(
            f"(the model `{s.model_id}` has no price in TANKA_BOT_PRICES, "
            "so its spend is not counted)"
        )
    return "*Budgets*:\n" + "\n".join(lines)


def status_text(svc: Services, channel: str) -> str:
    """The guard part of `/tanka status`: freezes, the holds of this channel's pull requests,
    the channel's budgets ("" when there are none)."""
    try:
        parts = []
        if freezes.active(svc.settings.guards, svc.guards.freezes(), svc.clock()):
            parts.append(freezes_text(svc))
        held = [h for h in svc.guards.holds() if ThreadKey.parse(h.thread).channel == channel]
        if held:
            parts.append(
                "*Held by open pull requests*:\n"
                + "\n".join(f"• `{h.env}`: <{h.url}|#{h.number}>" for h in held)
            )
        if budgets.covering(svc.settings.guards.budgets, channel):
            parts.append(budget_text(svc, channel))
    except StoreUnavailable as exc:
        return f"\n\nThe guardrails could not be read ({exc})."
    return "".join(f"\n\n{p}" for p in parts)


def home_text(svc: Services, user: str, visible: Callable[[str], bool]) -> str:
    """The Home tab's guard section for `user`: the freezes in force, the holds of pull
    requests in channels they see, and the budgets of those channels (admins: every budget,
    marked past 80%). "" when nothing concerns them."""
    s = svc.settings
    now = svc.clock()
    admin = is_one_of(user, s.teams.admins, svc.groups.members)
    try:
        parts = [
            f"• :snowflake: `{f.glob}` frozen until {iso(f.until)}: {f.reason}"
            for f in freezes.active(s.guards, svc.guards.freezes(), now)
        ]
        parts += [
            f"• :hourglass: `{h.env}` held by <{h.url}|pull request #{h.number}>"
            for h in svc.guards.holds()
            if visible(ThreadKey.parse(h.thread).channel)
        ]
        for budget in s.guards.budgets:
            if admin or budget.channels is None or any(visible(c) for c in budget.channels):
                used = budgets.usage(svc.guards, budget, now)
                mark = ":warning: " if used.share >= budgets.WARN_AT else ""
                parts.append(f"• {mark}{used.text()}")
    except StoreUnavailable as exc:
        return f"The guardrails could not be read ({exc})."
    return "\n".join(parts)
