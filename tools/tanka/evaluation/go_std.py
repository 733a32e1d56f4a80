"""go-jsonnet's own std functions, for jrsonnet to call as natives where its own differ.

std.parseYaml is go-jsonnet's YAML 1.1 reading (`yes` is true) where jrsonnet's is YAML 1.2, and
a port would be one more thing to keep exact; calling go-jsonnet's is exact by construction and
costs a tiny evaluation per call. The value crosses as JSON (numbers as floats, as both hold them).

GO_STD is the same for the functions that write values as text (std.toString, std.format,
std.manifestJson*, ...), called by the guard (rust_std.py) when jrsonnet's text could differ:
go-jsonnet writes the same values, so its text is tk's. Before, such a call sent the whole
evaluation to go-jsonnet: Tempo's example environments hash `std.toString` of Grafana dashboards
holding fractions, and rendered twice, in 0.8 s instead of 0.2 s.
"""

from __future__ import annotations

import json
from typing import Any

from tools.tanka.errors import NativeError
from tools.tanka.evaluation.go_text import go_to_string

GO_PARSE_YAML = "__tk_go_parseYaml"
GO_STD = "__tk_go_std"


def go_parse_yaml(text: Any) -> Any:
    """go-jsonnet's std.parseYaml(text); its error (kept for the fallback) as NativeError."""
    import _gojsonnet  # noqa: PLC0415 - loaded in the worker process only

    if not isinstance(text, str):
        raise NativeError("std.parseYaml takes a string")  # go-jsonnet's message comes after
    try:
        output = _gojsonnet.evaluate_snippet(
            "<parseYaml>", "std.parseYaml(std.extVar('s'))", ext_vars={"s": text}
        )
    except RuntimeError as exc:
        raise NativeError(str(exc)) from None
    return json.loads(output, parse_int=float)


def go_std(names: frozenset[str]) -> Any:
    """The GO_STD native: go-jsonnet's `std.<name>(args...)` for a name among `names`; its error
    (kept for the fallback) as NativeError."""

    def call(name: Any, args: Any) -> Any:
        import _gojsonnet  # noqa: PLC0415 - loaded in the worker process only

        if name not in names or not isinstance(args, list):
            raise NativeError(f"{GO_STD} calls one of the guarded std functions")
        if name == "toString" and len(args) == 1:
            try:
                return go_to_string(args[0])
            except (TypeError, RecursionError):
                pass  # go-jsonnet's own, and its error
        listed = ", ".join(f"a[{i}]" for i in range(len(args)))
        try:
            output = _gojsonnet.evaluate_snippet(
                f"<std.{name}>",
                f"local a = std.extVar('a'); std.{name}({listed})",
                ext_codes={"a": json.dumps(args)},
            )
        except RuntimeError as exc:
            raise NativeError(str(exc)) from None
        return json.loads(output, parse_int=float)

    return call
