"""The web view of `tanka-bot serve` with Redis: a session's history (its diff, its approver,
its pull request) is the same on two replicas and survives a restart; and in a real browser
(Debian's chromium under Playwright) signing in, reading it, and no script of the repository's
running. The browser test writes the screenshots in docs/."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from fakes.oidc_server import OidcServer
from tests.e2e.harness import ALICE, BOB, CHANNEL, Stack, free_port, stack
from tests.e2e.web import page, sign_in, web_env
from tests.scenarios.models import Call
from tests.secret_repo import (
    CREDS,
    ENV,
    NEW_PASSWORD,
    NEW_VISIBLE,
    PASSWORD,
    VISIBLE,
    leaks,
    make_secret_repo,
)

DEV = "environments/dev/main.jsonnet"
SCRIPT = "<script>document.title='pwned';window.pwned=1</script>"
DOCS = Path(__file__).resolve().parents[2] / "docs"
CHROMIUM = "/usr/bin/chromium"


def approved_session(s: Stack) -> str:
    """A mention whose change (a comment holding a script) is approved into a pull request."""
    s.slack.set_members(CHANNEL, [ALICE, BOB])
    s.model.calls(
        Call(
            "c1",
            "file_edit",
            {"path": DEV, "old_text": "replicas=1", "new_text": f"replicas=3 /* {SCRIPT} */"},
        ),
        text="Scaling grafana in dev.",
    )
    s.model.answer(f"Set grafana's replicas in dev to 3. {SCRIPT}")
    root = s.mention(f"scale grafana in dev to 3 {SCRIPT}")
    proposal = s.proposal(root.ts)
    s.react(proposal.ts, "white_check_mark", user=BOB)
    s.wait_text(root.ts, "Opened pull request #")
    return root.ts


def test_history_is_shared_by_replicas_and_survives_a_restart(tmp_path: Path) -> None:
    with OidcServer() as idp, stack(tmp_path, redis=True, redis_keeps_data=True) as s:
        idp.user = {"sub": ALICE, "https://slack.com/user_id": ALICE,
                    "https://slack.com/team_id": s.slack.team_id}  # fmt: skip
        port = free_port()
        env = web_env(idp, f"http://127.0.0.1:{port}")
        first = s.start_bot(env, port=port)
        ts = approved_session(s)
        path = f"/ui/sessions/{CHANNEL}/{ts}"
        seen = page(sign_in(first), first, path, f">{BOB}<")
        assert '<span class="add">+' in seen
        assert "replicas=3 /* &lt;script&gt;" in seen  # the git diff, the script as text
        assert "replicas: 3" in seen  # the rendered diff
        assert "pull/1" in seen
        assert "<script>" not in seen
        second = s.start_bot(env)  # another replica on the same Redis
        assert page(sign_in(second), second, path, f">{BOB}<") == seen
        listing = page(sign_in(second), second, "/ui/", "scale grafana in dev")
        assert "(1)" in listing
        first.stop()
        second.stop()
        again = s.start_bot(env, port=port)
        assert page(sign_in(again), again, path, f">{BOB}<") == seen


def test_secret_values_never_reach_the_web_view(tmp_path: Path) -> None:
    with OidcServer() as idp, stack(tmp_path, project=make_secret_repo) as s:
        s.slack.set_members(CHANNEL, [ALICE, BOB])
        idp.user = {"sub": ALICE, "https://slack.com/user_id": ALICE,
                    "https://slack.com/team_id": s.slack.team_id}  # fmt: skip
        port = free_port()
        bot = s.start_bot(web_env(idp, f"http://127.0.0.1:{port}"), port=port)
        s.model.calls(
            Call("e1", "file_edit", {"path": CREDS, "old_text": PASSWORD,
                                     "new_text": NEW_PASSWORD}),
            Call("e2", "file_edit", {"path": f"{ENV}/main.jsonnet", "old_text": f"'{VISIBLE}'",
                                     "new_text": f"'{NEW_VISIBLE}'"}),
        )  # fmt: skip
        s.model.answer(f"Rotated the password from {PASSWORD} to {NEW_PASSWORD}.")
        root = s.mention(f"set the db password to {NEW_PASSWORD}")
        proposal = s.proposal(root.ts)
        s.react(proposal.ts, "white_check_mark", user=BOB)
        s.wait_text(root.ts, "Opened pull request #1")
        client = sign_in(bot)
        seen = page(client, bot, f"/ui/sessions/{CHANNEL}/{root.ts}", f">{BOB}<")
        assert NEW_VISIBLE in seen  # what is not secret stays visible
        assert "&lt;redacted&gt;" in seen
        listing = page(client, bot, "/ui/", "set the db password")
        audit = page(client, bot, "/ui/audit", "pr_opened")
        jsonl = client.get(f"{bot.url}/ui/audit.jsonl", timeout=10).text
        assert leaks(seen + listing + audit + jsonl) == []


@pytest.mark.skipif(shutil.which("chromium") is None and not Path(CHROMIUM).exists(),
                    reason="Debian's chromium is not installed (.ci/run installs it)")  # fmt: skip
def test_in_a_real_browser(tmp_path: Path) -> None:
    from playwright.sync_api import Dialog, sync_playwright  # noqa: PLC0415 - only where chromium is

    with OidcServer() as idp, stack(tmp_path, redis=True) as s:
        idp.user = {"sub": ALICE, "https://slack.com/user_id": ALICE,
                    "https://slack.com/team_id": s.slack.team_id}  # fmt: skip
        port = free_port()
        bot = s.start_bot(web_env(idp, f"http://127.0.0.1:{port}"), port=port)
        ts = approved_session(s)
        page(sign_in(bot), bot, f"/ui/sessions/{CHANNEL}/{ts}", f">{BOB}<")  # recorded
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=[
                "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
            ])  # fmt: skip
            tab = browser.new_page(viewport={"width": 1280, "height": 900})
            dialogs: list[str] = []

            def on_dialog(dialog: Dialog) -> None:  # an alert() would be a script that ran
                dialogs.append(dialog.message)
                dialog.dismiss()

            tab.on("dialog", on_dialog)
            tab.goto(f"{bot.url}/ui/")  # signed out: to the provider and back
            assert tab.url == f"{bot.url}/ui/"
            tab.get_by_role("link", name=re.compile("scale grafana")).wait_for()
            tab.screenshot(path=str(DOCS / "web-sessions.png"), full_page=True)
            tab.get_by_role("link", name=re.compile("scale grafana")).click()
            tab.wait_for_url(re.compile(f"/ui/sessions/{CHANNEL}/"))
            diff = tab.locator("pre.git-diff")
            assert "replicas=3 /* <script>" in diff.inner_text()  # shown as text
            assert tab.locator("td.approver").first.inner_text() == BOB
            assert tab.title() != "pwned"
            assert tab.evaluate("typeof window.pwned") == "undefined"
            assert dialogs == []
            tab.screenshot(path=str(DOCS / "web-session.png"), full_page=True)
            browser.close()
