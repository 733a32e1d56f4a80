"""Go regexp (RE2) semantics for escapeStringRegex, regexMatch and regexSubst, on Python's re.

Python's re is a superset of RE2's syntax with a few differences that matter here: RE2 refuses
backreferences and lookarounds (re accepts them), `$` without (?m) means end of text only (re also
matches before a final newline), `\\z` is RE2's end of text, `(?<name>...)` is RE2's other group
syntax. Patterns are translated and RE2-only refusals reported with Go's error words.
ReplaceAllString's template language (`$1`, `${name}`, `$$`) and its rule that an empty match
right after a previous match is not replaced are implemented here too.
"""

from __future__ import annotations

import re
from functools import lru_cache

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


def _expand(template: str, match: re.Match[str]) -> str:
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


def _group(match: re.Match[str], name: str) -> str:
    if name.isdigit() and name.isascii():
        index = int(name)
        if index <= (match.re.groups or 0):
            return match.group(index) or ""
        return ""
    if name in match.re.groupindex:
        return match.group(name) or ""
    return ""


@lru_cache(maxsize=512)
def compile_go(regex: str) -> re.Pattern[str]:
    """Compile an RE2 pattern; NativeError with Go's `error parsing regexp: ...` on refusal."""
    translated = _translate(regex)
    try:
        return re.compile(translated)
    except re.error as exc:
        raise NativeError(f"error parsing regexp: {exc.msg}: `{regex}`") from None


def _translate(regex: str) -> str:
    multiline = bool(re.match(r"\(\?[a-zA-Z]*m", regex))
    out: list[str] = []
    i, in_class = 0, False
    while i < len(regex):
        ch = regex[i]
        if ch == "\\" and i + 1 < len(regex):
            out.append(_escape(regex[i : i + 2], in_class))
            i += 2
            continue
        if in_class:
            in_class = ch != "]" or out[-1] == "["
        elif ch == "[":
            in_class = True
        elif ch == "(" and regex.startswith(("(?=", "(?!", "(?<=", "(?<!"), i):
            width = 4 if regex[i + 2] == "<" else 3
            shown = regex[i : i + width]
            raise NativeError(
                f"error parsing regexp: invalid or unsupported Perl syntax: `{shown}`"
            )
        elif ch == "(" and regex.startswith("(?<", i):
            out.append("(?P<")
            i += 3
            continue
        elif ch == "$" and not multiline:
            out.append(r"\Z")
            i += 1
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _escape(pair: str, in_class: bool) -> str:
    letter = pair[1]
    if letter.isdigit() and letter != "0" and not in_class:
        raise NativeError(f"error parsing regexp: invalid escape sequence: `{pair}`")
    if letter == "z":
        return r"\Z"
    if letter == "Z":
        raise NativeError(f"error parsing regexp: invalid escape sequence: `{pair}`")
    return pair
