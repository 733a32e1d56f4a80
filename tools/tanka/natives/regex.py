"""Go regexp semantics for escapeStringRegex, regexMatch, regexSubst and -t targets, on RE2.

Go's regexp implements RE2's syntax and semantics, so patterns are compiled by RE2 itself
(google-re2): `\\d` and `\\w` are ASCII only, `[[:alpha:]]`, `\\pL`, `(?U)` and `\\Q...\\E` work,
`$` is the end of the text, backreferences and lookarounds are refused. A translation onto
Python's re diverged on each of those. Refusals are reported with Go's words for the same error.
ReplaceAllString's template language (`$1`, `${name}`, `$$`) and its rule that an empty match
right after a previous match is not replaced are implemented here.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import re2  # type: ignore[import-untyped]

from tools.linear_re import OPTIONS  # importing it builds RE2's state first (see there)
from tools.tanka.errors import NativeError

_META = frozenset("\\.+*?()|[]{}^$")
_NAME_CHAR = re.compile(r"[\w]")


def escape_string_regex(text: str) -> str:
    """Go's regexp.QuoteMeta: a backslash before each of `\\.+*?()|[]{}^$`, nothing else."""
    return "".join("\\" + ch if ch in _META else ch for ch in text)


def regex_match(regex: str, string: str) -> bool:
    return compile_go(regex).search(string) is not None


def regex_subst(regex: str, src: str, repl: str) -> str:
    """Go's Regexp.ReplaceAllString."""
    pattern = compile_go(regex)
    out: list[str] = []
    last_end = search = 0
    while search <= len(src):
        match = pattern.search(src, search)
        if match is None:
            break
        start, end = match.span()
        out.append(src[last_end:start])
        # Go skips an empty match immediately after the previous match.
        if end > last_end or start == 0:
            out.append(_expand(repl, match))
        last_end = end
        search = search + 1 if search + 1 > end else end
    out.append(src[last_end:])
    return "".join(out)


def _expand(template: str, match: Any) -> str:
    out: list[str] = []
    rest = template
    while "$" in rest:
        before, rest = rest.split("$", 1)
        out.append(before)
        if rest.startswith("$"):
            out.append("$")
            rest = rest[1:]
            continue
        parsed = _extract_name(rest)
        if parsed is None:
            out.append("$")  # malformed: the `$` is literal text
            continue
        name, rest = parsed
        out.append(_group(match, name))
    out.append(rest)
    return "".join(out)


def _extract_name(text: str) -> tuple[str, str] | None:
    brace = text.startswith("{")
    body = text[1:] if brace else text
    i = 0
    while i < len(body) and _NAME_CHAR.match(body[i]):
        i += 1
    if i == 0:
        return None
    if brace:
        if i >= len(body) or body[i] != "}":
            return None
        return body[:i], body[i + 1 :]
    return body[:i], body[i:]


def _group(match: Any, name: str) -> str:
    if name.isdigit() and name.isascii():
        index = int(name)
        if index <= (match.re.groups or 0):
            return match.group(index) or ""
        return ""
    if name in match.re.groupindex:
        return match.group(name) or ""
    return ""


# RE2's error texts (C++) -> Go regexp's words for the same errors (regexp/syntax ErrorCode).
_GO_WORDS = {
    "missing )": "missing closing )",
    "missing ]": "missing closing ]",
    "no argument for repetition operator": "missing argument to repetition operator",
    "invalid repetition size": "invalid repeat count",
    "invalid perl operator": "invalid or unsupported Perl syntax",
    "trailing \\": "trailing backslash at end of expression",
    "invalid named capture group": "invalid named capture",
    "bad repetition operator": "invalid nested repetition operator",
}


@lru_cache(maxsize=512)
def compile_go(regex: str) -> Any:
    """Compile with RE2 itself (Go's regexp is RE2): NativeError with Go's
    `error parsing regexp: <what>: `<where>`` when it is refused."""
    try:
        return re2.compile(regex, OPTIONS)
    except re2.error as exc:
        raise NativeError(f"error parsing regexp: {_go_words(exc, regex)}") from None


def _go_words(exc: Exception, regex: str) -> str:
    raw = exc.args[0] if exc.args else b""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    code, _, arg = text.partition(": ")
    if code == "trailing \\":
        return f"{_GO_WORDS[code]}: ``"
    if code in ("missing )", "missing ]"):
        arg = regex  # Go names the whole expression
    return f"{_GO_WORDS.get(code, code)}: `{arg}`"
