"""The new-env modal and the `tanka_ask` shortcut, over real HTTP into `tanka-bot serve`: signed
slash command, view_submission and message_action payloads against the Slack fake."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from bot.slack.views import new_env_modal
from fakes.slack_events import app_mention, event_callback
from fakes.slack_interactions import (
    app_home_opened,
    block_actions,
    message_action,
    send_interaction,
    view_submission,
)
from fakes.slack_views import submission_answer_problems
from tests.e2e.harness import ALICE, BOB, CHANNEL, MALLORY, Stack, stack
from tests.e2e.test_teams import settings_file
from tests.scenarios.models import Call

DEV = "environments/dev/main.jsonnet"


def _submit(s: Stack, view: dict[str, Any], **values: dict[str, Any]) -> Any:
    sent = send_interaction(s.sender, view_submission(view, user=ALICE, values=values))
    assert sent.response.status == 200, sent.response.text
    answer = json.loads(sent.response.text) if sent.response.text.strip() else None
    assert submission_answer_problems(answer, view) == []  # a shape Slack accepts
    return answer


def test_new_env_without_a_name_opens_a_modal_that_refuses_bad_names_inline(
    tmp_path: Path,
) -> None:
    with stack(tmp_path) as s:
        s.start_bot()
        sent = s.sender.command("new-env", channel_id=CHANNEL, user_id=ALICE)
        assert sent.response.status == 200
        opened = s.slack.wait_for(lambda: s.slack.views("modal"), 10)[-1]
        view = opened.view
        assert view["callback_id"] == "tanka_new_env"
        assert [b["block_id"] for b in view["blocks"]] == ["name", "copy_from", "instructions"]
        options = view["blocks"][1]["element"]["options"]
        assert {"environments/dev", "environments/prod"} <= {o["value"] for o in options}

        bad = _submit(s, view, name={"value": "Not A Name"})
        assert bad["response_action"] == "errors"
        assert "one word" in bad["errors"]["name"]
        taken = _submit(s, view, name={"value": "dev"})
        assert "already exists" in taken["errors"]["name"]
        weird = _submit(s, view, name={"value": "../etc"})
        assert "not a usable environment name" in weird["errors"]["name"]
        assert s.slack.bot_messages(CHANNEL) == []  # no work before a good name

        s.model.calls(Call("c1", "file_read", {"path": "environments/dev/main.jsonnet"}))
        s.model.answer("Created environments/staging like dev.")
        chosen = {"selected_option": {"text": {"type": "plain_text", "text": "environments/dev"},
                                      "value": "environments/dev"}}  # fmt: skip
        assert _submit(s, view, name={"value": "staging"}, copy_from=chosen,
                       instructions={"value": "two replicas"}) is None  # fmt: skip
        root = s.slack.wait_for(lambda: s.slack.bot_messages(CHANNEL), 10)[0]
        assert "new environment `staging`" in root.text
        assert "Copy the conventions of environments/dev. two replicas" in root.text
        s.wait_text(root.ts, "Created environments/staging like dev.")
        request = json.dumps(s.model.bodies()[0])
        assert "named `staging`" in request
        assert s.slack.violations == []


def test_the_ask_shortcut_starts_a_session_in_the_messages_thread_quoting_it(
    tmp_path: Path,
) -> None:
    with stack(tmp_path) as s:
        s.start_bot()
        s.model.answer("Loki in dev runs 1 replica; raising it needs a change in dev.")
        alert = s.slack.add_message(CHANNEL, "loki-dev is out of memory again", user=MALLORY)
        quoted = {"ts": alert.ts, "user": MALLORY, "text": alert.text}
        payload = message_action(user=ALICE, channel=CHANNEL, message=quoted)
        assert send_interaction(s.sender, payload).response.status == 200
        s.wait_text(alert.ts, "raising it needs a change in dev")
        request = json.dumps(s.model.bodies()[0])
        assert "> loki-dev is out of memory again" in request
        assert f"<@{MALLORY}>" in request


def test_the_shortcut_in_a_channel_not_served_is_refused_ephemerally(tmp_path: Path) -> None:
    with stack(tmp_path) as s:
        s.start_bot(settings_file(tmp_path, {"channels": {CHANNEL: None}}))
        other = "C0RANDOM"
        posted = s.slack.add_message(other, "can someone scale loki?", user=MALLORY)
        quoted = {"ts": posted.ts, "user": MALLORY, "text": posted.text}
        payload = message_action(user=ALICE, channel=other, message=quoted)
        payload["response_url"] = s.slack.new_response_url()
        assert send_interaction(s.sender, payload).response.status == 200
        refusal = s.slack.wait_for(lambda: s.slack.responses, 10)[0].body
        assert refusal["response_type"] == "ephemeral"
        assert "channel" in refusal["text"]
        assert s.slack.bot_messages(other) == []
        assert s.model.request_count() == 0


def _home(s: Stack, user: str, count: int) -> str:
    """Open `user`'s Home tab (the `count`th publication for them) and return its text."""
    s.sender.send(app_home_opened(user=user))
    views = s.slack.wait_for(
        lambda: [v for v in s.slack.views("home") if v.user == user][count - 1 :] or None, 15
    )
    return json.dumps(views[0].view)


def _home_until(s: Stack, user: str, count: int, text: str, tries: int = 20) -> str:
    """`_home` again until the Home holds `text`, or the last one after `tries` openings."""
    home = ""
    for n in range(count, count + tries):
        home = _home(s, user, n)
        if text in home:
            break
        time.sleep(0.1)
    return home


def test_the_home_tab_of_a_requester_and_of_an_approver(tmp_path: Path) -> None:
    with stack(tmp_path) as s:
        s.start_bot()
        s.model.calls(Call("c1", "file_edit", {"path": DEV, "old_text": "replicas=1",
                                              "new_text": "replicas=3"}))  # fmt: skip
        s.model.answer("Set grafana's replicas in dev to 3.")
        root = s.mention("scale grafana in dev to 3\nit is slow")
        proposal = s.proposal(root.ts)
        s.slack.set_members(CHANNEL, [ALICE, BOB, MALLORY])

        # The thread shows the proposal a moment before the work process saves the session
        # with it (the serving process, which renders the Home tab, runs first).
        alice = _home_until(s, ALICE, 1, "proposal 1 waiting for approval")
        assert "scale grafana in dev to 3" in alice
        assert "it is slow" not in alice  # the request's first line only
        assert "proposal 1 waiting for approval" in alice
        assert f"/archives/{CHANNEL}/p{root.ts.replace('.', '')}" in alice  # a link, no API call
        assert f"proposal 1 by <@{ALICE}>" in alice  # self-approval is allowed by default
        mallory = _home(s, MALLORY, 1)  # in the channel, but not an approver
        assert "Nothing waits for your approval." in mallory
        assert "scale grafana" not in mallory
        bob = _home(s, BOB, 1)
        assert "No session yet" in bob
        assert f"proposal 1 by <@{ALICE}>" in bob  # he is the approver
        assert _home(s, BOB, 2) == bob  # again: the members list is cached for minutes
        assert len(s.slack.calls("conversations.members")) == 1
        assert not s.slack.calls("chat.getPermalink")

        s.react(proposal.ts, "white_check_mark", user=BOB)
        s.wait_text(root.ts, "Opened pull request #1")
        # The thread hears of the pull request a moment before the session is saved with it.
        alice = _home_until(s, ALICE, 2, "pull request #1 open")
        assert "Your open pull requests" in alice
        assert "pull request #1 open" in alice
        assert "No open pull request." not in alice
        assert s.slack.violations == []


def test_the_home_tab_hides_channels_the_user_is_not_in(tmp_path: Path) -> None:
    with stack(tmp_path) as s:
        s.start_bot()
        s.model.calls(Call("c1", "file_edit", {"path": DEV, "old_text": "replicas=1",
                                              "new_text": "replicas=3"}))  # fmt: skip
        s.model.answer("Set to 3.")
        root = s.mention("scale grafana in dev to 3")
        s.proposal(root.ts)
        s.slack.set_members(CHANNEL, [ALICE])
        bob = _home(s, BOB, 1)
        assert "scale grafana" not in bob
        assert "Nothing waits for your approval." in bob


def test_over_socket_mode_a_click_approves_and_a_bad_name_is_refused_in_the_ack(
    tmp_path: Path,
) -> None:
    with stack(tmp_path, slack_options={"socket_mode": True}) as s:
        s.start_bot(socket_mode=True)
        socket = s.slack.socket_mode
        assert socket is not None
        socket.wait_connected()
        s.model.calls(Call("c1", "file_edit", {"path": DEV, "old_text": "replicas=1",
                                              "new_text": "replicas=3"}))  # fmt: skip
        s.model.answer("Done over the socket.")
        root = s.slack.add_message(CHANNEL, "<@U0BOT> scale dev to 3", user=ALICE)
        mentioned = app_mention(channel=CHANNEL, user=ALICE, text=root.text, ts=root.ts)
        socket.push_event(event_callback(mentioned, event_id="EvSock1"))
        proposal = s.proposal(root.ts)
        socket.push_interactive(block_actions(user=BOB, channel=CHANNEL, message_ts=proposal.ts,
                                              action_id="tanka_approve"))  # fmt: skip
        s.wait_text(root.ts, "Opened pull request #1")

        view = new_env_modal(CHANNEL, ["environments/dev"])
        submitted = view_submission(view, user=ALICE, values={"name": {"value": "dev"}})
        ack = socket.wait_for_ack(socket.push_interactive(submitted))
        assert ack.payload["response_action"] == "errors"
        assert "already exists" in ack.payload["errors"]["name"]
        assert submission_answer_problems(ack.payload, view) == []
