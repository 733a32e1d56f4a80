"""The one module that talks to regopy (rego-cpp): parse, compile once, evaluate per object.

Found by reading regopy 1.5.2 in the venv:
- `Interpreter.add_module` parses at once and raises `RegoError` whose text is an S-expression
  naming the module, a byte offset and a message: `(error 13:policy/x.rego|50|2 (errormsg
  24:Invalid boolean operator) ...)` (strings are length-prefixed). `parse_error` turns it into
  file:line:col.
- Compile errors (e.g. a rule defined both as a set and as an object) surface only as a failed
  bundle whose error text is empty; the compiler prints the reason itself unless its log level
  is NONE, so the caller localises them by compiling file by file.
- Evaluation errors (an unknown function) come back as an "ok" output whose text is an
  S-expression, not JSON, and `regopy.Output` then raises `JSONDecodeError`; so outputs are
  read here through `regopy.rego_shared` directly. That text also dumps the whole input, which
  may be a Secret: only its `errormsg` is kept.
- `Interpreter.build(query)` compiles the modules and data once; `query_bundle` per input is
  then ~0.3 ms, against ~1.5 ms for `Interpreter.query`, which compiles every time.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

# RE2 must set itself up before regopy's library runs (see tools/tanka/natives/regex.py).
import tools.tanka.natives.regex  # noqa: F401  # isort: skip
from regopy import Input, Interpreter, LogLevel, RegoError, rego_shared

from tools.tanka.check.errors import PolicyError

# The query every bundle answers: the whole `main` package (its rules and sub-packages).
_QUERY = "result := data.main"
_ERROR = re.compile(r"\(error (\d+):")
_MESSAGE = re.compile(r"\(errormsg (\d+):")


@dataclass(frozen=True, slots=True)
class Module:
    name: str  # as shown to people: the path relative to the repository
    source: str


def _take(text: str, match: re.Match[str]) -> str:
    size = int(match.group(1))
    raw = text[match.end() :].encode("utf-8")[:size]
    return raw.decode("utf-8", errors="replace")


def error_messages(text: str) -> list[str]:
    """The `errormsg` texts of a rego-cpp error S-expression, in order."""
    return [_take(text, m) for m in _MESSAGE.finditer(text)]


def parse_error(module: Module, text: str) -> str:
    """`policy/x.rego:3:14: Invalid boolean operator` from a RegoError of add_module."""
    found = _ERROR.search(text)
    messages = error_messages(text)
    message = messages[0] if messages else "does not parse"
    more = f" (and {len(messages) - 1} more error(s))" if len(messages) > 1 else ""
    if found is None:
        return f"{module.name}: {message}{more}"
    rest = text[found.end() + int(found.group(1)) :]
    position = re.match(r"\|(\d+)\|", rest)
    if position is None:
        return f"{module.name}: {message}{more}"
    line, column = _line_column(module.source, int(position.group(1)))
    return f"{module.name}:{line}:{column}: {message}{more}"


def _line_column(source: str, offset: int) -> tuple[int, int]:
    before = source.encode("utf-8")[:offset]
    line = before.count(b"\n") + 1
    column = len(before) - (before.rfind(b"\n") + 1) + 1
    return line, column


def _interpreter(modules: Sequence[Module]) -> Interpreter:
    interpreter = Interpreter()
    # Without this, rego-cpp prints compile errors on stdout, which is `tk check --output json`.
    interpreter.log_level = LogLevel.NONE
    for module in modules:
        try:
            interpreter.add_module(module.name, module.source)
        except RegoError as exc:
            raise PolicyError(
                f"{parse_error(module, str(exc))}; fix the policy (Rego v1 syntax, as OPA 1.0 "
                "and conftest use)"
            ) from None
    return interpreter


def check_syntax(modules: Sequence[Module]) -> None:
    """Raise PolicyError naming file, line and column when a module does not parse."""
    for module in modules:
        _interpreter([module])


class CompiledPolicy:
    """The modules compiled with one environment's data; evaluate it once per object.

    Not thread-safe (one rego-cpp interpreter): build one per environment and thread.
    """

    def __init__(self, modules: Sequence[Module], data: Mapping[str, Any]) -> None:
        self._interpreter = _interpreter(modules)
        self._interpreter.add_data(dict(data))
        self._bundle = self._interpreter.build(_QUERY)
        if not self._bundle.ok():
            raise PolicyError(_compile_failure(modules, data))

    def evaluate(self, value: Mapping[str, Any]) -> dict[str, Any]:
        """`data.main` with `input` = value; {} when the package defines nothing for it."""
        self._interpreter.set_input(Input(_integral(value)))
        output = rego_shared.rego_bundle_query(
            self._interpreter._impl,  # regopy's own Output cannot read errors: see above
            self._bundle._impl,
        )
        try:
            ok = bool(rego_shared.rego_output_ok(output))
            text = str(rego_shared.rego_output_string(output))
        finally:
            rego_shared.rego_free_output(output)
        return _result(ok, text)


def _integral(value: Any) -> Any:
    """Jsonnet numbers arrive as floats (1.0), which rego-cpp keeps apart from integers, so
    `sprintf("%d", [input.spec.replicas])` would be undefined; the YAML that tk show prints, and
    conftest reads, says 1. Whole floats become ints."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, Mapping):
        return {key: _integral(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_integral(item) for item in value]
    return value


def _result(ok: bool, text: str) -> dict[str, Any]:
    if not ok:
        raise PolicyError(
            "the policies failed to evaluate (rego-cpp gives no detail; a complete rule with "
            "conflicting values is a common cause); run `opa eval` on them to see why"
        )
    if text.startswith("(error"):
        messages = error_messages(text) or ["evaluation error"]
        raise PolicyError(f"a policy failed while evaluating: {messages[0]}; fix the policy")
    if text in ("", "undefined"):
        return {}
    parsed = json.loads(text)
    results = parsed if isinstance(parsed, list) else [parsed]
    for item in results:
        value = item.get("bindings", {}).get("result")
        if isinstance(value, dict):
            return value
    return {}


def _compile_failure(modules: Sequence[Module], data: Mapping[str, Any]) -> str:
    """Which file fails to compile on its own, or that they only fail together."""
    for module in modules:
        interpreter = _interpreter([module])
        interpreter.add_data(dict(data))
        if not interpreter.build(_QUERY).ok():
            return (
                f"{module.name}: does not compile (rego-cpp gives no position; a rule written "
                "both as `deny contains msg if` and as the pre-1.0 `deny[msg] {` is a common "
                "cause); fix the policy"
            )
    names = ", ".join(m.name for m in modules)
    return (
        f"{names}: compile on their own but not together (rego-cpp gives no position; the "
        "same rule defined in two forms across files is a common cause); fix the policies"
    )
