"""bot.runtime.failures: what a thread is told when a job fails, by the roots of bot.errors."""

from __future__ import annotations

import pytest

from bot.agent.errors import AgentError, ErrorKind
from bot.domain.ports import ChatError
from bot.domain.sessions import SessionCorrupt
from bot.github.errors import Unavailable
from bot.publish.errors import PushFailed
from bot.runtime.failures import Failure, failure
from bot.store.base import StoreUnavailable
from bot.workspace.workspaces import WorkspaceError


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        pytest.param(
            StoreUnavailable("redis at 10.0.0.5:6379: Connection refused"),
            Failure(
                "store",
                ":warning: I can't take work right now: my session store is "
                "unavailable (redis at 10.0.0.5:6379: Connection refused). Nothing was "
                "started; try again in a minute.",
                expected=True,
            ),
            id="store",
        ),
        pytest.param(
            ChatError("chat.postMessage: ratelimited"),
            Failure(
                "slack",
                ":warning: Slack did not take one of my messages (chat.postMessage: "
                "ratelimited); saved edits are kept. Reply to try again.",
                True,
            ),
            id="slack-said-once-it-takes-posts",
        ),
        pytest.param(
            WorkspaceError("the checkout could not be prepared: disk full"),
            Failure("workspace", ":warning: the checkout could not be prepared: disk full", True),
            id="workspace",
        ),
        pytest.param(
            Unavailable("GitHub did not answer (503); try again later"),
            Failure("github", ":warning: GitHub did not answer (503); try again later", True),
            id="github",
        ),
        pytest.param(
            AgentError(ErrorKind.NETWORK, "connection reset"),
            Failure("model", ":warning: network: connection reset", True),
            id="model",
        ),
        pytest.param(
            PushFailed("git push was refused; nothing was published"),
            Failure("user", ":warning: git push was refused; nothing was published", True),
            id="user",
        ),
        pytest.param(
            SessionCorrupt("conversation: Field required"),
            Failure("internal", ":warning: conversation: Field required", expected=False),
            id="bug",
        ),
        pytest.param(
            KeyError("proposals"),
            Failure(
                "internal",
                ":warning: Something went wrong on my side (KeyError); saved "
                "edits are kept. Reply to try again.",
                expected=False,
            ),
            id="anything-else",
        ),
    ],
)
def test_each_root_has_its_reply_and_metric_kind(error: Exception, expected: Failure) -> None:
    assert failure(error) == expected
