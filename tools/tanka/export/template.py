"""The subset of Go text/template (+ sprig) that `tk export --format` file names use.

Supported: text and `{{ pipeline }}` actions; field chains (`.metadata.name`, `.`); the `env`
function and its chains (`env.metadata.name`, `(env).spec.namespace`); string, number and bool
literals; pipes (`x | default "_cluster"`); parentheses; and the functions `or`, `and`, `not`,
`default`, `index`, `lower`, `upper`, `title`, `snakecase`, `kebabcase`, `replace`, `trim`,
`trimPrefix`, `trimSuffix`, `print`. Missing keys render as Go's `<no value>`. Anything else is
refused with an error that names it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from tools import linear_re
from tools.tanka.errors import TankaError
from tools.tanka.gojson.encode import go_float_g

NO_VALUE = "<no value>"
_TOKEN = re.compile(
    r'\s*(?:(?P<str>"(?:[^"\\]|\\.)*"|`[^`]*`)|(?P<num>-?[0-9][0-9.eE+-]*)|(?P<punct>[|()])'
    r"|(?P<field>(?:\.[A-Za-z0-9_]+)+)"
    r"|(?P<word>[A-Za-z_][A-Za-z0-9_]*|\.)(?P<chain>(?:\.[A-Za-z0-9_]+)*))"
)


class TemplateError(TankaError):
    """The --format template cannot be parsed or executed."""


@dataclass(frozen=True, slots=True)
class _Term:
    kind: str  # "lit", "field" (chain from dot), "call" (identifier), "group", "pipe-marker"
    value: Any
    chain: tuple[str, ...] = ()


def _snake(text: str) -> str:
    text = _SNAKE_STEPS[0].sub(r"\1_\2", text)
    return _SNAKE_STEPS[1].sub(r"\1_\2", text).replace("-", "_").replace(" ", "_").lower()


# RE2, linear: under re, `[A-Z]+` rescanned a long run of capitals from each of its starts.
_SNAKE_STEPS = (
    linear_re.compile(r"([A-Z]+)([A-Z][a-z])"),
    linear_re.compile(r"([a-z0-9])([A-Z])"),
)


def _truthy(value: Any) -> bool:
    return value not in (None, False, "", 0, {}, [])


def _or(*args: Any) -> Any:
    return next((a for a in args if _truthy(a)), args[-1])


def _and(*args: Any) -> Any:
    return next((a for a in args if not _truthy(a)), args[-1])


def _index(value: Any, *keys: Any) -> Any:
    for key in keys:
        value = value.get(key) if isinstance(value, Mapping) else None
    return value


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "or": _or,
    "and": _and,
    "not": lambda value: not _truthy(value),
    "default": lambda fallback, *given: given[0] if given and _truthy(given[0]) else fallback,
    "index": _index,
    "lower": lambda s: to_text(s).lower(),
    "upper": lambda s: to_text(s).upper(),
    "title": lambda s: to_text(s).title(),
    "snakecase": lambda s: _snake(to_text(s)),
    "kebabcase": lambda s: _snake(to_text(s)).replace("_", "-"),
    "replace": lambda old, new, s: to_text(s).replace(to_text(old), to_text(new)),
    "trim": lambda s: to_text(s).strip(),
    "trimPrefix": lambda prefix, s: to_text(s).removeprefix(to_text(prefix)),
    "trimSuffix": lambda suffix, s: to_text(s).removesuffix(to_text(suffix)),
    "print": lambda *args: "".join(to_text(a) for a in args),
}


def to_text(value: Any) -> str:
    """Go's fmt %v of a JSON value, as text/template prints it."""
    if value is None:
        return NO_VALUE
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return go_float_g(float(value))
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        return "map[" + " ".join(f"{k}:{to_text(value[k])}" for k in sorted(value)) + "]"
    return "[" + " ".join(to_text(v) for v in value) + "]"


def _follow(value: Any, chain: tuple[str, ...]) -> Any:
    for key in chain:
        if value is None:
            raise TemplateError(f"nil pointer evaluating interface {{}}.{key}")
        value = value.get(key) if isinstance(value, Mapping) else None
    return value


class _Parser:
    def __init__(self, text: str, env: Mapping[str, Any]) -> None:
        self.tokens = self._tokenize(text)
        self.pos = 0
        self.env = env

    @staticmethod
    def _tokenize(text: str) -> list[re.Match[str]]:
        tokens, pos = [], 0
        while text[pos:].strip():
            match = _TOKEN.match(text, pos)
            if match is None or match.end() == pos:
                raise TemplateError(f"unexpected {text[pos:].strip()!r} in action {{{{{text}}}}}")
            tokens.append(match)
            pos = match.end()
        return tokens

    def pipeline(self, dot: Any) -> Any:
        value = self.command(dot, None)
        while self._peek("|"):
            self.pos += 1
            value = self.command(dot, (value,))
        return value

    def _peek(self, punct: str) -> bool:
        return self.pos < len(self.tokens) and self.tokens[self.pos].group("punct") == punct

    def command(self, dot: Any, piped: tuple[Any, ...] | None) -> Any:
        start = self.pos
        first = self.operand(dot)
        args: list[Any] = []
        while self.pos < len(self.tokens) and not (self._peek("|") or self._peek(")")):
            args.append(self.operand(dot)[1])
        name, value = first
        if name is None:
            if args or piped is not None:
                raise TemplateError(
                    f"can't give argument to non-function in format (token {start})"
                )
            return value
        return _call(name, [*args, *(piped or ())])

    def operand(self, dot: Any) -> tuple[str | None, Any]:
        """(function name to call, None) or (None, value)."""
        if self.pos >= len(self.tokens):
            raise TemplateError("missing value for command")
        token = self.tokens[self.pos]
        self.pos += 1
        if token.group("str") is not None:
            raw = token.group("str")
            return None, raw[1:-1] if raw[0] == "`" else bytes(raw[1:-1], "utf-8").decode(
                "unicode_escape"
            )
        if token.group("num") is not None:
            return None, float(token.group("num"))
        if token.group("field") is not None:
            return None, _follow(dot, tuple(token.group("field")[1:].split(".")))
        if token.group("punct") == "(":
            value = self.pipeline(dot)
            if not self._peek(")"):
                raise TemplateError("unclosed left paren in format")
            self.pos += 1
            return None, value
        return self._word(token, dot)

    def _word(self, token: re.Match[str], dot: Any) -> tuple[str | None, Any]:
        word, chain = (
            token.group("word"),
            tuple(filter(None, (token.group("chain") or "").split("."))),
        )
        if word == ".":
            return None, dot
        if word in ("true", "false"):
            return None, word == "true"
        if word == "env":
            return None, _follow(self.env, chain)
        if word not in FUNCTIONS:
            raise TemplateError(f'function "{word}" not defined')
        return word, None


def _call(name: str, args: list[Any]) -> Any:
    try:
        return FUNCTIONS[name](*args)
    except TypeError:
        raise TemplateError(f"wrong number of args for {name}: got {len(args)}") from None


def render_template(template: str, data: Mapping[str, Any], env: Mapping[str, Any]) -> str:
    """Execute `template` with `data` as dot and `env` behind the `env` function."""
    out: list[str] = []
    rest = template
    while "{{" in rest:
        text, _, rest = rest.partition("{{")
        action, found, rest = rest.partition("}}")
        if not found:
            raise TemplateError("unclosed action in format")
        out.append(text)
        parser = _Parser(action.strip().removeprefix("-").removesuffix("-"), env)
        out.append(to_text(parser.pipeline(data)))
    out.append(rest)
    return "".join(out)
