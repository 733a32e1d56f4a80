"""`tanka-bot tk SUBCOMMAND` builds only that subcommand's parser, and it is the same parser the
full `tk` parser holds (help, defaults); without a known subcommand every one is built."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

import pytest

from bot.tk import cli as tk_cli

SUBCOMMANDS = list(tk_cli._SUBCOMMANDS)


def tk_parsers(argv: Sequence[str]) -> dict[str, argparse.ArgumentParser]:
    """The tk subcommand parsers built for `argv`, by name (aliases included)."""
    top = argparse.ArgumentParser(prog="tanka-bot")
    tk_cli.add_parser(top.add_subparsers(dest="command"), argv)
    tk = _choices(top)["tk"]
    return _choices(tk)


def _choices(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    subs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(subs.choices)


def test_no_subcommand_named_builds_them_all_in_help_order() -> None:
    for argv in ((), ("tk",), ("tk", "-h"), ("tk", "nope"), ("-v", "tk", "--help")):
        assert list(tk_parsers(argv)) == SUBCOMMANDS


@pytest.mark.parametrize("name", SUBCOMMANDS)
def test_named_subcommand_alone_and_as_in_the_full_parser(name: str) -> None:
    full = tk_parsers(())[name]
    for argv in (("tk", name), ("-v", "tk", name, "--help"), ("tk", name, "tk")):
        narrow = tk_parsers(argv)
        assert list(narrow) == [name]
        assert narrow[name].format_help() == full.format_help()
        assert _defaults(narrow[name]) == _defaults(full)


def _defaults(parser: argparse.ArgumentParser) -> dict[str, object]:
    """What a parse starts from: each argument's default, and the handler set_defaults names."""
    return {**{a.dest: a.default for a in parser._actions}, **parser._defaults}
