"""An Alertmanager notification: a session for a new firing group, a note for an open one.

The receiver puts the notification on the work queue before the ack; the workers that run
mentions take it. Per alert group (Alertmanager's `groupKey`), one replica at a time decides:
- matching no route: counted (`tanka_bot_alert_groups_total{outcome="unrouted"}`), ignored;
- its session still open (the thread the group is bound to has a session): alerts that started
  firing or resolved since the last notification are noted in the thread, without a turn, and
  a repeat notification with nothing new says nothing. A thread takes at most the route's
  `max_notes_per_hour` notes a clock hour (the same store budget as sessions); past it, news is
  dropped (counted as `notes_held`) and the thread says so once that hour;
- otherwise, firing and within the route's hourly budget: a root post in the route's channel
  naming the alert, a session whose requester is the route (`alert:<name>`: no person, so
  nobody approves their own alert, and its cost and audit trail belong to the route), and a
  turn on the route's instructions with the alert quoted as data. Over the budget: one note in
  the channel per hour.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from bot.domain.alert_text import (
    alert_request,
    news_text,
    notes_held_text,
    over_budget_text,
    root_text,
    title,
)
from bot.domain.alerts import AlertNotification
from bot.domain.ports import ChatError
from bot.domain.sessions import Session
from bot.domain.thread import ThreadKey
from bot.policy.alert_routes import AlertRoute, route_for
from bot.publish.pr_text import branch_name
from bot.runtime.pending import Pending
from bot.runtime.threads import Threads
from bot.services import Services
from bot.store.alert_groups import AlertGroups
from bot.store.base import StoreUnavailable

log = logging.getLogger(__name__)

# How long a group remembers its thread and its alerts; renewed by each notification, and far
# longer than Alertmanager's repeat_interval, so an open session's group is never forgotten.
GROUP_TTL = 30 * 86_400.0


def handle(threads: Threads, n: AlertNotification) -> None:
    """A notification taken from the work queue (in the consumer's thread)."""
    svc = threads.svc
    try:
        start = _decide(threads, n)
    except (StoreUnavailable, ChatError) as exc:
        # Nothing was bound: Alertmanager's next notification of the group tries again.
        svc.metrics.errors.labels("alerts").inc()
        log.warning("alert group %r not handled: %s", n.group_key, exc)
        return
    if start is not None:
        start()


def _decide(threads: Threads, n: AlertNotification) -> Callable[[], None] | None:
    """What the notification does, decided holding its group; a session's turn is returned to
    run after the group is let go (a turn takes minutes; the group's hold, seconds)."""
    svc = threads.svc
    route = route_for(svc.settings.teams.alert_routes, n.common_labels)
    if route is None:
        svc.metrics.alert_groups.labels("unrouted").inc()
        log.info("alert group %r matches no alert route; ignored", n.group_key)
        return None
    groups = AlertGroups(svc.store)
    with groups.deciding(n.group_key, svc.replica) as held:
        if not held:
            svc.metrics.alert_groups.labels("busy").inc()
            log.warning("alert group %r: another replica kept it; skipped", n.group_key)
            return None
        key = groups.thread(n.group_key)
        if key is not None and svc.sessions.exists(key):
            _note(threads, groups, key, n, route)
            return None
        if n.status == "resolved":
            svc.metrics.alert_groups.labels("ignored").inc()
            return None  # resolved with no open session: nothing to say anywhere
        now = svc.clock()
        if not groups.admit(route.name, route.max_sessions_per_hour, now=now):
            svc.metrics.alert_groups.labels("rate_limited").inc()
            if groups.note_due(route.name, now=now):
                text = over_budget_text(route.name, route.max_sessions_per_hour)
                svc.chat.post(route.channel, text)
            return None
        return _open(threads, groups, route, n)


def _note(
    threads: Threads, groups: AlertGroups, key: ThreadKey, n: AlertNotification, route: AlertRoute
) -> None:
    svc = threads.svc
    now = svc.clock()
    groups.bind(n.group_key, key, GROUP_TTL)  # keep the open session's group remembered
    firing = [a for a in n.alerts if a.status == "firing"
              and groups.firing(key, a.fingerprint, at=now, ttl=GROUP_TTL)]  # fmt: skip
    resolved = [a for a in n.alerts if a.status == "resolved"
                and groups.resolved(key, a.fingerprint, at=now, ttl=GROUP_TTL)]  # fmt: skip
    group_resolved = n.status == "resolved" and bool(resolved)
    text = news_text(firing, resolved, group_resolved=group_resolved)
    if not text:
        svc.metrics.alert_groups.labels("repeat").inc()
        return
    if not groups.admit_note(key, route.max_notes_per_hour, now=now):
        svc.metrics.alert_groups.labels("notes_held").inc()
        if groups.held_note_due(key, now=now):
            threads.post(key, notes_held_text(route.max_notes_per_hour))
        return
    svc.metrics.alert_groups.labels("noted").inc()
    threads.post(key, text)


def _open(
    threads: Threads, groups: AlertGroups, route: AlertRoute, n: AlertNotification
) -> Callable[[], None]:
    """Post the root message, bind the group and store its session; the turn is returned."""
    svc: Services = threads.channels(route.channel) or threads.svc
    ts = svc.chat.post(route.channel, root_text(n, route.name))
    key = ThreadKey(route.channel, ts)
    now = svc.clock()
    groups.bind(n.group_key, key, GROUP_TTL)
    for alert in n.firing:
        groups.firing(key, alert.fingerprint, at=now, ttl=GROUP_TTL)
    request = title(n)
    session = Session(
        channel=key.channel, thread_ts=key.thread_ts, requester=route.requester,
        request=request, created=now, updated=now, base_branch=svc.settings.base_branch,
        branch=branch_name(key.thread_ts, request),
    )  # fmt: skip
    # Stored before the turn is queued: a repeat notification meanwhile finds it open.
    svc.sessions.put(session)
    svc.audit.record(key.channel, key.thread_ts, route.requester, "session_started", {
        "request": request, "trigger": "alertmanager", "route": route.name,
        "alertname": n.alertname, "group_key": n.group_key, "alerts": len(n.firing),
        "repo": svc.settings.repo_url or "", "base_branch": session.base_branch,
    })  # fmt: skip
    svc.metrics.alert_groups.labels("session").inc()
    pending = Pending(route.requester, alert_request(route.instructions, n), request=request)
    return lambda: threads.guard(key, lambda: threads.enqueue_and_drive(key, pending, new=True))
