"""No form of a Secret value leaves the bot: a password holding `<`, `>`, `&`, `'` and `"`,
a token from the Secret's base64 `data` and a key from an `importstr`'d file, copied by the
agent into a ConfigMap as is, spelled out, reversed, upper-case, as character codes, cut,
base64-encoded and inside JSON (tests/secret_forms.py).

The agent shows, evaluates, diffs and checks the copying environment, reads the library and the
key file, and quotes the password in its answer; the reviewer reads the proposal; an approver
opens the pull request. Nothing the model is sent, nothing posted to Slack, the pull request,
the audit log and the bot's log holds any of the forms, while the value that is not secret
stays readable everywhere.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.e2e.harness import BOB, CHANNEL, Stack, stack
from tests.e2e.test_teams import audit
from tests.scenarios.models import Call
from tests.secret_forms import (
    API_KEY_FILE,
    LEAK_ENV,
    PASSWORD,
    VAULT,
    VISIBLE,
    leak_files,
    make_vault_repo,
    shown_forms,
)


def strings(value: Any) -> Iterator[str]:
    """Every string in a JSON value: a request body's texts as the model reads them."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def posted(s: Stack, thread_ts: str) -> str:
    said = [m.text + str(m.blocks or "") for m in s.slack.bot_messages(CHANNEL, thread_ts)]
    said += [f"{u.title} {u.text}" for u in s.slack.uploads]
    return "\n".join(said)


def test_no_form_of_a_secret_value_leaves_the_bot(tmp_path: Path) -> None:
    with stack(tmp_path, project=make_vault_repo) as s:
        bot = s.start_bot({"TANKA_BOT_REVIEW": "true"})
        s.model.calls(
            *(
                Call(f"w{n}", "file_write", {"path": path, "content": content})
                for n, (path, content) in enumerate(leak_files().items())
            )
        )
        s.model.calls(
            Call("show", "tanka_show", {"env_path": LEAK_ENV}),
            Call("eval", "tanka_eval", {"path": LEAK_ENV}),
            Call("diff", "tanka_diff", {"env_path": LEAK_ENV}),
            Call("check", "tanka_check", {"env_path": LEAK_ENV}),
        )
        s.model.calls(
            Call("lib", "file_read", {"path": VAULT}),
            Call("key", "file_read", {"path": API_KEY_FILE}),
            Call("git", "git_diff", {}),
        )
        s.model.answer(f"Copied {PASSWORD} (and {PASSWORD.upper()}) into environments/leak.")
        s.model.answer("- the ConfigMap copies Secret values\nVERDICT: OK")  # the reviewer
        root = s.mention("copy the db credentials into a ConfigMap in a new leak environment")
        proposal = s.proposal(root.ts)
        s.wait_text(root.ts, "into environments/leak")

        results = [seen.content for request in (2, 3) for seen in s.model.results(request)]
        assert len(results) == 7
        assert [shown_forms(content) for content in results] == [[]] * 7
        assert all(VISIBLE in results[n] for n in range(3))  # show, eval, diff
        bodies = s.model.bodies()
        reviewer = "\n".join(strings(bodies[-1]))
        assert "You review a change" in reviewer
        assert VISIBLE in reviewer
        assert shown_forms("\n".join(strings(bodies))) == []
        shown = posted(s, root.ts)
        assert VISIBLE in shown
        assert shown_forms(shown) == []

        s.react(proposal.ts, "white_check_mark", user=BOB)
        s.wait_text(root.ts, "Opened pull request #1")
        pull = next(iter(s.github.repos["acme/infra"].pulls.values()))
        assert shown_forms(pull.title + "\n" + pull.body) == []
        events = audit(s, "--thread", root.ts)
        assert {"proposal", "approval"} <= {e["event"] for e in events}
        assert shown_forms("\n".join(strings(events))) == []
        assert shown_forms(posted(s, root.ts)) == []
        assert shown_forms(bot.log()) == []
