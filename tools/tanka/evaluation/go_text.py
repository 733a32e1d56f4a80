"""go-jsonnet's std.toString written in Python, for the GO_STD native (go_std.py).

Asking go-jsonnet itself means handing the value over as Jsonnet code and evaluating it: 20-140 ms
for each of Tempo's Grafana dashboards, which its libraries hash through `std.toString`. The text
is simple to write exactly, as go-jsonnet's manifester does on one line: object fields sorted,
`, ` and `: ` between, `{ }` and `[ ]` when empty, numbers as go_number_text, and strings with
`"`, `\\`, the control characters, DEL and U+0080-U+009F escaped (lower-case `\\u00XX`), all else
as it is. tests/property/test_go_written_text.py compares it with go-jsonnet on random values.
"""

from __future__ import annotations

from typing import Any

from tools.tanka.evaluation.rust_vouch import go_number_text

_SHORT = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_ESCAPES = {
    chr(code): _SHORT.get(chr(code), f"\\u{code:04x}")
    for code in (*range(0x20), *range(0x7F, 0xA0))
} | _SHORT


def go_to_string(value: Any) -> str:
    """std.toString(value) as go-jsonnet writes it, for a JSON value (a string is itself)."""
    return value if isinstance(value, str) else _json(value)


_SCALARS = {None: "null", True: "true", False: "false"}


def _json(value: Any) -> str:
    if value is None or isinstance(value, bool):
        return _SCALARS[value]
    if isinstance(value, int | float):
        return go_number_text(float(value))
    if isinstance(value, str):
        return _quoted(value)
    if isinstance(value, list):
        return "[" + ", ".join(_json(v) for v in value) + "]" if value else "[ ]"
    if isinstance(value, dict) and value:
        return "{" + ", ".join(f"{_quoted(k)}: {_json(value[k])}" for k in sorted(value)) + "}"
    if isinstance(value, dict):
        return "{ }"
    raise TypeError(f"not a JSON value: {type(value).__name__}")


def _quoted(text: str) -> str:
    if not any(ch in _ESCAPES for ch in text):
        return f'"{text}"'
    return '"' + "".join(_ESCAPES.get(ch, ch) for ch in text) + '"'
