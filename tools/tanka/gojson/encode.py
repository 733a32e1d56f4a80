"""JSON text as Go's encoding/json writes it, and Go-style float formatting.

tk prints `env list --json` and builds the `tanka.dev/environment` ext var with json.Marshal,
so the bytes differ from Python's json.dumps in ways users see: `<`, `>`, `&`, U+2028 and U+2029
are escaped, non-ASCII is raw, numbers are float64 written in the shortest form (`1e+21`, `1e-7`),
and map keys are sorted. Dicts are written in insertion order, so a caller that models a Go struct
builds its dict in field order and sorts the maps itself (`sorted_maps`).
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\b": "\\b",
    "\f": "\\f",
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}


def go_string(text: str) -> str:
    out = ['"']
    for ch in text:
        escaped = _ESCAPES.get(ch)
        if escaped is not None:
            out.append(escaped)
        elif ord(ch) < 0x20:
            out.append(f"\\u{ord(ch):04x}")
        elif 0xD800 <= ord(ch) <= 0xDFFF:
            out.append("\\ufffd")  # Go replaces invalid UTF-8 (here: lone surrogates)
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def go_float(value: float) -> str:
    """encoding/json's float64: shortest round-trip digits, `e` notation outside [1e-6, 1e21)."""
    if math.isnan(value) or math.isinf(value):
        raise ValueError(f"json: unsupported value: {value!r}")
    if value == 0:
        return "-0" if math.copysign(1.0, value) < 0 else "0"
    shortest = Decimal(repr(float(value)))
    if 1e-6 <= abs(value) < 1e21:
        return _fixed(shortest)
    return _exponent(shortest)


def _fixed(number: Decimal) -> str:
    text = format(number, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def _exponent(number: Decimal, *, trim_negative: bool = True) -> str:
    sign, digits, raw_exp = number.normalize().as_tuple()
    exp = int(raw_exp)  # finite numbers only: NaN and Inf are refused earlier
    mantissa = "".join(map(str, digits))
    power = exp + len(mantissa) - 1
    head = mantissa[0] + ("." + mantissa[1:] if len(mantissa) > 1 else "")
    # Go's strconv gives at least two exponent digits; encoding/json then trims `e-07` to `e-7`.
    exp_text = str(abs(power)) if power < 0 and trim_negative else f"{abs(power):02d}"
    return f"{'-' if sign else ''}{head}e{'+' if power >= 0 else '-'}{exp_text}"


def go_dumps(value: Any) -> str:
    """Compact Go JSON; dict order is kept (see sorted_maps)."""
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    if isinstance(value, str):
        return go_string(value)
    if isinstance(value, int | float):
        return go_float(float(value))
    if isinstance(value, dict):
        items = (f"{go_string(str(k))}:{go_dumps(v)}" for k, v in value.items())
        return "{" + ",".join(items) + "}"
    if isinstance(value, list | tuple):
        return "[" + ",".join(go_dumps(v) for v in value) + "]"
    raise TypeError(f"json: unsupported type: {type(value).__name__}")


def sorted_maps(value: Any) -> Any:
    """A copy with every dict's keys sorted, as Go marshals map[string]any."""
    if isinstance(value, dict):
        return {k: sorted_maps(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [sorted_maps(v) for v in value]
    return value


def go_float_g(value: float) -> str:
    """strconv.FormatFloat(v, 'g', -1, 64), as yaml.v2/v3 write floats: `1e+06`, `100000`."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if value == 0:
        return "-0" if math.copysign(1.0, value) < 0 else "0"
    if value.is_integer() and abs(value) < _EXACT_INTEGERS:  # most numbers in manifests
        return _integer_g(value)
    shortest = Decimal(repr(float(value)))
    exponent = shortest.adjusted()
    if exponent < -4 or exponent >= 6:
        return _exponent(shortest, trim_negative=False)
    return _fixed(shortest)


# Below 2**53 every integer is a float and its shortest digits are its own (trailing zeros aside).
_EXACT_INTEGERS = float(2**53)


def _integer_g(value: float) -> str:
    """go_float_g of a whole number below 2**53, without Decimal: `3200`, `1.048576e+07`."""
    digits = str(int(abs(value)))
    if len(digits) <= 6:  # %g's exponent form starts at 1e+06
        return str(int(value))
    mantissa = digits.rstrip("0")
    head = mantissa[0] + ("." + mantissa[1:] if len(mantissa) > 1 else "")
    return f"{'-' if value < 0 else ''}{head}e+{len(digits) - 1:02d}"


def go_dumps_indent(value: Any, indent: str = "  ", prefix: str = "") -> str:
    """json.MarshalIndent(value, "", indent): one member per line, `"key": value`, `{}`/`[]`
    for empty ones; dict order is kept (see sorted_maps)."""
    inner = prefix + indent
    if isinstance(value, dict) and value:
        items = (
            f"{inner}{go_string(str(k))}: {go_dumps_indent(v, indent, inner)}"
            for k, v in value.items()
        )
        return "{\n" + ",\n".join(items) + f"\n{prefix}}}"
    if isinstance(value, list | tuple) and value:
        items = (f"{inner}{go_dumps_indent(v, indent, inner)}" for v in value)
        return "[\n" + ",\n".join(items) + f"\n{prefix}]"
    return go_dumps(value)
