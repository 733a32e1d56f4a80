"""bot.errors.describe: the one place a front end learns how to present an expected failure."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

import bot
import tools
from bot.config import ConfigError
from bot.domain.sessions import SessionCorrupt
from bot.errors import BotError, Bug, UserError, describe
from bot.github.errors import NotFound
from bot.publish.errors import PushFailed
from bot.publish.proposal import CHANGED, ProposalChanged
from bot.store.base import StoreUnavailable
from tools.errors import EngineError, ToolError


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (UserError("the prompt is empty"), ("the prompt is empty", 1)),
        (NotFound("no such repository", what="repository"), ("no such repository", 1)),
        (PushFailed("push refused"), ("push refused", 1)),
        (ProposalChanged(), (CHANGED, 1)),
        (
            StoreUnavailable("redis at 10.0.0.5:6379: refused"),
            ("redis at 10.0.0.5:6379: refused", 1),
        ),
        (ConfigError(["X: set it"]), ("invalid configuration (1 problem(s)):\n  - X: set it", 2)),
    ],
)
def test_domain_errors_are_described_with_their_message_and_exit_code(
    error: BotError, expected: tuple[str, int]
) -> None:
    assert describe(error) == expected


def test_anything_else_is_not_described() -> None:
    assert describe(RuntimeError("a bug")) is None
    assert describe(KeyError("x")) is None
    assert describe(SessionCorrupt("conversation: Field required")) is None  # a Bug


def test_every_error_the_service_defines_sits_under_one_of_its_roots() -> None:
    # The tree drawn in bot/errors.py: an exception class defined in bot/ descends from BotError
    # or Bug, so the CLI (describe) and the runtime (bot.runtime.failures) know how to show it.
    for info in pkgutil.walk_packages(bot.__path__, "bot."):
        if not info.name.endswith("__main__"):
            importlib.import_module(info.name)
    defined = [c for c in _subclasses(BaseException) if c.__module__.startswith("bot.")]
    assert len(defined) > 30
    stray = [
        f"{c.__module__}.{c.__qualname__}" for c in defined if not issubclass(c, BotError | Bug)
    ]
    assert stray == []


def test_every_public_error_the_tools_define_sits_under_one_of_their_roots() -> None:
    # The tools' half of the tree in bot/errors.py: ToolError or EngineError (private classes
    # such as a walk's stop signal are control flow, not errors).
    for info in pkgutil.walk_packages(tools.__path__, "tools."):
        importlib.import_module(info.name)
    defined = [
        c
        for c in _subclasses(BaseException)
        if c.__module__.startswith("tools.") and not c.__qualname__.startswith("_")
    ]
    assert len(defined) > 30
    stray = [
        f"{c.__module__}.{c.__qualname__}"
        for c in defined
        if not issubclass(c, ToolError | EngineError)
    ]
    assert stray == []


def _subclasses(root: type[BaseException]) -> set[type[BaseException]]:
    found: set[type[BaseException]] = set()
    for sub in root.__subclasses__():
        found |= {sub, *_subclasses(sub)}
    return found
