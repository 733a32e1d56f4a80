"""The operator check's rewrite (tools/tanka/evaluation/rust_operators.py): `+` and `%` become
calls, in place, every line kept; files kept by content, only in a private directory; a budget
on what one check parses anew. What the check decides is tested in test_rust_eval.py."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tools.tanka.evaluation import rust_operators
from tools.tanka.evaluation.rust_operators import Rewrites
from tools.tanka.source.jsonnet import ast
from tools.tanka.source.jsonnet.lexer import lex
from tools.tanka.source.jsonnet.parser import parse_tokens


@pytest.fixture(autouse=True)
def _cache_under_tmp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rust_operators, "cache_dir", lambda: tmp_path / "rewritten")


@pytest.mark.parametrize(
    ("source", "rewritten"),
    [
        ("a + b + c", "__tk_op.add(__tk_op.add(a , b) , c)"),
        ("(a + b) % c", "__tk_op.mod((__tk_op.add(a , b)) , c)"),
        ("f(a) + g[1]", "__tk_op.add(f(a) , g[1])"),
        # Between two string literals or two numbers no text is written: left as it is.
        ("'a' + 'b'", "'a' + 'b'"),
        ("1 + 2", "1 + 2"),
        ("10 % 3", "10 % 3"),
        # The operator is found past comments holding one.
        ("a /* + */ + // +\n b", "__tk_op.add(a /* + */ , // +\n b)"),
        ("a # +\n % b", "__tk_op.mod(a # +\n , b)"),
        # `super.x` and `super[x]`, whose parsed location ends at `super`.
        ("{ a: super.x + 1 }", "{ a: __tk_op.add(super.x , 1) }"),
        ("{ a: x + super['k' + y] }", "{ a: __tk_op.add(x , super[__tk_op.add('k' , y)]) }"),
        # A method's function has no location of its own.
        (
            "x + f({ m():: super.m() + 1 }) + y",
            "__tk_op.add(__tk_op.add(x , f({ m():: __tk_op.add(super.m() , 1) })) , y)",
        ),
        # Text blocks and strings keep their `+` and `%`.
        ("|||\n  a + b %s\n||| % x", "__tk_op.mod(|||\n  a + b %s\n||| , x)"),
    ],
)
def test_operators_become_calls_in_place(source: str, rewritten: str) -> None:
    text = Rewrites()("x.jsonnet", source)
    assert text == rewritten
    assert text.count("\n") == source.count("\n")  # every line keeps its number
    parse_tokens(lex("x.jsonnet", text))


def test_a_file_the_parser_cannot_read_has_no_rewrite() -> None:
    rewrites = Rewrites()
    assert rewrites("broken.libsonnet", "{ a: 1 + }") is None
    assert rewrites.refused == "cannot rewrite broken.libsonnet"


def test_a_file_naming_the_calls_itself_is_not_rewritten() -> None:
    # `local __tk_op = ...` would replace the check's calls with its own.
    rewrites = Rewrites()
    assert rewrites("sly.libsonnet", "local __tk_op = { add(a, b):: a }; '' + 0.1") is None
    assert rewrites.refused == "cannot rewrite sly.libsonnet"


def test_one_check_parses_at_most_its_budget_and_keeps_what_it_parsed() -> None:
    small, large = "a + 1", "b + " + "1 + " * 40 + "1"
    first = Rewrites(budget=len(small) + 10)
    assert first("small.libsonnet", small) is not None
    assert first("large.libsonnet", large) is None
    assert first.refused is not None
    assert "more than" in first.refused
    # The next check finds the first file kept and spends its budget on the other.
    second = Rewrites(budget=len(large))
    assert second("small.libsonnet", small) is not None
    assert second("large.libsonnet", large) is not None
    assert second.refused is None


def test_rewrites_are_kept_on_disk_by_content(tmp_path: Path) -> None:
    Rewrites()("a.libsonnet", "x + 1")
    kept = list((tmp_path / "rewritten").iterdir())
    assert len(kept) == 1
    assert (tmp_path / "rewritten").stat().st_mode & 0o777 == 0o700
    rust_operators._memory.clear()  # as a new process would start
    assert Rewrites(budget=0)("elsewhere.libsonnet", "x + 1") == "__tk_op.add(x , 1)"


def test_a_directory_others_may_write_is_not_read(tmp_path: Path) -> None:
    Rewrites()("a.libsonnet", "x + 1")
    [kept] = (tmp_path / "rewritten").iterdir()
    kept.write_text("error 'planted'")
    os.chmod(tmp_path / "rewritten", 0o777)  # noqa: S103 - the planted case under test
    rust_operators._memory.clear()
    assert Rewrites()("a.libsonnet", "x + 1") == "__tk_op.add(x , 1)"
    assert kept.read_text() == "error 'planted'"  # neither read nor written


def test_a_doubt_is_known_to_the_next_process_through_the_private_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert not rust_operators.doubted("environments/prod/main.jsonnet")
    rust_operators.note_doubt("environments/prod/main.jsonnet")
    monkeypatch.setattr(rust_operators, "_doubted", set())  # as a new process starts
    assert rust_operators.doubted("environments/prod/main.jsonnet")
    assert not rust_operators.doubted("environments/dev/main.jsonnet")
    os.chmod(tmp_path / "rewritten", 0o775)  # noqa: S103 - a group that may write: refused
    assert not rust_operators.doubted("environments/prod/main.jsonnet")


def test_a_rewrite_that_parses_to_another_program_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Were an operand's end found short (as `super.name`'s parsed location is), the closing
    # bracket could make another valid program: `__tk_op.add(a , b).c`.
    real_end = rust_operators._Places.end

    def short(places: rust_operators._Places, node: ast.Node) -> int:
        if isinstance(node, ast.Index):
            return real_end(places, node.target)
        return real_end(places, node)

    monkeypatch.setattr(rust_operators._Places, "end", short)
    rewrites = Rewrites()
    assert rewrites("x.libsonnet", "a + b.c") is None
    assert rewrites.refused == "cannot rewrite x.libsonnet"
