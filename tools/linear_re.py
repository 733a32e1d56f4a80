"""Regexes for text from outside (Slack, GitHub, the model, a repository's output): RE2, linear.

Python's `re` backtracks. `[a-z][a-z0-9+.-]*://` searched in a run of 40,000 letters tries every
start and scans the rest of the run from each: 8 seconds, during which the process answered
nothing. RE2 (google-re2) matches in time linear in the text whatever the pattern, and refuses
what it cannot do so (backreferences, lookarounds) when the pattern is compiled. Every pattern run
on such text is compiled here, and tests/property/test_linear_regex.py holds each module to it.

RE2's `\\s`, `\\d`, `\\w` and `\\b` are ASCII. A pattern that must keep matching what it matched
under `re` writes `SPACE` (Python's `\\s` on str, spelled out) instead of `\\s`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Protocol, cast

import re2  # type: ignore[import-untyped]

# Python's `\s` on str: the characters for which str.isspace() is true.
SPACE = (
    r"[\t\n\x0b\x0c\r\x1c-\x1f \x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}"
    r"\x{205f}\x{3000}]"
)


class Match(Protocol):
    def group(self, *names: int | str) -> Any: ...
    def groupdict(self) -> dict[str, Any]: ...
    def span(self, group: int | str = 0) -> tuple[int, int]: ...
    def start(self, group: int | str = 0) -> int: ...
    def end(self, group: int | str = 0) -> int: ...
    def __getitem__(self, name: int | str) -> Any: ...


class Pattern(Protocol):
    @property
    def pattern(self) -> str: ...
    def search(self, text: str | bytes, pos: int = 0) -> Match | None: ...
    def match(self, text: str, pos: int = 0) -> Match | None: ...
    def finditer(self, text: str) -> Iterator[Match]: ...
    def sub(self, repl: str | Callable[[Match], str], text: str, count: int = 0) -> str: ...
    def split(self, text: str) -> list[str]: ...


error = re2.error  # what compile raises for a pattern RE2 refuses


def _options() -> Any:
    options = re2.Options()
    options.log_errors = False
    return options


OPTIONS = _options()  # RE2's, for every compile in tools (tools.tanka.natives.regex too)
# regopy's library (tk check's Rego) and RE2 share some lazily built state: once a Rego policy has
# run, RE2's first case-insensitive compile corrupts the heap. Building RE2's case-folding state
# at import, before any policy runs, avoids it (tools/tanka/check/rego.py imports
# tools.tanka.natives.regex, which imports this module, before regopy;
# tests/unit/tanka/test_go_regexp.py checks the order).
re2.compile("(?i)a", OPTIONS)


def compile(pattern: str, *, max_mem: int | None = None) -> Pattern:
    """`pattern` compiled by RE2 (flags inline: `(?i)`, `(?m)`, `(?s)`); re2.error when RE2
    cannot match it in linear time, or not within `max_mem` bytes (RE2's default: 8 MiB)."""
    if max_mem is None:
        return cast(Pattern, re2.compile(pattern, OPTIONS))
    options = _options()
    options.max_mem = max_mem
    return cast(Pattern, re2.compile(pattern, options))


def is_linear(pattern: object) -> bool:
    """Whether `pattern` is a compiled RE2 pattern (what the property test checks modules for)."""
    return isinstance(pattern, re2._Regexp)
