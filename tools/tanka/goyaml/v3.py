"""YAML text byte-identical to gopkg.in/yaml.v3 (v3.0.1) `Marshal` of a JSON value.

tk's `manifestYamlFromJson` native decodes JSON (numbers become float64) and marshals it with
yaml.v3, whose emitter differs from yaml.v2's (emit.py) in layout, not in the characters of
a scalar, so the scalar analysis, quoting rules and writers are shared and switched with `v3`:

* indentation is 4 and sequences are indented under their key (`key:` / `    - a`);
* an indent is opened either 2 columns further for the node written right after `- ` (so a
  mapping item's keys line up after the dash) or at the next multiple of 4 past the current one
  (so the children of `    - key:` sit at column 8, not at the key's column 6 + 4);
* nothing is ever folded (the width is unlimited);
* keys sort with yaml.v3's rule (a letter first after a shared digit), see yaml_keys;
* a multi-line string with TABs is still a literal block, and its header takes the indentation
  digit `4` when the text starts with a space or line break; the header line is ended by the first
  content line, so a leading line break does not add an empty line (yaml.v3's own quirk).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tools.tanka.goyaml.emit import key_text
from tools.tanka.goyaml.keys import sorted_keys
from tools.tanka.goyaml.scalar import analyze, is_simple_key, scalar_text, select_style
from tools.tanka.goyaml.writer import Writer

V3_INDENT = 4
_UNLIMITED_WIDTH = (1 << 31) - 1  # go-yaml's stand-in for "never fold" (best_width -1)


class _V3Writer(Writer):
    """The shared writer with yaml.v3's indentation rule."""

    def __init__(self) -> None:
        super().__init__(
            best_indent=V3_INDENT, best_width=_UNLIMITED_WIDTH, break_after_block_header=False
        )

    def open_indent(self, *, flow: bool, item: bool) -> None:
        """yaml.v3's increase_indent (never indentless); `item`: the node follows `- `."""
        self._indents.append(self.indent)
        if self.indent < 0:
            self.indent = self.best_indent if flow else 0
        elif item:
            self.indent += 2  # just past the `- ` indicator
        else:
            step = self.best_indent
            self.indent = step * ((self.indent + step) // step)


def dump_yaml_v3(value: Any) -> str:
    """yaml.v3 Marshal of a JSON value (dict/list/str/float/int/bool/None), as tk's native does."""
    writer = _V3Writer()
    _node(writer, value, item=False)
    writer.write_indent()
    return writer.text()


def _node(writer: _V3Writer, value: Any, *, item: bool) -> None:
    if isinstance(value, Mapping):
        if value:
            _block_mapping(writer, value, item=item)
        else:
            writer.write_empty_collection("{", "}")
    elif isinstance(value, list | tuple):
        if value:
            _block_sequence(writer, value, item=item)
        else:
            writer.write_empty_collection("[", "]")
    else:
        _scalar(writer, value, item=item, simple_key=False)


def _block_mapping(writer: _V3Writer, value: Mapping[Any, Any], *, item: bool) -> None:
    keys = [key_text(key) for key in value]
    by_text = dict(zip(keys, value.values(), strict=True))
    writer.open_indent(flow=False, item=item)
    for key in sorted_keys(keys, v3=True):
        writer.write_indent()
        if is_simple_key(key, analyze(key, v3=True)):
            _scalar(writer, key, item=False, simple_key=True)
            writer.write_indicator(
                ":", need_whitespace=False, is_whitespace=False, is_indention=False
            )
        else:
            writer.write_indicator(
                "?", need_whitespace=True, is_whitespace=False, is_indention=True
            )
            _scalar(writer, key, item=False, simple_key=False)
            writer.write_indent()
            writer.write_indicator(
                ":", need_whitespace=True, is_whitespace=False, is_indention=True
            )
        _node(writer, by_text[key], item=False)
    writer.pop_indent()


def _block_sequence(writer: _V3Writer, items: Sequence[Any], *, item: bool) -> None:
    writer.open_indent(flow=False, item=item)
    for element in items:
        writer.write_indent()
        writer.write_indicator("-", need_whitespace=True, is_whitespace=False, is_indention=True)
        _node(writer, element, item=True)
    writer.pop_indent()


def _scalar(writer: _V3Writer, value: Any, *, item: bool, simple_key: bool) -> None:
    text, requested = scalar_text(value, v3=True)
    style = select_style(text, analyze(text, v3=True), requested, simple_key=simple_key)
    writer.open_indent(flow=True, item=item)
    writer.write_scalar(text, style, allow_breaks=not simple_key)  # the width never folds
    writer.pop_indent()
