"""The Home tab for one user, from the store: the sessions they started, the proposals waiting
for an approval they may give, and their open pull requests.

Two store queries (bot.store: the requester index gives the first and third sections, the
awaiting index the second) and no Web API call per session: links are built from the
workspace's URL, and who may see a channel comes from its member list, cached per channel
(bot.policy.groups.GroupCache over conversations.members), so one call per channel every few
minutes at most. A channel the bot does not serve, or whose members cannot be read, shows
nothing (fail closed).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from bot.domain.alerts import mention
from bot.domain.ports import ChatError
from bot.domain.sessions import Session
from bot.handlers import guard_commands, steer
from bot.handlers.approve import pull_request_refusal, requirements
from bot.policy import rules as policy
from bot.services import Services
from bot.slack.views import HOME_SESSIONS, HomeLine, View, first_line, home, with_guardrails

log = logging.getLogger(__name__)

OWN_READ = 100  # the requester's newest sessions read: the 10 shown, and their open PRs
AWAITING_READ = 200  # the newest sessions awaiting an approval, before who-may-approve


def thread_link(workspace_url: str, channel: str, ts: str) -> str:
    """A message's permalink, as Slack builds them (no chat.getPermalink call)."""
    base = workspace_url if workspace_url.endswith("/") else workspace_url + "/"
    return f"{base}archives/{channel}/p{ts.replace('.', '')}"


def build(
    svc: Services, user: str, *, channels: Callable[[str], Services | None],
    members: Callable[[str], frozenset[str]], workspace_url: str,
) -> View:  # fmt: skip
    gate = steer.steering(svc)
    seen: dict[str, bool] = {}

    def visible(channel: str) -> bool:
        if channel not in seen:
            try:
                seen[channel] = gate.channel_refusal(channel) is None and user in members(channel)
            except ChatError as exc:
                log.info("Home: members of %s unknown, hidden: %s", channel, exc)
                seen[channel] = False
        return seen[channel]

    def may_approve(session: Session) -> bool:
        record = session.latest_proposal
        here = channels(session.channel) or svc
        if record is None or record.approved_by or pull_request_refusal(session, record):
            return False
        try:
            why = policy.refusal(user, requirements(here, record), session.requester,
                                 here.groups.members)  # fmt: skip
        except ChatError:
            return False
        return why is None

    own = [s for s in svc.sessions.by_requester(user, OWN_READ) if visible(s.channel)]
    waiting = [s for s in svc.sessions.awaiting(AWAITING_READ) if visible(s.channel)]
    view = view_for(own, [s for s in waiting if may_approve(s)], workspace_url)
    return with_guardrails(view, guard_commands.home_text(svc, user, visible))


def view_for(own: list[Session], approvable: list[Session], workspace_url: str) -> View:
    """The Home view from store values (pure): `own` newest first, `approvable` likewise."""

    def line(session: Session, detail: str) -> HomeLine:
        link = thread_link(workspace_url, session.channel, session.thread_ts)
        return HomeLine(first_line(session.request), session.channel, link, detail)

    sessions = [line(s, _state(s)) for s in own[:HOME_SESSIONS]]
    waiting = [
        line(s, f"proposal {len(s.proposals)} by {mention(s.requester)}") for s in approvable
    ]
    pulls = [
        line(s, f"<{s.pull_request.url}|pull request #{s.pull_request.number}>")
        for s in own
        if s.pull_request is not None and s.pull_request.state == "open"
    ]
    return home(sessions, waiting, pulls)


def _state(session: Session) -> str:
    if session.state == "running":
        return "running"
    pr = session.pull_request
    if pr is not None:
        return f"pull request #{pr.number} {pr.state}"
    latest = session.latest_proposal
    if latest is not None:
        return f"proposal {len(session.proposals)} waiting for approval"
    return "idle"
