"""Decode JSON into a Go struct model the way Go's encoding/json does, errors included.

tk reads spec.json with json.Unmarshal into its Environment struct, which has consequences users
meet: keys match struct fields case-insensitively, unknown keys are ignored, `null` leaves a default
in place, and a wrong type fails with `json: cannot unmarshal string into Go struct field
Spec.spec.injectLabels of type bool`. A schema here is a tuple of Field; the decoder fills a dict.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from tools.errors import EngineError

# Field kinds, with the Go type names error messages show.
STRING, BOOL, STRING_LIST, STRING_MAP, ANY = (
    "string",
    "bool",
    "[]string",
    "map[string]string",
    "any",
)


@dataclass(frozen=True, slots=True)
class Struct:
    go_name: str  # e.g. "v1alpha1.Spec"
    fields: tuple[Field, ...]

    @property
    def short_name(self) -> str:
        return self.go_name.rsplit(".", 1)[-1]


@dataclass(frozen=True, slots=True)
class Field:
    key: str  # JSON name, also the dict key the decoder fills
    kind: str | Struct


class GoJsonError(EngineError, ValueError):
    """A message in encoding/json's words."""


def loads(text: str | bytes) -> Any:
    """json.Unmarshal into interface{}: numbers become floats; Go's syntax error texts."""
    raw = text.decode("utf-8", errors="replace") if isinstance(text, bytes) else text
    try:
        return json.loads(raw, parse_int=float, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise GoJsonError(syntax_error_text(raw, exc)) from None


def _reject_constant(name: str) -> Any:
    raise json.JSONDecodeError("Expecting value", name, 0)


def decode_struct(value: Any, schema: Struct, into: dict[str, Any]) -> None:
    """Decode an already parsed JSON value over `into` (which holds the defaults)."""
    errors: list[str] = []
    if not isinstance(value, dict):
        if value is not None:
            errors.append(
                f"json: cannot unmarshal {_json_kind(value)} into Go value of type {schema.go_name}"
            )
    else:
        _decode_object(value, schema, into, "", errors)
    if errors:
        raise GoJsonError(errors[0])


def _decode_object(
    obj: dict[str, Any], schema: Struct, into: dict[str, Any], path: str, errors: list[str]
) -> None:
    for key, value in obj.items():
        field = _match(schema, key)
        if field is None:
            continue
        where = f"{path}.{field.key}" if path else field.key
        _decode_field(value, field, schema, into, where=where, errors=errors)


def _match(schema: Struct, key: str) -> Field | None:
    for field in schema.fields:
        if field.key == key:
            return field
    folded = key.casefold()
    for field in schema.fields:
        if field.key.casefold() == folded:
            return field
    return None


def _decode_field(
    value: Any, field: Field, owner: Struct, into: dict[str, Any], *, where: str, errors: list[str]
) -> None:
    kind = field.kind
    if isinstance(kind, Struct):
        if value is None:
            return
        if not isinstance(value, dict):
            errors.append(_type_error(value, owner, where, kind.go_name))
            return
        _decode_object(value, kind, into.setdefault(field.key, {}), where, errors)
        return
    if kind == ANY:
        into[field.key] = value
    elif value is None:
        # null sets Go slices and maps to nil and leaves other values alone
        if kind == STRING_LIST:
            into[field.key] = []
        elif kind == STRING_MAP:
            into[field.key] = {}
    elif kind == STRING_LIST:
        into[field.key] = _decode_list(value, owner, where, errors)
    elif kind == STRING_MAP:
        into[field.key] = _decode_map(value, owner, where, errors, into.get(field.key))
    elif _fits(value, kind):
        into[field.key] = value
    else:
        errors.append(_type_error(value, owner, where, kind))


def _decode_list(value: Any, owner: Struct, where: str, errors: list[str]) -> list[str]:
    if not isinstance(value, list):
        errors.append(_type_error(value, owner, where, STRING_LIST))
        return []
    out: list[str] = []
    for item in value:
        if item is None:
            out.append("")
        elif isinstance(item, str):
            out.append(item)
        else:
            errors.append(_type_error(item, owner, where, STRING))
            out.append("")
    return out


def _decode_map(
    value: Any, owner: Struct, where: str, errors: list[str], existing: Any
) -> dict[str, str]:
    if not isinstance(value, dict):
        errors.append(_type_error(value, owner, where, STRING_MAP))
        return dict(existing or {})
    out: dict[str, str] = dict(existing or {})  # Go decodes into the existing map
    for key, item in value.items():
        if item is None or isinstance(item, str):
            out[key] = item or ""
        else:
            errors.append(_type_error(item, owner, where, STRING))
    return out


def _fits(value: Any, kind: str) -> bool:
    if kind == STRING:
        return isinstance(value, str)
    return isinstance(value, bool)  # BOOL


def _type_error(value: Any, owner: Struct, where: str, go_type: str) -> str:
    return (
        f"json: cannot unmarshal {_json_kind(value)} into Go struct field "
        f"{owner.short_name}.{where} of type {go_type}"
    )


def _json_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def syntax_error_text(text: str, exc: json.JSONDecodeError) -> str:
    """encoding/json's SyntaxError text for the error Python's parser found."""
    pos = exc.pos
    if pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated string"):
        return "unexpected end of JSON input"
    char = _quote_char(text[pos])
    msg = exc.msg
    if msg.startswith("Expecting property name"):
        context = "looking for beginning of object key string"
    elif msg.startswith("Expecting ':'"):
        context = "after object key"
    elif msg.startswith("Expecting ','"):
        inside_object = _innermost_bracket(text, pos) == "{"
        context = "after object key:value pair" if inside_object else "after array element"
    elif msg.startswith("Extra data"):
        context = "after top-level value"
    elif msg.startswith("Invalid control character"):
        context = "in string literal"
    elif msg.startswith("Invalid \\escape"):
        char = _quote_char(text[pos + 1]) if pos + 1 < len(text) else char
        context = "in string escape code"
    else:
        context = "looking for beginning of value"
    return f"invalid character {char} {context}"


def _quote_char(ch: str) -> str:
    if ch == "'":
        return "'\\''"
    if ch == '"':
        return "'\"'"
    quoted = json.dumps(ch, ensure_ascii=False)
    return "'" + quoted[1:-1] + "'"


def _innermost_bracket(text: str, pos: int) -> str:
    stack: list[str] = []
    in_string = escaped = False
    for ch in text[:pos]:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            stack.append(ch)
        elif ch in "}]" and stack:
            stack.pop()
    return stack[-1] if stack else ""
