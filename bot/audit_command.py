"""`tanka-bot audit [--since ISO_TIME] [--thread THREAD_TS] [--json]`: print the audit log.

Reads where `serve` writes (the Redis stream with `REDIS_URL`, else the JSON-lines files under
`TANKA_BOT_WORKDIR`), oldest first: a line per event, or the events as JSON lines.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from typing import Any, TextIO

from bot.errors import UserError
from bot.store.base import StoreUnavailable
from bot.telemetry.audit import build_audit_store
from bot.telemetry.audit_log import Event


def add_parser(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "audit", help="print the audit log: sessions, approvals, pull requests"
    )
    since = "only events at or after this time (UTC unless it names a zone)"
    parser.add_argument("--since", metavar="ISO_TIME", help=since)
    parser.add_argument("--thread", metavar="THREAD_TS", help="only this thread's events")
    parser.add_argument("--json", action="store_true", help="JSON lines, one event each")
    parser.set_defaults(handler=run)


def parse_since(text: str) -> float:
    try:
        when = datetime.fromisoformat(text.strip())
    except ValueError:
        raise UserError(
            f"--since {text!r} is not an ISO 8601 time; use e.g. 2025-01-31 or 2025-01-31T09:30:00Z"
        ) from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.timestamp()


def line(event: Event) -> str:
    """`TIME CHANNEL THREAD USER EVENT key=value ...` (values as compact JSON)."""
    details = event.get("details")
    pairs = (
        " ".join(
            f"{k}={json.dumps(v, ensure_ascii=False, separators=(',', ':'))}"
            for k, v in details.items()
        )
        if isinstance(details, dict)
        else ""
    )
    head = [str(event.get(k) or "-") for k in ("time", "channel", "thread", "user", "event")]
    return " ".join(head) + (f" {pairs}" if pairs else "")


def run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    from bot.config import load_settings  # noqa: PLC0415 - start-up: pydantic-settings, 0.25 s; cli builds this parser for --help too

    out = out or sys.stdout
    settings = load_settings()
    since = parse_since(args.since) if args.since else None
    redis_url = settings.redis_url.get_secret_value() if settings.redis_url else None
    store = build_audit_store(redis_url, settings.workdir, retention=settings.audit_retention,
                              max_events=settings.audit_max_events)  # fmt: skip
    try:
        for event in store.read(since=since, thread=args.thread):
            out.write((json.dumps(event, ensure_ascii=False) if args.json else line(event)) + "\n")
    except StoreUnavailable as exc:
        raise UserError(f"the audit log cannot be read: {exc}; check REDIS_URL") from None
    finally:
        store.close()
    return 0
