"""YAML text byte-identical to what tk prints: gopkg.in/yaml.v2 (v2.4.0) Marshal of JSON values.

`dump_yaml` is one manifest as `tk export` writes it to a file (`yaml.Marshal`); `show_output`
is the stream `tk show` prints (one `yaml.Encoder`, `---` before every document but the first).
The walk below mirrors go-yaml's block emitter states: mappings with keys in yaml.v2's natural
order, sequences not indented under a mapping key, empty collections as `{}`/`[]`, and scalars
through yaml_scalar (style) and yaml_writer (characters, folding at 80 columns).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from tools.tanka.goyaml.keys import sorted_keys
from tools.tanka.goyaml.scalar import (
    analyze,
    is_simple_key,
    requested_style,
    scalar_text,
    select_style,
)
from tools.tanka.goyaml.writer import Writer, inline_scalar

# Keys and short strings repeat (`name`, `metadata`, a namespace, an image): each one's text is
# worked out once (styles, quoting, escapes) and written as is wherever it does not depend on
# the column (writer.inline_scalar). Longer strings are rendered in place, never kept.
_INLINE_MAX = 128
_CACHED = 4096


def dump_yaml(value: Any) -> str:
    """yaml.v2 Marshal of a JSON value (dict/list/str/float/int/bool/None), as tk writes it."""
    writer = Writer()
    _document(writer, value, first=True)
    return writer.text()


def show_output(manifests: Iterable[Any]) -> str:
    """`tk show` stdout for processed manifests: the documents of one yaml.v2 Encoder stream."""
    writer = Writer()
    for index, manifest in enumerate(manifests):
        _document(writer, manifest, first=index == 0)
    return writer.text()


def _document(writer: Writer, value: Any, *, first: bool) -> None:
    if not first:  # every document after the first is explicit
        writer.write_indent()
        writer.write_indicator("---", need_whitespace=True, is_whitespace=False, is_indention=False)
    _node(writer, value, mapping=False, simple_key=False)
    writer.write_indent()


def _node(writer: Writer, value: Any, *, mapping: bool, simple_key: bool) -> None:
    if type(value) is str:  # most nodes; spares the Mapping check (an ABC's, slow)
        _scalar(writer, value, simple_key=simple_key)
    elif isinstance(value, Mapping):
        if value:
            _block_mapping(writer, value)
        else:
            writer.write_empty_collection("{", "}")
    elif isinstance(value, list | tuple):
        if value:
            _block_sequence(writer, value, mapping=mapping)
        else:
            writer.write_empty_collection("[", "]")
    else:
        _scalar(writer, value, simple_key=simple_key)


def _block_mapping(writer: Writer, value: Mapping[Any, Any]) -> None:
    keys = list(value)
    by_text = value
    if not all(type(key) is str for key in keys):
        keys = [key_text(key) for key in keys]
        by_text = dict(zip(keys, value.values(), strict=True))
    writer.increase_indent(flow=False, indentless=False)
    for key in sorted_keys(keys):
        writer.write_indent()
        simple = _simple_key(key) if len(key) <= _INLINE_MAX else None
        if simple is not None:  # `key:`; the indentation just written leaves no space before it
            writer.write_inline(simple)
        elif is_simple_key(key, analyze(key)):  # as _simple_key renders it, in place
            _scalar(writer, key, simple_key=True)
            writer.write_indicator(
                ":", need_whitespace=False, is_whitespace=False, is_indention=False
            )
        else:
            writer.write_indicator(
                "?", need_whitespace=True, is_whitespace=False, is_indention=True
            )
            _scalar(writer, key, simple_key=False)
            writer.write_indent()
            writer.write_indicator(
                ":", need_whitespace=True, is_whitespace=False, is_indention=True
            )
        _node(writer, by_text[key], mapping=True, simple_key=False)
    writer.pop_indent()


def key_text(key: Any) -> str:
    """The key as a string; JSON objects have only string keys, anything else is refused."""
    if not isinstance(key, str):
        raise TypeError(
            f"cannot render a map key of type {type(key).__name__}: keys must be strings"
        )
    return key


def _block_sequence(writer: Writer, items: Sequence[Any], *, mapping: bool) -> None:
    # Under a mapping key (`key:` just written) the `- ` items stay at the key's indentation.
    writer.increase_indent(flow=False, indentless=mapping and not writer.indention)
    for item in items:
        writer.write_indent()
        writer.write_indicator("-", need_whitespace=True, is_whitespace=False, is_indention=True)
        _node(writer, item, mapping=False, simple_key=False)
    writer.pop_indent()


@functools.lru_cache(maxsize=_CACHED)
def _simple_key(key: str) -> str | None:
    """`key:` as written after the indentation, when the key is a simple key; else None."""
    if not is_simple_key(key, analyze(key)):
        return None
    style = select_style(key, analyze(key), requested_style(key), simple_key=True)
    text = inline_scalar(key, style, allow_breaks=False)  # a simple key never folds
    return None if text is None else text + ":"


@functools.lru_cache(maxsize=_CACHED)
def _inline_string(text: str) -> str | None:
    """A string value's text when writer.inline_scalar has one for it."""
    style = select_style(text, analyze(text), requested_style(text), simple_key=False)
    return inline_scalar(text, style, allow_breaks=True)


def _scalar(writer: Writer, value: Any, *, simple_key: bool) -> None:
    if not simple_key and isinstance(value, str) and len(value) <= _INLINE_MAX:
        inline = _inline_string(value)
        if inline is not None:
            writer.write_inline(inline)
            return
    text, requested = scalar_text(value)
    style = select_style(text, analyze(text), requested, simple_key=simple_key)
    writer.increase_indent(flow=True, indentless=False)
    writer.write_scalar(text, style, allow_breaks=not simple_key)
    writer.pop_indent()
