"""go-jsonnet's own std functions, for jrsonnet to call as natives where its own differ.

std.parseYaml is go-jsonnet's YAML 1.1 reading (`yes` is true) where jrsonnet's is YAML 1.2, and
a port would be one more thing to keep exact; calling go-jsonnet's is exact by construction and
costs a tiny evaluation per call. The value crosses as JSON (numbers as floats, as both hold them).
"""

from __future__ import annotations

import json
from typing import Any

from tools.tanka.errors import NativeError

GO_PARSE_YAML = "__tk_go_parseYaml"


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
