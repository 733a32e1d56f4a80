"""Tanka's native functions (`std.native(name)`) with the semantics of tk's Go implementations.

Each function takes and returns plain JSON values and raises NativeError with the Go text. They
are registered with gojsonnet twice: under tk's name (raising, for code that reaches the raw
std.native) and under a private `__tk_safe_` name returning `{ok: v}` / `{error: msg}` that the
Jsonnet shim (shim.py) unwraps, so error texts survive the binding.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from types import ModuleType
from typing import Any

from tools.tanka.errors import NativeError, TankaError
from tools.tanka.gojson import decode as go_decode
from tools.tanka.goyaml.v3 import dump_yaml_v3
from tools.tanka.natives.shim import PARAMS, SAFE_PREFIX

NativeFn = Callable[..., Any]


def parse_json(text: str) -> Any:
    """json.Unmarshal into interface{}: every number a float64."""
    try:
        return go_decode.loads(_text(text, "json"))
    except go_decode.GoJsonError as exc:
        raise NativeError(str(exc)) from None


def manifest_json_from_json(text: str, indent: float) -> str:
    """Go's json.Indent of the trimmed input plus a newline; tokens are copied verbatim."""
    data = _text(text, "json").strip(" \t\r\n")
    try:
        go_decode.loads(data)
    except go_decode.GoJsonError as exc:
        raise NativeError(str(exc)) from None
    return _reindent(data, " " * int(indent)) + "\n"


def _reindent(data: str, unit: str) -> str:
    out: list[str] = []
    depth = 0
    i, n = 0, len(data)
    while i < n:
        ch = data[i]
        if ch == '"':
            end = _string_end(data, i)
            out.append(data[i:end])
            i = end
            continue
        if ch in "{[":
            j = _skip_space(data, i + 1)
            if j < n and data[j] in "}]":  # empty: stays compact
                out.append(ch + data[j])
                i = j + 1
                continue
            depth += 1
            out.append(ch + "\n" + unit * depth)
        elif ch in "}]":
            depth -= 1
            out.append("\n" + unit * depth + ch)
        elif ch == ",":
            out.append(",\n" + unit * depth)
        elif ch == ":":
            out.append(": ")
        elif ch not in " \t\r\n":
            out.append(ch)
        i += 1
    return "".join(out)


def _string_end(data: str, start: int) -> int:
    i = start + 1
    while data[i] != '"':
        i += 2 if data[i] == "\\" else 1
    return i + 1


def _skip_space(data: str, i: int) -> int:
    while i < len(data) and data[i] in " \t\r\n":
        i += 1
    return i


def sha256(text: str) -> str:
    return hashlib.sha256(_text(text, "str").encode("utf-8", errors="surrogatepass")).hexdigest()


def _text(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise NativeError(f"argument '{name}' must be of 'string' type")
    return value


def parse_yaml(text: str) -> Any:
    """parse_yaml.parse_yaml, loading PyYAML only when an evaluation calls it (start-up)."""
    from tools.tanka.natives.parse_yaml import parse_yaml as parse  # noqa: PLC0415 - start-up: PyYAML, 18 ms, 27 modules

    return parse(text)


def _regex() -> ModuleType:
    """natives/regex.py, loaded on the first regex native's call: its RE2 would cost every
    evaluation's start-up."""
    from tools.tanka.natives import regex  # noqa: PLC0415 - start-up: RE2, 3 ms

    return regex


def escape_string_regex(text: str) -> str:
    escaped: str = _regex().escape_string_regex(text)
    return escaped


def regex_match(pattern: str, text: str) -> bool:
    matched: bool = _regex().regex_match(pattern, text)
    return matched


def regex_subst(pattern: str, src: str, repl: str) -> str:
    replaced: str = _regex().regex_subst(pattern, src, repl)
    return replaced


def manifest_yaml_from_json(text: str) -> str:
    """json.Unmarshal then yaml.v3 Marshal (4-space indent, no folding, v3 key order). Here, not
    beside parseYaml: it needs no PyYAML, which would cost every evaluation that calls it."""
    try:
        value = go_decode.loads(text)
    except go_decode.GoJsonError as exc:
        raise NativeError(str(exc)) from None
    return dump_yaml_v3(value)


def _exec_functions(confine: str) -> dict[str, NativeFn]:
    """helmTemplate and kustomizeBuild, refusing charts and kustomizations outside `confine`."""

    def helm(name: str, chart: str, opts_json: str) -> Any:
        return _exec().helm_template(name, chart, opts_json, confine=confine)

    def kustomize(path: str, opts_json: str) -> Any:
        return _exec().kustomize_build(path, opts_json, confine=confine)

    return {"helmTemplate": helm, "kustomizeBuild": kustomize}


FUNCTIONS: dict[str, NativeFn] = {
    "parseJson": parse_json,
    "parseYaml": parse_yaml,
    "manifestJsonFromJson": manifest_json_from_json,
    "manifestYamlFromJson": manifest_yaml_from_json,
    "escapeStringRegex": escape_string_regex,
    "regexMatch": regex_match,
    "regexSubst": regex_subst,
    "sha256": sha256,
}


def _safe(fn: NativeFn) -> NativeFn:
    def call(*args: Any) -> dict[str, Any]:
        try:
            return {"ok": fn(*args)}
        except TankaError as exc:
            return {"error": str(exc)}
        except Exception as exc:  # a bug here must read as an error, not crash the binding
            return {"error": f"{type(exc).__name__}: {exc}"}

    return call


def native_callbacks(confine: str = "/") -> dict[str, tuple[tuple[str, ...], NativeFn]]:
    """The `native_callbacks` argument for gojsonnet; helm charts and kustomizations must live
    inside `confine` (the directory the evaluation is confined to)."""
    callbacks: dict[str, tuple[tuple[str, ...], NativeFn]] = {}
    for name, fn in {**FUNCTIONS, **_exec_functions(confine)}.items():
        params = PARAMS[name]
        callbacks[name] = (params, fn)
        callbacks[SAFE_PREFIX + name] = (params, _safe(fn))
    return callbacks


def _exec() -> ModuleType:
    """natives/exec.py (helmTemplate, kustomizeBuild), loaded on the first call of either."""
    from tools.tanka.natives import exec as exec_natives  # noqa: PLC0415 - start-up: PyYAML and the runner, 23 ms, 48 modules

    return exec_natives
