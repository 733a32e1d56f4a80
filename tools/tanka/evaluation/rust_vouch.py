"""Whether go-jsonnet would have produced the same text as jrsonnet: the checks behind the fallback.

Both evaluators compute the same values; they differ in how some values become text. These checks
answer "could this differ?" conservatively: a wrong "no" would be a wrong render, a wrong "yes"
only costs a second evaluation. Used twice:
* by the guarded std functions (rust_std.py), through the VOUCH native, on their arguments;
* on the whole result (`output_differs`), for what no guard sees: `"" + 0.1` and `"%s" % x`
  (operators jrsonnet does not route through std), text imported into a string by importstr
  with a prelude in it, and nesting deeper than go-jsonnet manifests.
A number or character in text that only an operator could have written otherwise is a doubt
(`text_doubt`), which the operator check settles (rust_operators.py); the rest is go-jsonnet's.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Literal

VouchMode = Literal["text", "format", "json", "digits"]
# go-jsonnet escapes these in JSON text (DEL, the C1 controls U+0080-U+009F, U+2028, U+2029:
# `\u0080`, in std.toString, escapeStringJson and YAML); jrsonnet writes them raw.
_ESCAPED_BY_GO = re.compile("[\x7f-\x9f\u2028\u2029]")
# Where a number as jrsonnet writes one inside text may be: a decimal fraction, or 16+ digits (an
# integer past 2**53); it counts when it is a whole run of digits and dots (not part of a longer
# dotted run: a version, an address), see _numbers.
# ASCII digits only: jrsonnet writes no other. One leading digit, then either tail: `re` scans for
# the class first, 6x faster on a render than `\d\.\d|\d{16}` (0.2 ms an evaluation).
_CANDIDATE = re.compile(r"[0-9](?:\.[0-9]|[0-9]{15})")
_SAFE_INTEGER = 2.0**53
# Left in the text of a file that `importstr` read after a prelude was added (importer.py,
# rust_std.py): the evaluators saw different bytes.
PRELUDE_MARK = "local __tk_"


def _escaped_by_go(text: str) -> bool:
    return _ESCAPED_BY_GO.search(text) is not None


def go_number_text(value: float) -> str:
    """go-jsonnet's std.toString of a number: `%.0f` when whole, else `%.17g`."""
    if value == math.floor(value):
        return f"{value:.0f}"
    return f"{value:.17g}"


def rust_number_text(value: float) -> str:
    """jrsonnet's: the shortest decimal that reads back as `value`, never an exponent."""
    if value == math.floor(value) and abs(value) < _SAFE_INTEGER:
        return f"{value:.0f}"
    plain = format(Decimal(repr(value)), "f")
    return plain.removesuffix(".0") if "." in plain else plain


def same_number_text(value: float) -> bool:
    if value == math.floor(value):
        return abs(value) < _SAFE_INTEGER
    return go_number_text(value) == rust_number_text(value)


def text_differs(text: str) -> bool:
    """Whether `text` may hold something jrsonnet wrote differently from go-jsonnet: text read
    with a prelude in it, or a doubt (text_doubt)."""
    return PRELUDE_MARK in text or text_doubt(text)


def text_doubt(text: str) -> bool:
    """Whether `text` holds a raw character go-jsonnet escapes, or a number in jrsonnet's
    spelling that go-jsonnet spells otherwise. Either is also what a literal in the source
    reads: this cannot tell them apart, the operator check can."""
    if _escaped_by_go(text):
        return True
    for token in _numbers(text):
        value = float(token)
        # Only jrsonnet's own spelling can have come from jrsonnet ("2.50" cannot).
        if rust_number_text(value) == token and go_number_text(value) != token:
            return True
    return False


def _numbers(text: str) -> list[str]:
    """Each whole run of digits and dots in `text` that reads as a fraction or as 16+ digits.

    Found from the few places that could hold one (a digit, a dot, a digit; 16 digits), each
    widened to its whole run: walking every digit run of a render cost 0.3 ms."""
    found: list[str] = []
    end = 0
    for match in _CANDIDATE.finditer(text):
        if match.start() < end:
            continue  # inside the run just read
        start = match.start()
        while start and (text[start - 1].isdigit() or text[start - 1] == "."):
            start -= 1
        end = match.end()
        while end < len(text) and (text[end].isdigit() or text[end] == "."):
            end += 1
        token = text[start:end]
        if token[0] == "." or token[-1] == ".":
            continue  # a run that starts or ends with a dot is no number: "1.2.", ".5"
        dots = token.count(".")
        if dots == 1 or (not dots and len(token) >= 16):
            found.append(token)
    return found


def vouch(value: Any, mode: VouchMode, depth_limit: int, doubts: list[str] | None = None) -> bool:
    """Whether a guarded std function, given `value`, answers as go-jsonnet's does.

    text: numbers written as both write them, no character go-jsonnet escapes;
    format: also only whole numbers below 2**53 (std.format's %f, %g, %d round fractions
    differently); json: manifestJson/Yaml write numbers alike, only the characters matter;
    digits: a string (hashed, encoded or measured) not read with a prelude. A doubt about its
    text (text_doubt) is noted in `doubts` for the operator check to settle; with None (the
    check's own run, where every operator's text is checked as it is written) there is none.
    """
    if mode != "digits":
        return _walk(value, mode, depth_limit)
    if not isinstance(value, str):
        return True
    if PRELUDE_MARK in value:
        return False
    if doubts is not None and text_doubt(value):
        doubts.append(f"a guarded function read text written otherwise? {value[:60]!r}")
    return True


def output_text_differs(output: str, depth_limit: int) -> bool | None:
    """A first look at jrsonnet's JSON text: True when it nests deeper than `depth_limit`, False
    when nothing in it could differ, None when the value must be walked (output_differs).

    Far cheaper than the walk. jrsonnet indents by 4 spaces a level and a JSON string holds no
    raw line break, so indentation is depth; it writes every character raw but the control
    characters, so text_differs sees each string's text - unless an escape (`\\u0007`) runs into
    a number after it, hence the walk whenever the text holds one, or a number that is a JSON
    value rather than text (text_differs cannot tell them apart)."""
    if "\n" + " " * (4 * depth_limit) in output:
        return True
    return None if "\\u" in output or text_differs(output) else False


@dataclass(frozen=True, slots=True)
class Difference:
    """Why a result may differ from go-jsonnet's; `doubt`: only text an operator may have
    written (text_doubt), which the operator check can settle."""

    reason: str
    doubt: bool = False


def output_differs(value: Any, depth_limit: int) -> Difference | None:
    """Why the evaluation's result may differ from go-jsonnet's, or None. A doubt is reported
    only when nothing else is found."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    doubt: Difference | None = None
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list) and depth >= depth_limit:
            return Difference("nesting deeper than the stack go-jsonnet manifests with")
        if isinstance(item, str):
            texts = [("a string", item)]
        elif isinstance(item, dict):
            texts = [("a key", key) for key in item]
            stack.extend((field, depth + 1) for field in item.values())
        else:
            if isinstance(item, list):
                stack.extend((element, depth + 1) for element in item)
            continue
        for what, text in texts:
            if PRELUDE_MARK in text:
                return Difference(f"{what} holds text read with a prelude: {text[:60]!r}")
            if doubt is None and text_doubt(text):
                doubt = Difference(
                    f"{what} may hold text go-jsonnet writes otherwise: {text[:60]!r}", doubt=True
                )
    return doubt


def _walk(value: Any, mode: VouchMode, depth_limit: int) -> bool:
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth >= depth_limit:
                return False
            if isinstance(item, dict):
                if any(_escaped_by_go(key) for key in item):
                    return False
                item = item.values()
            stack.extend((element, depth + 1) for element in item)
        elif not _scalar_ok(item, mode):
            return False
    return True


def _scalar_ok(item: Any, mode: VouchMode) -> bool:
    if isinstance(item, bool) or item is None:
        return True
    if isinstance(item, int | float):
        return _number_ok(float(item), mode)
    if isinstance(item, str):
        return not _escaped_by_go(item)
    return False  # a function or anything unforeseen: let go-jsonnet decide


def _number_ok(value: float, mode: VouchMode) -> bool:
    if mode == "json":
        return math.isfinite(value)
    if mode == "format":
        return value == math.floor(value) and abs(value) < _SAFE_INTEGER
    return same_number_text(value)
