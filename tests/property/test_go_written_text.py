"""The guard's go-written text (tools/tanka/evaluation/go_std.py GO_STD): for any JSON value, the
text std.toString, std.format and std.manifestJsonEx give under jrsonnet with the guard is the text
go-jsonnet gives, byte for byte - the values cross to go-jsonnet as JSON and must not change on
the way (floats by their shortest spelling, strings with any character)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import _gojsonnet
from hypothesis import given, settings
from hypothesis import strategies as st

from tools.tanka.evaluation.go_text import go_to_string
from tools.tanka.evaluation.worker import EvalRequest, evaluate

SCALARS = (
    st.floats(allow_nan=False, allow_infinity=False)
    | st.integers(min_value=-(2**60), max_value=2**60).map(float)
    | st.text(max_size=12)
    | st.booleans()
    | st.none()
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)
CALLS = (
    "std.toString(v)",
    "std.md5(std.toString(v))",
    "std.format('%s|%5.2f', [v, 0.125])",
    "std.manifestJsonEx(v, '  ')",
)


@settings(max_examples=100, deadline=None)
@given(value=VALUES, call=st.sampled_from(CALLS))
def test_text_written_for_jrsonnet_is_go_jsonnets(
    tmp_path_factory: object, value: object, call: str
) -> None:
    del tmp_path_factory
    text = json.dumps(value)
    assert "Infinity" not in text
    assert all(math.isfinite(v) for v in _floats(value))
    source = f"local v = {text}; {call}"
    answers = []
    for implementation in ("go", "rust"):
        request = EvalRequest("/property/main.jsonnet", source, "/property", (),
                              implementation=implementation)  # fmt: skip
        reply = evaluate(request)
        answers.append((reply.value, reply.error))
    assert answers[0] == answers[1]


# Every character class the escaping tells apart: controls, DEL, the C1 block, U+2028, quotes.
TRICKY = st.text(
    st.sampled_from(["\x00", "\x1f", "\b", "\t", "\n", "\x7f", "\x85", "\x9f", "\xa0",
                     "\u2028", '"', "\\", "/", "<", "é", "😀", "a"]),
    max_size=8,
)  # fmt: skip
TEXT_VALUES = st.recursive(
    SCALARS | TRICKY,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TRICKY, inner, max_size=4),
    max_leaves=16,
)


@settings(max_examples=300, deadline=None)
@given(value=TEXT_VALUES)
def test_to_string_written_in_python_is_go_jsonnets(value: object) -> None:
    # go_text.go_to_string stands in for go-jsonnet's own std.toString (go_std.GO_STD).
    expected = _gojsonnet.evaluate_snippet(
        "<property>", "std.toString(std.extVar('v'))", ext_codes={"v": json.dumps(value)}
    )
    assert go_to_string(value) == json.loads(expected)


def _floats(value: object) -> list[float]:
    if isinstance(value, float):
        return [value]
    if isinstance(value, list):
        return [f for item in value for f in _floats(item)]
    if isinstance(value, dict):
        return [f for item in value.values() for f in _floats(item)]
    return []


def test_the_property_reaches_jrsonnet(tmp_path: Path) -> None:
    # Not every example falls back: a fraction both spell alike stays with jrsonnet, one spelled
    # otherwise is written by go-jsonnet's function inside jrsonnet's evaluation.
    for source in ("std.toString([0.5, 'a'])", "std.toString([0.1, 'a'])"):
        reply = evaluate(EvalRequest(str(tmp_path / "m.jsonnet"), source, str(tmp_path), (),
                                     implementation="rust"))  # fmt: skip
        assert reply.evaluator == "rust", reply.fallback
