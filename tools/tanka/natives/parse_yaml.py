"""parseYaml with yaml.v3's rules, as tk's native function uses it.

parseYaml decodes a multi-document stream with yaml.v3's resolver (YAML 1.2-ish): only
true/false are booleans (`yes`/`on` stay strings), integers follow Go's base-0 parsing (`0x`,
`0o`, `0b`, leading-zero octal, `_` separators), unquoted timestamps become RFC 3339 strings, and
each document is round-tripped through JSON, so numbers are floats and non-string keys fail.
(manifestYamlFromJson, which needs no PyYAML, is in functions.py.)
"""

from __future__ import annotations

import json
import math
import re
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import yaml

from tools.tanka.errors import NativeError
from tools.tanka.gojson import decode as go_decode

_PLAIN = "tag:yaml.org,2002:v3plain"
_FLOAT = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")
_INT = re.compile(r"^[-+]?(0[xX][0-9a-fA-F]+|0[oO]?[0-7]+|0[bB][01]+|[0-9]+)$")
_TIMESTAMP = re.compile(
    r"^(\d{4})-(\d{1,2})-(\d{1,2})"
    r"(?:(?:[Tt]|[ \t]+)(\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.(\d+))?"
    r"(?:[ \t]*(Z|[-+]\d{1,2}(?::\d{2})?))?)?$"
)
_SPECIAL = {
    "true": True, "True": True, "TRUE": True,
    "false": False, "False": False, "FALSE": False,
    "": None, "~": None, "null": None, "Null": None, "NULL": None,
    ".inf": math.inf, ".Inf": math.inf, ".INF": math.inf,
    "+.inf": math.inf, "+.Inf": math.inf, "+.INF": math.inf,
    "-.inf": -math.inf, "-.Inf": -math.inf, "-.INF": -math.inf,
    ".nan": math.nan, ".NaN": math.nan, ".NAN": math.nan,
}  # fmt: skip


class _V3Loader(yaml.SafeLoader):
    """Every plain scalar goes through resolve_plain; `<<` stays a merge key."""


_V3Loader.yaml_implicit_resolvers = {}
_V3Loader.add_implicit_resolver("tag:yaml.org,2002:merge", re.compile(r"^<<$"), ["<"])
_V3Loader.add_implicit_resolver(_PLAIN, re.compile(r"(?s).*"), None)
_V3Loader.add_implicit_resolver(_PLAIN, re.compile(r"^$"), [""])


def resolve_plain(text: str) -> Any:
    """yaml.v3's value for an unquoted scalar."""
    if text in _SPECIAL:
        return _SPECIAL[text]
    stamp = _timestamp(text)
    if stamp is not None:
        return stamp
    plain = text.replace("_", "")
    if _INT.match(plain):
        sign = -1 if plain.startswith("-") else 1
        digits = plain.lstrip("+-")
        base = 8 if re.match(r"^0[0-7]", digits) else 0
        digits = "0o" + digits[1:] if base == 8 else digits
        return sign * int(digits, 0)
    if _FLOAT.match(plain):
        return float(plain)
    return text


def _timestamp(text: str) -> str | None:
    match = _TIMESTAMP.match(text)
    if match is None:
        return None
    year, month, day, hour, minute, second, frac, zone = match.groups()
    try:
        moment = datetime(int(year), int(month), int(day), int(hour or 0), int(minute or 0),
                          int(second or 0), tzinfo=_zone(zone))  # fmt: skip
    except ValueError:
        return None
    base = moment.strftime("%Y-%m-%dT%H:%M:%S")
    fraction = ("." + frac.rstrip("0")) if frac and frac.rstrip("0") else ""
    offset = "Z" if moment.utcoffset() == timedelta(0) else moment.strftime("%z")
    if offset != "Z":
        offset = offset[:3] + ":" + offset[3:]
    return base + fraction[:10] + offset


def _zone(zone: str | None) -> timezone:
    if zone is None or zone == "Z":
        return UTC
    sign = -1 if zone[0] == "-" else 1
    hours, _, minutes = zone[1:].partition(":")
    return timezone(sign * timedelta(hours=int(hours), minutes=int(minutes or 0)))


def _construct_plain(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
    return resolve_plain(loader.construct_scalar(node))  # type: ignore[arg-type]


_V3Loader.add_constructor(_PLAIN, _construct_plain)


def parse_yaml(text: str) -> list[Any]:
    """tk's parseYaml: an array with one JSON-round-tripped value per document."""
    if not isinstance(text, str):
        raise NativeError("argument 'yaml' must be of 'string' type")
    try:
        documents = list(yaml.load_all(text, Loader=_V3Loader))
    except yaml.YAMLError as exc:
        raise NativeError(f"parsing yaml: {_yaml_error(exc)}") from None
    return [_round_trip(doc) for doc in documents]


def _yaml_error(exc: yaml.YAMLError) -> str:
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    return f"yaml: line {mark.line + 1}: {problem}" if mark is not None else f"yaml: {problem}"


def _round_trip(value: Any) -> Any:
    try:
        return go_decode.loads(json.dumps(_check_json(value), allow_nan=False))
    except NativeError:
        raise
    except (ValueError, TypeError) as exc:
        raise NativeError(f"converting yaml to json: {exc}") from None


def _check_json(value: Any) -> Any:
    if isinstance(value, dict):
        if any(not isinstance(k, str) for k in value):
            raise NativeError(
                "converting yaml to json: json: unsupported type: map[interface {}]interface {}"
            )
        return {k: _check_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_check_json(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        shown = "NaN" if math.isnan(value) else ("+Inf" if value > 0 else "-Inf")
        raise NativeError(f"converting yaml to json: json: unsupported value: {shown}")
    if isinstance(value, datetime | bytes):
        return str(value)
    return value
