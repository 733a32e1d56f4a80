"""bot.errors.describe: the one place a front end learns how to present an expected failure."""

from __future__ import annotations

import pytest

from bot.config import ConfigError
from bot.errors import BotError, UserError, describe
from bot.github.errors import NotFound
from bot.publish.errors import PushFailed
from bot.publish.proposal import CHANGED, ProposalChanged


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (UserError("the prompt is empty"), ("the prompt is empty", 1)),
        (NotFound("no such repository", what="repository"), ("no such repository", 1)),
        (PushFailed("push refused"), ("push refused", 1)),
        (ProposalChanged(), (CHANGED, 1)),
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
