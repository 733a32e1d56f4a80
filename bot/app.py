"""The composition root of `tanka-bot serve`: settings in, a running service out.

Builds the adapters (Slack client, store, repo cache, provider, code host) into `Services`, wires
the Bolt listeners to the runner, and serves HTTP (Slack requests, health, readiness, metrics)
under waitress, a production WSGI server. In Socket Mode the Slack traffic goes over the socket
and the HTTP port still serves health, readiness and metrics.
"""

from __future__ import annotations

import gc
import logging
import os
import secrets
import signal
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from apscheduler.schedulers.background import BackgroundScheduler
from pydantic import SecretStr
from slack_bolt import App
from slack_bolt.adapter.wsgi import SlackRequestHandler
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError

from bot.agent.messages import LLMProvider
from bot.compose import build_agent, build_code_host, build_provider, mcp_hub
from bot.config import ConfigError, Settings
from bot.domain.thread import ThreadKey
from bot.git.askpass import TokenCredentials
from bot.inbound import slack_interactive
from bot.inbound.alert_receiver import AlertReceiver
from bot.inbound.github_receiver import WebhookReceiver
from bot.inbound.http import SERVER_MAX_BODY, HealthApp, Readiness
from bot.inbound.slack_envelope import EnvelopeGate
from bot.inbound.slack_listeners import EVENT_TYPES, OnEvent, register
from bot.inbound.slack_signature import SignatureGate
from bot.policy.groups import GroupCache
from bot.runtime import guard_holds
from bot.runtime.admission import Count, Stamp
from bot.runtime.dispatch import Dispatcher
from bot.runtime.reaper import Reaper
from bot.runtime.runner import Runner
from bot.runtime.scheduler import CacheMaintenance
from bot.services import Channels, Services
from bot.slack.client import SlackChatClient, web_client
from bot.store import build_store
from bot.store.guard_store import build_guard_store
from bot.store.history_backend import build_history
from bot.store.remote import Address, Host
from bot.telemetry.audit import Audit, build_audit_store
from bot.telemetry.history import Recorder
from bot.telemetry.metrics import Metrics
from bot.web.app import WebApp, build_web, upkeep
from bot.work_process import Launch, Remember, Shared, WorkProcess, hosted, reach
from bot.workspace.repo_cache import RepoCache
from bot.workspace.workspaces import Workspaces
from tools.tanka.base_tree import BaseTrees
from tools.tanka.diff.revision import RevisionDiffer

if TYPE_CHECKING:
    from bot.mcp.hub import McpHub

log = logging.getLogger(__name__)


@dataclass
class Service:
    """A built service: what `serve` starts and stops, and what tests drive."""

    svc: Services
    runner: Runner
    dispatcher: Dispatcher
    bolt: App
    readiness: Readiness
    maintenance: CacheMaintenance
    reaper: Reaper
    schedulers: list[BackgroundScheduler] = field(default_factory=list)
    more_maintenance: list[CacheMaintenance] = field(default_factory=list)  # other channels' repos
    mcp: McpHub | None = None  # TANKA_BOT_MCP_CONFIG's servers, stopped with the service
    on_event: OnEvent | None = None  # the events listener, called by the HTTP edge directly
    state: Shared | None = None  # the store and what beside it a work process shares
    host: Host | None = None  # without Redis, `state` served to the work process

    def start_jobs(self, *, sweep_interval: float, work: bool = True) -> None:
        """Start the background jobs; `work=False` (the serving process of a replica whose turns
        run in a work process, bot.work_process): only the audit log's writer."""
        self.svc.audit.start()
        if not work:
            return
        self.runner.admission.start()
        self.maintenance.start()
        for maintenance in self.more_maintenance:
            maintenance.start()
        scheduler = BackgroundScheduler()
        scheduler.add_job(self.reaper.sweep, "interval", seconds=sweep_interval, id="session-sweep",
                          max_instances=1, coalesce=True)  # fmt: skip
        # Holds of pull requests whose merge or close webhook was lost (bot.runtime.guard_holds).
        scheduler.add_job(guard_holds.check, "interval", args=[self.runner.threads],
                          seconds=sweep_interval, id="hold-check", max_instances=1,
                          coalesce=True)  # fmt: skip
        scheduler.start()
        self.schedulers.append(scheduler)

    def problem(self) -> str | None:
        """Why the service should not get traffic now (/readyz), or None."""
        return self.readiness.problem()

    def notes(self) -> str:
        return self.readiness.notes()

    def metrics(self) -> bytes:
        return self.svc.metrics.render()

    def stop(self, timeout: float) -> bool:
        """Stop taking work and let running turns finish (up to `timeout` s)."""
        started = time.monotonic()
        drained = self.runner.admission.stop(timeout)
        finished = self.dispatcher.shutdown(max(0.0, timeout - (time.monotonic() - started)))
        finished = finished and drained
        for scheduler in self.schedulers:
            scheduler.shutdown(wait=False)
        self.maintenance.shutdown()
        for maintenance in self.more_maintenance:
            maintenance.shutdown()
        self.svc.audit.close()
        self.svc.store.close()
        if self.mcp is not None:
            self.mcp.close()
        return finished


def _identity(client: WebClient) -> tuple[str, str]:
    try:
        data = client.auth_test().data
    except SlackApiError as exc:
        error = exc.response.get("error", "unknown_error")
        raise ConfigError(
            [f"SLACK_BOT_TOKEN: Slack refused the token ({error}); set a valid bot token"]
        ) from None
    except (SlackClientError, OSError) as exc:
        reason = type(exc).__name__
        raise ConfigError(
            [f"TANKA_BOT_SLACK_API_URL: Slack could not be reached ({reason}); check the URL"]
        ) from None
    if not isinstance(data, dict):
        raise ConfigError(["TANKA_BOT_SLACK_API_URL: auth.test answered with no JSON object"])
    return str(data.get("user_id", "")), str(data.get("bot_id", ""))


def build_service(
    settings: Settings,
    *,
    socket_mode: bool = False,
    provider_factory: Callable[[Settings], LLMProvider] = build_provider,
    backlog: int = 64,
    busy: Count | None = None,
    turns: bool = True,
    shared: Shared | None = None,
) -> Service:
    """`busy`: the count of running requests, shared with the serving process when this is a
    work process; `turns=False`: the serving process of one (bot.work_process), which runs no
    turns, so it builds no agent (no model SDK, tool or MCP server is loaded; `missing_for_serve`
    has checked the provider's settings all the same); `shared`: the serving process's state,
    as a work process without Redis reaches it."""
    settings.require(settings.missing_for_serve(socket_mode=socket_mode))
    metrics = Metrics()
    client = web_client(_secret(settings.slack_bot_token), settings.slack_api_url)
    bot_user_id, bot_id = _identity(client)
    chat = SlackChatClient(client)
    state = shared or _state(settings)
    store = state.store
    token = settings.github_token
    credentials = TokenCredentials(token.get_secret_value) if token is not None else None

    def make_cache(url: str) -> RepoCache:
        return RepoCache(settings.workdir, url, credentials=credentials)

    cache = make_cache(settings.repo_url or "")
    hub = mcp_hub(settings, on_call=metrics.observe_mcp) if turns else None
    agent = build_agent(settings, provider_factory(settings), hub) if turns else None
    # persist: base renders prepared by the cache maintenance (and by any replica or `tk diff`
    # sharing the workdir) are read from disk.
    differ = RevisionDiffer(trees=BaseTrees(settings.workdir / "base-trees"), persist=True)

    def code_host_for(target: Settings) -> Callable[[], Any]:
        def code_host() -> Any:
            return build_code_host(target)

        return code_host

    audit = Audit(
        state.audit, on_drop=metrics.audit_dropped.inc,
        # The web view's history, recorded through the audit writer (bot.telemetry.history);
        # only with the view: turned on later, it starts from the sessions stored (migrated).
        history=Recorder(state.history) if state.history is not None else None,
    )  # fmt: skip

    svc = Services(
        settings=settings,
        store=store,
        chat=chat,
        workspaces=Workspaces(
            cache, store, base_branch=settings.base_branch, ttl=settings.session_ttl
        ),
        agent=agent,
        differ=differ,
        metrics=metrics,
        groups=GroupCache(chat.group_members),
        code_host=code_host_for(settings),
        pull_requests=None,
        bot_user_id=bot_user_id,
        # Unique per process start: a container restarted in its pod keeps its host name and,
        # under tini, its pid; the new process must not pass for the dead one, whose taken
        # requests and thread leases the others recover (bot.runtime.admission, lease).
        replica=f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(3)}",
        lock_ttl=settings.lease_ttl,
        audit=audit,
        guards=state.guards,
    )
    channels = Channels(svc, make_cache=make_cache, code_host=code_host_for)
    dispatcher = Dispatcher(settings.workers, backlog, on_depth=metrics.queued.set)
    runner = Runner(svc, dispatcher, channels, busy=busy)
    bolt = App(
        client=client,
        signing_secret=(settings.slack_signing_secret.get_secret_value()
                        if settings.slack_signing_secret else None),
        request_verification_enabled=not socket_mode,
        token_verification_enabled=False,  # auth.test was called above, with a clear error
        # The listeners triage and queue before the ack (bot.runtime.edge), so a request is
        # durable before Slack is told it arrived; slow work runs on the workers.
        process_before_response=True,
    )  # fmt: skip
    on_event = register(bolt, runner, svc, bot_id=bot_id)
    slack_interactive.register(bolt, runner, svc)  # buttons, the new-env modal, the shortcut
    # One maintenance job per repository; the first (the default repository's) answers
    # readiness, and the others (channels with their own repository) are checked too.
    jobs = [
        CacheMaintenance(c, base_branch=branch, prepare=_preparer(differ))
        for c, branch in channels.caches()
    ]
    if not jobs:  # pragma: no cover - missing_for_serve requires some repository
        raise ConfigError(["TANKA_BOT_REPO_URL: required by serve; set the repository URL"])
    readiness = Readiness(store=store, cache=jobs[0].cache, maintenance=jobs[0], more=jobs[1:])
    if hub is not None:
        readiness.degraded = hub.problems
    reaper = Reaper(svc, wake=runner.wake)
    return Service(svc, runner, dispatcher, bolt, readiness, jobs[0], reaper,
                   more_maintenance=jobs[1:], mcp=hub, on_event=on_event,
                   state=state)  # fmt: skip


def _state(settings: Settings) -> Shared:
    """What a replica keeps: in Redis when it is set, else in this process's memory."""
    redis_url = settings.redis_url.get_secret_value() if settings.redis_url else None
    store = build_store(redis_url)
    audit = build_audit_store(redis_url, settings.workdir, retention=settings.audit_retention,
                              max_events=settings.audit_max_events)  # fmt: skip
    history = build_history(store, days=settings.history_days) if settings.web_url else None
    return Shared(store, build_guard_store(store), audit, history)


def start_work(
    settings: Settings, *, socket_mode: bool, sweep_interval: float, busy: Count, heard: Stamp,
    on_index: Callable[[str, str, ThreadKey, float], None], state: Address | None = None,
) -> Service:  # fmt: skip
    """The work process's service (bot.work_process): built over the serving process's
    `state` (without Redis), telling `on_index` of each bot message it indexes (with), with its
    jobs started (the work queue, the caches, the sweep)."""
    shared = reach(state, history=bool(settings.web_url)) if state is not None else None
    service = build_service(settings, socket_mode=socket_mode, busy=busy, shared=shared)
    service.runner.admission.heard = heard  # the serving process's acks
    store = service.svc.store
    if settings.redis_url:
        from bot.store.redis import RedisStore  # noqa: PLC0415 - only with a durable queue

        if isinstance(store, RedisStore):
            store.on_index = on_index
    service.start_jobs(sweep_interval=sweep_interval)
    return service


def _forget(_channel: str, _ts: str, _key: ThreadKey, _deadline: float) -> None:
    """No store memory to teach (only a RedisStore keeps one)."""


def _preparer(differ: RevisionDiffer) -> Callable[[Path, str, bool], int]:
    def prepare(repository: Path, commit: str, render: bool) -> int:
        return differ.prepare_base(repository, commit, render=render)

    return prepare


def _sweep_interval(settings: Settings) -> float:
    return min(max(settings.session_ttl / 4, 10.0), 300.0)


def build_serving(
    settings: Settings, *, socket_mode: bool, log_level: int = logging.INFO
) -> tuple[Service, WorkProcess]:
    """What `serve` serves: the service, and the work process that runs its turns (not started
    yet), to which this one, building no agent, leaves them. Without Redis this one keeps the
    state both use and serves it to the work process (bot.store.remote)."""
    service = build_service(settings, socket_mode=socket_mode, turns=False)
    launch = Launch(settings, socket_mode, _sweep_interval(settings), log_level, start_work)
    remember: Remember = _forget
    if settings.redis_url:  # set and not empty, as build_store reads it
        from bot.store.redis import RedisStore  # noqa: PLC0415 - only with a durable queue

        store = service.svc.store  # a RedisStore: build_store read the same setting
        if isinstance(store, RedisStore):  # triage here drops replies in people's threads
            remember = store.remember
            store.follow_sessions()  # without a round trip each
    elif service.state is not None:
        service.host = hosted(service.state)
        service.host.start()
        launch = replace(launch, state=service.host.address)
    worker = WorkProcess(launch, remember=remember)
    service.runner.admission.busy = worker.busy
    service.runner.admission.heard = worker.heard
    service.readiness.worker = worker
    service.svc.metrics.more = worker.metrics
    return service, worker


def serve(
    settings: Settings, *, host: str, port: int, socket_mode: bool, log_level: int = logging.INFO
) -> int:
    """Run until SIGTERM or SIGINT; then finish running turns (up to the turn timeout).

    The turns run in a work process (bot.work_process) and this one serves HTTP (or the
    socket) and queues. Without Redis this process keeps the state both use (the store, the
    guardrails' records, the audit log, the history) and serves it to the work process.
    """
    from waitress.server import create_server  # noqa: PLC0415 - only the transport the settings choose is loaded

    service, worker = build_serving(settings, socket_mode=socket_mode, log_level=log_level)
    worker.start()
    service.start_jobs(sweep_interval=_sweep_interval(settings), work=False)
    # Everything loaded so far (the SDKs, the Tanka engine, the settings) lives as long as the
    # process: move it out of the collector's sight, so a full collection, which otherwise walks
    # every one of those objects while holding the GIL, cannot stall acks by hundreds of ms.
    gc.collect()
    gc.freeze()
    app = wsgi_app(service, socket_mode=socket_mode, github=github_webhook(service),
                   alerts=alert_webhook(service))  # fmt: skip
    # A body over the limit is answered 413 before it is read (bot.inbound.http.MAX_BODY).
    server = create_server(app, host=host, port=port, threads=16, ident="tanka-bot",
                           max_request_body_size=SERVER_MAX_BODY)  # fmt: skip
    socket_handler = None
    if socket_mode:
        from bot.inbound.slack_socket import CheckedSocketModeHandler  # noqa: PLC0415 - only the transport the settings choose is loaded

        socket_handler = CheckedSocketModeHandler(
            service.bolt, _secret(settings.slack_app_token), service.svc.metrics
        )
        socket_handler.connect()  # type: ignore[no-untyped-call]
    stopping = threading.Event()

    def stop(signum: int, _frame: object) -> None:
        if stopping.is_set():
            return
        stopping.set()
        log.info("signal %d: no new work; finishing running turns", signum)
        threading.Thread(target=server.close, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    log.info(
        "tanka-bot serving on %s:%d (%s)", host, port, "socket mode" if socket_mode else "HTTP"
    )
    try:
        server.run()
    except OSError:
        if not stopping.is_set():
            raise
    if socket_handler is not None:
        socket_handler.close()  # type: ignore[no-untyped-call]
    started = time.monotonic()
    finished = worker.stop(settings.turn_timeout)
    finished = service.stop(max(0.0, settings.turn_timeout - (time.monotonic() - started))) and (
        finished
    )
    if service.host is not None:
        service.host.close()
    log.info(
        "stopped (%s)", "all turns finished" if finished else "turns still running were cut off"
    )
    return 0


def wsgi_app(service: Service, *, socket_mode: bool, github: Any, alerts: Any = None) -> HealthApp:
    """What waitress serves: health, readiness, metrics, and (HTTP mode) Slack's requests behind
    the signature and envelope gates; `github` and `alerts` are the webhook apps or None."""
    slack = None if socket_mode else _verified(SlackRequestHandler(service.bolt), service)
    return HealthApp(service.readiness, service.svc.metrics, slack=slack, github=github,
                     alerts=alerts, web=web_view(service))  # fmt: skip


def web_view(service: Service) -> WebApp | None:
    """The /ui/ app (bot.web), or None (404) when TANKA_BOT_WEB_URL is unset."""
    settings, recorder = service.svc.settings, service.svc.audit.history
    if recorder is None:  # no TANKA_BOT_WEB_URL: no history is kept, and /ui/ answers 404
        return None
    redis_url = settings.redis_url.get_secret_value() if settings.redis_url else None
    reader = build_audit_store(redis_url, settings.workdir, retention=settings.audit_retention,
                               max_events=settings.audit_max_events)  # fmt: skip
    store = service.svc.store
    return build_web(settings, store=store, history=recorder.history, audit=reader,
                     slack=service.bolt.client, registry=service.svc.metrics.registry,
                     maintain=lambda: upkeep(store, recorder))  # fmt: skip


def github_webhook(service: Service) -> Any:
    """The `POST /github/webhook` app, or None (404) when GITHUB_WEBHOOK_SECRET is unset."""
    secret = service.svc.settings.github_webhook_secret
    if secret is None or not secret.get_secret_value():
        return None
    return WebhookReceiver(secret.get_secret_value(), service.svc.store, service.svc.metrics,
                           service.runner.enqueue_github)  # fmt: skip


def alert_webhook(service: Service) -> Any:
    """The `POST /alerts/alertmanager` app, or None (404) when TANKA_BOT_ALERTS_TOKEN is unset."""
    token = service.svc.settings.alerts_token
    if token is None or not token.get_secret_value():
        if service.svc.settings.teams.alert_routes:
            log.warning("alert_routes are set but TANKA_BOT_ALERTS_TOKEN is not: "
                        "/alerts/alertmanager answers 404 until it is")  # fmt: skip
        return None
    return AlertReceiver(
        token.get_secret_value(), service.svc.metrics, service.runner.enqueue_alert
    )


def _verified(handler: SlackRequestHandler, service: Service) -> Any:
    secret = _secret(service.svc.settings.slack_signing_secret)
    metrics = service.svc.metrics
    envelope = EnvelopeGate(handler, metrics, events=service.on_event, event_types=EVENT_TYPES)
    return SignatureGate(envelope, secret, metrics)


def _secret(value: SecretStr | None) -> str:
    # Settings.missing_for_serve has already refused a missing one; this keeps types honest.
    if value is None:
        raise ConfigError(["a required secret is not set; see the README's configuration table"])
    return value.get_secret_value()
