"""Every regex run on text from outside (Slack, GitHub, the model, a repository) is linear.

Python's `re` backtracks, and a pattern as plain as `[a-z][a-z0-9+.-]*://` is quadratic in a run
of letters: 40,000 of them in a mention stalled the service for 8 s. Time is not what these tests
measure. The work is bounded by construction, and the tests check the construction:

- every compiled pattern the modules below keep is RE2's (google-re2: linear in the text for any
  pattern), or one of the few Python patterns listed with why it is linear (anchored, or one
  character class run);
- every scrubber and parser is fed 50,000-character runs of each character class (letters,
  digits, `:`, `/`, `@`, `.`, `-`, spaces, `%`, `=`, line breaks and a few shapes the patterns
  look for), while every pattern Python's `re` compiles or runs from inside them is recorded: each
  must be on that list too. Their results are checked as well, so a scrubber cannot pass by
  giving up on long text.
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from bot.agent.review import parse_review
from bot.chat.command import _URL
from bot.domain.commands import is_cancel, is_rebase, parse_slash
from bot.domain.requests import Mention
from bot.inbound.slack_payloads import Ignored, mentions, parse_event, strip_mentions
from tools import linear_re
from tools.jb.deps import parse_git
from tools.jb.errors import JbError
from tools.linear_re import SPACE, is_linear
from tools.redaction import SecretMask, scrub_credentials
from tools.redaction.credentials import has_url_userinfo
from tools.sandbox import glob_match
from tools.tanka.env.versions import satisfies
from tools.tanka.natives.helm_lib import _stream
from tools.tanka.natives.snakecase import snakecase

RUN = 50_000
UNITS = {
    "letters": "a",
    "capitals": "A",
    "digits": "1",
    "colons": ":",
    "slashes": "/",
    "ats": "@",
    "dots": ".",
    "dashes": "-",
    "spaces": " ",
    "percents": "%",
    "equals": "=",
    "newlines": "\n",
    "blank lines": " \n",
    "schemes": "a://",
    "mentions": "<@UA|",
    "token keys": "'token' ",
    "token shapes": "ghp_",
    "camel": "AB",
    "separators": "---\n",
    "jb hosts": "github.com/",
    "ssh URIs": "ssh://git@a/b",
    "versions": "1.2 ",
}

# Modules that run regexes on text from outside; their compiled patterns are checked.
MODULES = (
    "tools.redaction.credentials",
    "tools.redaction.mask",
    "tools.redaction.literals",
    "tools.sandbox",
    "tools.gitrun",
    "bot.inbound.slack_payloads",
    "bot.slack.masking",
    "bot.domain.commands",
    "bot.agent.review",
    "bot.chat.command",
    "bot.inbound.github_webhook",
    "bot.github.repo_slug",
    "tools.jb.deps",
    "tools.tanka.natives.helm_lib",
    "tools.tanka.natives.exec",
    "tools.tanka.export.template",
    "tools.tanka.natives.snakecase",
    "tools.tanka.env.versions",
)
ANCHORED = "anchored at both ends, a class run or bounded repeats: one pass"
# Python patterns allowed in those modules, and why each is linear.
LINEAR_UNDER_RE = {
    r"^\d{1,12}\.\d{1,9}$": ANCHORED,
    r"^[CDG][A-Z0-9]{2,}$": ANCHORED,
    r"^[UW][A-Z0-9]{2,}$": ANCHORED,
    r"^[a-z0-9]([a-z0-9._-]{0,62})?(/[a-z0-9]([a-z0-9._-]{0,62})?){0,3}$": ANCHORED,
    r"^[A-Za-z0-9_.-]+$": ANCHORED,
    r"^(?:[^@/\s]+@)?(?P<host>[^:/\s]+):(?P<path>[^/].*)$": "anchored; each run is given back "
    "once (settings, not messages)",
    r"^[A-Za-z]:": ANCHORED,
    r"^-|[\x00-\x20\x7f~^:?*\[\\]|\.\.|@\{": "single characters or two-character tokens",
    r"_+": "one class run: each character is looked at once",
    r"^kind:\s*['\"]?([^'\"\s#]+)": "starts only at a line beginning with `kind:`",
    (
        r"^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?"
        r"(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$"
    ): ANCHORED,
    r'\s*(?:(?P<str>"(?:[^"\\]|\\.)*"|`[^`]*`)|(?P<num>-?[0-9][0-9.eE+-]*)|(?P<punct>[|()])'
    r"|(?P<field>(?:\.[A-Za-z0-9_]+)+)"
    r"|(?P<word>[A-Za-z_][A-Za-z0-9_]*|\.)(?P<chain>(?:\.[A-Za-z0-9_]+)*))": "tokenises the "
    "--format template a person gives on the command line, from one position",
}


def _literal_trie(pattern: str) -> bool:
    """tools.redaction.literals' prefix tree of secret values: at each position it is matched at
    most as deep as the longest value (a line break inside a value runs to the end of one run of
    blanks), so the work is the text's length times the longest value's."""
    return "(?:" in pattern or re.escape(pattern) == pattern or "\\n[-+ ]?[ \\t]*" in pattern


def test_spelled_out_space_is_pythons() -> None:
    spaces = "".join(c for c in map(chr, range(sys.maxunicode + 1)) if c.isspace())
    assert "".join(c for c in spaces if linear_re.compile(SPACE).match(c)) == spaces
    assert linear_re.compile(SPACE).match("x") is None


@pytest.mark.parametrize("name", MODULES)
def test_modules_keep_only_linear_patterns(name: str) -> None:
    module = importlib.import_module(name)
    for attr, value in vars(module).items():
        for pattern in value if isinstance(value, tuple) else (value,):
            if isinstance(pattern, re.Pattern):
                assert pattern.pattern in LINEAR_UNDER_RE, f"{name}.{attr}: {pattern.pattern}"
            else:
                compiled = hasattr(pattern, "finditer") and hasattr(pattern, "pattern")
                assert not compiled or is_linear(pattern), f"{name}.{attr}"


class Recorder:
    """Every pattern Python's re compiles or looks up while installed (re.sub(...), re.compile,
    ...: all go through re._compile), with the module that asked."""

    def __init__(self) -> None:
        self.seen: set[tuple[str, str]] = set()

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        original = re._compile  # type: ignore[attr-defined]

        def compile_(pattern: Any, flags: Any) -> Any:
            caller = sys._getframe(2).f_globals.get("__name__", "?")
            self.seen.add((caller, str(pattern)))
            return original(pattern, flags)

        monkeypatch.setattr(re, "_compile", compile_)

    def unlisted(self) -> list[tuple[str, str]]:
        return sorted(
            (caller, pattern)
            for caller, pattern in self.seen
            if pattern not in LINEAR_UNDER_RE
            and not (caller == "tools.redaction.literals" and _literal_trie(pattern))
        )


def runs() -> Iterator[tuple[str, str]]:
    for name, unit in UNITS.items():
        yield name, (unit * (RUN // len(unit) + 1))[:RUN]


MASK_VALUES = ("dummy-db-password-7Hq2", "a multi word value", "aaaa", "----", "1111")


def _mention(text: str) -> Any:
    event = {"type": "app_mention", "text": f"<@U0BOT> {text}", "user": "U0ALICE",
             "channel": "C0CHAN", "ts": "1700000000.000100"}  # fmt: skip
    return parse_event(event, bot_user_id="U0BOT")


def _constraint(text: str) -> object:
    try:
        return satisfies((0, 38, 0), text)
    except ValueError as exc:  # refused as tk refuses it, after the match
        return exc


def _jb_uri(text: str) -> object:
    try:
        return parse_git(text)
    except JbError as exc:  # a URI whose vendor path jb refuses: refused, after the match
        return exc


# Each scrubber or parser, and what it must still do with the run.
SCRUBBERS: dict[str, Callable[[str], object]] = {
    "scrub_credentials": lambda t: scrub_credentials(t, ["not-in-the-run"]),
    "has_url_userinfo": has_url_userinfo,
    "SecretMask.apply": SecretMask(MASK_VALUES).apply,
    "strip_mentions": lambda t: strip_mentions(t, "U0BOT"),
    "mentions": lambda t: mentions(t, "U0BOT"),
    "parse_event (mention)": _mention,
    "parse_slash": parse_slash,
    "parse_slash new-env": lambda t: parse_slash(f"new-env {t.replace(' ', '_')} do it"),
    "is_cancel": is_cancel,
    "is_rebase": is_rebase,
    "parse_review": parse_review,
    "helm stream": lambda t: _stream({"c/templates/a.yaml": t}, [], {}),
    "snakecase": snakecase,
    "glob_match (path)": lambda t: glob_match("**a" * 8 + "**b", t),
    "glob_match (pattern)": lambda t: glob_match(t[:4000], "a" * 200),
    "chat --repo URL": _URL.match,
    "jb package URI": _jb_uri,
    "expectVersions.tanka": lambda t: _constraint(t + "!"),
}


@pytest.mark.parametrize("scrubber", SCRUBBERS)
def test_long_runs_of_every_class_meet_only_linear_patterns(
    scrubber: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorder = Recorder()
    recorder.install(monkeypatch)
    for run_name, text in runs():
        result = SCRUBBERS[scrubber](text)
        _check_result(scrubber, run_name, text, result)
    assert recorder.unlisted() == []


def _check_result(scrubber: str, run_name: str, text: str, result: object) -> None:
    """What each must still get right on a long run (it did not give up, or cut the text)."""
    where = f"{scrubber} on {run_name}"
    if scrubber == "scrub_credentials" and run_name == "ssh URIs":
        assert isinstance(result, str), where
        assert result.startswith("ssh://<redacted>@a/b"), where
        assert result.count("<redacted>") == text.count("@"), where
    elif scrubber == "scrub_credentials":
        expected = text if run_name != "token shapes" else "<redacted>"
        assert result == expected, where
    elif scrubber == "has_url_userinfo":
        assert result is (run_name == "ssh URIs"), where
    elif scrubber in ("mentions", "is_cancel", "is_rebase"):
        assert result is False, where
    elif scrubber == "SecretMask.apply":
        masked = run_name in ("letters", "dashes", "digits")
        assert result == ("<redacted>" if masked else text), where
    elif scrubber == "parse_event (mention)":
        assert isinstance(result, Mention | Ignored), where
        if isinstance(result, Mention):
            assert len(result.text) >= len(text.strip()) - 1, where
    elif scrubber == "expectVersions.tanka":
        assert isinstance(result, ValueError), where
    elif scrubber == "parse_review":
        assert result == ("unclear", text.strip()), where
    elif scrubber == "snakecase" and run_name == "camel":
        assert result == "ab" * (RUN // 2), where  # lower-cased to the end
