"""The operator check (tools/tanka/evaluation/rust_operators.py) against go-jsonnet: for random
expressions mixing text that holds digits, numbers (fractions, tiny and huge ones), `+`, `%`,
and the functions that measure or show text, jrsonnet with the check answers what go-jsonnet
answers - whichever evaluator ends up answering, and also once the file's doubt is known."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tools.tanka.evaluation.worker import EvalRequest, evaluate

NUMBERS = st.sampled_from(
    ["0.99", "0.5", "0.1", "3", "1e-17", "1e23", "2.675", "(0.1 + 0.2)", "(7 / 3)", "-0.0"]
)
# Texts neither start nor end with a digit or a dot, and `+` joins with a space: a number written
# against digits is a known difference (test_rust_eval.test_known_differences).
TEXTS = st.sampled_from(
    [
        "'q(0.99)'",
        "'v1.25 '",
        "' 0.1 '",
        "'x'",
        "''",
        "|||\n  p 0.95 %s\n|||",
        "'%s-%d'",
        "'\u2028'",
    ]
)


def _expressions(leaf: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.recursive(
        leaf,
        lambda inner: st.one_of(
            # A space between: a number written against digits is the known difference.
            st.tuples(inner, inner).map(lambda p: f"({p[0]} + ' ' + {p[1]})"),
            st.tuples(TEXTS, inner, inner).map(
                lambda p: f"std.format('%s %s' + {p[0]}, [{p[1]}, {p[2]}])"
            ),
            st.tuples(inner, inner).map(lambda p: f"('%s|%s' % [{p[0]}, {p[1]}])"),
            inner.map(lambda e: f"std.toString({e})"),
            inner.map(lambda e: f"[{e}]"),
            inner.map(lambda e: f"{{ k: {e} }}"),
            inner.map(lambda e: f"(if std.length(std.toString({e})) > 6 then 'long' else 'short')"),
            inner.map(lambda e: f"std.md5('' + {e})"),
        ),
        max_leaves=6,
    )


EXPRESSIONS = _expressions(st.one_of(NUMBERS, TEXTS))


@settings(max_examples=150, deadline=None)
@given(expression=EXPRESSIONS)
def test_jrsonnet_with_the_operator_check_answers_as_go_jsonnet(expression: str) -> None:
    answers = []
    for implementation in ("go", "rust", "rust"):  # the second rust run knows the doubt
        request = EvalRequest("/property/ops.jsonnet", expression, "/property", (),
                              implementation=implementation)  # fmt: skip
        reply = evaluate(request)
        answers.append((reply.value, reply.error))
    assert answers[1] == answers[0]
    assert answers[2] == answers[0]
