"""regexMatch / regexSubst / escapeStringRegex and -t targets follow Go's regexp (RE2).

The cases where a translation onto Python's re went wrong, plus Go's own regexp tests that apply
(expected values from golang/go src/regexp/all_test.go and syntax/parse_test.go).
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tools.tanka.errors import NativeError, TankaError
from tools.tanka.natives.regex import escape_string_regex, regex_match, regex_subst
from tools.tanka.pipeline.targets import parse_targets


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        (r"^\d+$", "١٢٣", False),  # \d is ASCII only in RE2
        (r"^\w+$", "été", False),
        (r"^[[:alpha:]]+$", "abc", True),
        (r"^\pL+$", "été", True),
        (r"^\p{Greek}+$", "αβγ", True),
        (r"\Qa.b\E", "a.b", True),
        (r"\Qa.b\E", "axb", False),
        (r"a$", "a\n", False),  # $ is the end of the text without (?m)
        (r"(?m)a$", "a\n", True),
        (r"\z", "", True),
        (r"(?i)straße", "STRASSE", False),
        (r"(?s).", "\n", True),
    ],
)
def test_match(pattern: str, text: str, expected: bool) -> None:
    assert regex_match(pattern, text) is expected


@pytest.mark.parametrize(
    ("pattern", "src", "repl", "expected"),
    [
        # golang/go regexp all_test.go replaceTests
        ("", "", "x", "x"),
        ("b", "abc", "x", "axc"),
        ("a*", "baaac", "x", "xbxcx"),
        ("(?U)a+", "aaa", "x", "xxx"),  # ungreedy: each `a` on its own
        ("a+", "aaa", "x", "x"),
        ("[a-c]*", "def", "x", "xdxexfx"),
        ("(a)(b)", "ab", "$2$1", "ba"),
        ("(?P<first>a)", "a", "${first}x", "ax"),
        ("(a)", "a", "$1x", ""),  # $1x names the group `1x`
        ("a", "a", "$$", "$"),
    ],
)
def test_subst(pattern: str, src: str, repl: str, expected: str) -> None:
    assert regex_subst(pattern, src, repl) == expected


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        ("(a", "error parsing regexp: missing closing ): `(a`"),
        ("a)", "error parsing regexp: unexpected ): `a)`"),
        ("[a", "error parsing regexp: missing closing ]: `[a`"),
        ("*", "error parsing regexp: missing argument to repetition operator: `*`"),
        ("a**", "error parsing regexp: invalid nested repetition operator: `**`"),
        ("a{1001}", "error parsing regexp: invalid repeat count: `{1001}`"),
        ("[z-a]", "error parsing regexp: invalid character class range: `z-a`"),
        ("(?=x)", "error parsing regexp: invalid or unsupported Perl syntax: `(?=`"),
        (r"\8", r"error parsing regexp: invalid escape sequence: `\8`"),
        ("a\\", "error parsing regexp: trailing backslash at end of expression: ``"),
    ],
)
def test_refusals_use_go_words(pattern: str, message: str) -> None:
    with pytest.raises(NativeError) as raised:
        regex_match(pattern, "")
    assert str(raised.value) == message


def test_targets_use_re2() -> None:
    targets = parse_targets([r"deployment/\d+"])
    assert targets.keeps("Deployment/12")
    assert not targets.keeps("Deployment/١٢")
    assert not parse_targets([r"!deployment/\d"]).keeps("deployment/9")
    with pytest.raises(TankaError, match=r"^Error Parsing Regexp: Missing Closing"):
        parse_targets(["(a"])


@given(st.text(max_size=40))
def test_escaped_text_matches_itself_only(text: str) -> None:
    escaped = escape_string_regex(text)
    assert regex_match(f"^{escaped}$", text)
    assert regex_subst(escaped, text, "x") == "x"
    assert regex_subst(f"^{escaped}$", text + "y", "x") == text + "y"


def test_re2_after_a_rego_policy_in_one_process() -> None:
    """regopy's library and RE2 in one process (tk check, then -t targets): no crash."""
    script = (
        "from tools.tanka.check import rego\n"
        "import regopy\n"
        'regopy.Interpreter().query(\'x := regex.match("a+", "aa")\')\n'
        "from tools.tanka.pipeline.targets import parse_targets\n"
        "print(parse_targets(['deployment/.*']).keeps('Deployment/x'))\n"
    )
    argv = [sys.executable, "-c", script]
    done = subprocess.run(argv, check=False, capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (0, "True\n"), done.stderr
