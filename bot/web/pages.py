"""The pages: Jinja2 templates in bot/web/templates, autoescaped, and the view's stylesheet.

Everything a template prints is escaped (autoescape on, for every template), so text from Slack,
GitHub, the repository or the model shows as text. Diffs are shown line by line, each line
classed as added, removed, a hunk header or context, never as markup.
"""

from __future__ import annotations

import time
from importlib.resources import files
from typing import Any

from jinja2 import (
    ChainableUndefined,
    Environment,
    PackageLoader,
    Undefined,
    select_autoescape,
)

from tools import linear_re

STYLESHEET = files("bot.web").joinpath("static/style.css").read_bytes()

# Slack's markup in texts the bot wrote for a thread (who must approve, the checks' first line):
# a person or group mention reads as its id, the status emoji as the sign Slack would draw.
_MENTION = linear_re.compile(r"<[@!](?:subteam\^)?([A-Z0-9]+)(?:\|[^<>]*)?>")
_EMOJI = {":x:": "✗", ":white_check_mark:": "✓", ":warning:": "⚠"}


def diff_lines(text: str) -> list[tuple[str, str]]:
    """Each line of a unified diff with its class: add, del, hunk, meta or ctx."""
    out = []
    for line in (text or "").splitlines():
        if line.startswith(("+++", "---", "diff ", "index ")):
            kind = "meta"
        elif line.startswith("+"):
            kind = "add"
        elif line.startswith("-"):
            kind = "del"
        elif line.startswith("@@"):
            kind = "hunk"
        else:
            kind = "ctx"
        out.append((kind, line))
    return out


def slack_text(text: Any) -> str:
    """`text` without Slack's markup: `<@U0BOB>` reads `@U0BOB`; the status emoji as signs. The
    result is plain text, escaped by the template like any other."""
    plain = _MENTION.sub(lambda m: f"@{m.group(1)}", str(text or ""))
    for code, sign in _EMOJI.items():
        plain = plain.replace(code, sign)
    return plain


def when(seconds: Any) -> str:
    if isinstance(seconds, Undefined):
        return ""
    try:
        value = float(seconds)
    except (TypeError, ValueError):
        return str(seconds or "")
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(value)) if value else ""


def first_line(text: Any, limit: int = 120) -> str:
    line = str(text or "").strip().split("\n", 1)[0]
    return line if len(line) <= limit else line[: limit - 1] + "…"


def thread_link(workspace_url: str, channel: str, ts: str) -> str:
    """A message's permalink as Slack builds them (no Web API call per session)."""
    base = workspace_url if workspace_url.endswith("/") else workspace_url + "/"
    return f"{base}archives/{channel}/p{ts.replace('.', '')}"


class Pages:
    def __init__(self) -> None:
        self.env = Environment(
            loader=PackageLoader("bot.web", "templates"),
            autoescape=select_autoescape(default=True, default_for_string=True),
            # History rows written by older versions may lack a field: it shows as nothing.
            undefined=ChainableUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
        )
        self.env.filters.update(
            diff_lines=diff_lines, when=when, first_line=first_line, slack_text=slack_text
        )
        self.env.globals.update(thread_link=thread_link)

    def render(self, name: str, **context: Any) -> bytes:
        return self.env.get_template(name).render(**context).encode()
