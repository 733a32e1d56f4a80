"""The pages: who sees what (a member, a non-member's 404, an admin), everything escaped,
Secret values masked as in Slack, the security headers on every response, the metrics."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from bot.domain.thread import ThreadKey
from bot.store.history import MemoryHistory, day_of
from bot.store.memory import MemoryStore
from bot.telemetry.audit import Audit
from bot.telemetry.audit_log import JsonLinesAudit
from bot.web.pages import slack_text
from tests.unit.web.conftest import (
    ALICE,
    BOB,
    CAROL,
    CHANNEL,
    OPS,
    OTHER,
    SECRET_VALUE,
    View,
    record_session,
)
from tools.redaction import SecretMask

TS = "1700000000.000100"
PAGE = f"/ui/sessions/{CHANNEL}/{TS}"


def test_a_member_sees_the_session_with_its_diffs_approver_pr_and_cost(view: View) -> None:
    record_session(view.recorder)
    page = view.signed_in(ALICE).get(PAGE)
    assert page.status == 200
    body = page.body
    assert '<span class="add">+replicas=3' in body  # the git diff, line by line
    assert '<span class="add">+  replicas: 3</span>' in body  # the rendered diff
    assert "0 errors" in body  # the checks
    assert f'<td class="approver">{BOB}</td>' in body
    assert "not one of the approvers" in body  # a refusal and why
    assert "#412" in body
    assert "ci/build" in body
    assert "success" in body
    assert "$0.0123" in body
    assert f"https://tanka-test.slack.com/archives/{CHANNEL}/p1700000000000100" in body


def test_a_non_member_gets_404_and_an_empty_list(view: View) -> None:
    record_session(view.recorder)
    record_session(view.recorder, OTHER, "1700000001.000100", request="carol's change")
    carol = view.signed_in(CAROL)
    missing = carol.get(PAGE)
    assert missing.status == 404
    assert missing.body == carol.get(f"/ui/sessions/{CHANNEL}/1.2").body  # no existence leak
    listing = carol.get("/ui/").body
    assert "carol&#39;s change" in listing
    assert "scale grafana" not in listing
    assert view.signed_in(ALICE).get(f"/ui/sessions/{OTHER}/1700000001.000100").status == 404


def test_an_admin_sees_every_channel_and_groups_count(view: View) -> None:
    record_session(view.recorder)
    record_session(view.recorder, OTHER, "1700000001.000100", request="carol's change")
    listing = view.signed_in(OPS).get("/ui/").body
    assert "scale grafana" in listing
    assert "carol&#39;s change" in listing
    assert view.signed_in(OPS).get(PAGE).status == 200


def test_filters_and_pages(view: View) -> None:
    for i in range(55):
        record_session(view.recorder, ts=f"17000000{i:02d}.000100", request=f"request number {i}")
    alice = view.signed_in(ALICE)
    first = alice.get("/ui/").body
    assert "(55)" in first
    assert "request number 54" in first
    assert "request number 4<" not in first  # on the second page
    assert "request number 4<" in alice.get("/ui/?page=2").body
    found = alice.get("/ui/?q=NUMBER+7").body
    assert "(1)" in found
    assert "request number 7" in found
    assert "(0)" in alice.get("/ui/proposals").body  # every one is approved (its PR open)
    assert "(55)" in alice.get("/ui/?state=approved").body
    assert "(0)" in alice.get("/ui/?state=running").body
    assert "(55)" in alice.get(f"/ui/?requester={ALICE}&env=environments/dev").body


def test_script_from_a_request_an_answer_and_a_commit_message_is_text(view: View) -> None:
    record_session(view.recorder, request="<script>alert('request')</script> please")
    alice = view.signed_in(ALICE)
    for body in (alice.get(PAGE).body, alice.get("/ui/").body):
        assert "<script" not in body
    body = alice.get(PAGE).body
    assert "&lt;script&gt;alert(&#39;request&#39;)&lt;/script&gt;" in body
    assert "&lt;script&gt;alert(&#39;answer&#39;)&lt;/script&gt;" in body  # the answer
    assert "Scale &lt;script&gt;alert(1)&lt;/script&gt;" in body  # the commit message (title)
    assert "&lt;script&gt;alert(&#39;repo&#39;)&lt;/script&gt;" in body  # the diff


def test_a_secret_value_in_a_proposal_is_masked(view: View, tmp_path: Path) -> None:
    record_session(view.recorder)
    audit = Audit(JsonLinesAudit(tmp_path / "a", retention=3600, max_events=1000),
                  history=view.recorder)  # fmt: skip
    audit.start()
    mask = SecretMask([SECRET_VALUE])
    key = ThreadKey(CHANNEL, TS)
    audit.with_mask(mask.apply).keep("proposal", key, "2", {
        "number": 2, "diff": f"+  password: '{SECRET_VALUE}'\n",
        "rendered": f"+  DB_PASSWORD: {SECRET_VALUE}\n", "checks": "", "title": "rotate",
    })  # fmt: skip
    audit.close()
    body = view.signed_in(ALICE).get(PAGE).body
    assert "Proposal 2" in body
    assert SECRET_VALUE not in body
    assert SECRET_VALUE[:12] not in body


@pytest.mark.parametrize(
    "path", ["/ui/", PAGE, "/ui/nope", "/ui/static/style.css", "/ui/audit", "/ui/cost"]
)
def test_every_response_sends_the_security_headers(view: View, path: str) -> None:
    record_session(view.recorder)
    for browser in (view.browser(), view.signed_in(ALICE)):
        response = browser.get(path)
        csp = response.header("Content-Security-Policy") or ""
        assert "default-src 'none'" in csp
        assert "script-src" not in csp  # none at all: default-src 'none' covers scripts
        assert "'unsafe-inline'" not in csp
        assert "frame-ancestors 'none'" in csp
        assert response.header("X-Content-Type-Options") == "nosniff"
        assert response.header("Referrer-Policy") == "no-referrer"
        assert response.header("X-Frame-Options") == "DENY"


def test_audit_cost_and_metrics(view: View) -> None:
    key = record_session(view.recorder)
    now = time.time()
    view.recorder.keep("answer", key, "2", {"turn": 2, "at": now, "text": "ok", "cost": 0.25,
                                            "input_tokens": 10, "output_tokens": 1})  # fmt: skip
    alice = view.signed_in(ALICE)
    cost = alice.get("/ui/cost").body
    assert day_of(now) in cost
    assert "0.2500" in cost
    assert alice.get("/ui/audit.jsonl").status == 200
    assert view.metric("tanka_bot_web_page_views_total", {"page": "cost"}) == 1
    assert view.metric("tanka_bot_web_page_views_total", {"page": "audit_jsonl"}) == 1


def test_without_the_settings_there_is_no_view(tmp_path: Path) -> None:
    from bot.config import Settings  # noqa: PLC0415 - this test only
    from bot.web.app import build_web  # noqa: PLC0415 - this test only

    app = build_web(Settings(), store=MemoryStore(), history=MemoryHistory(days=1),
                    audit=JsonLinesAudit(tmp_path, retention=60, max_events=1000), slack=None,
                    registry=None)  # type: ignore[arg-type]  # fmt: skip
    assert app is None


def test_slack_down_is_a_503_page_and_membership_unknown_shows_nothing(view: View) -> None:
    record_session(view.recorder)
    alice = view.signed_in(ALICE)
    view.slack.fail("auth.test", times=5)  # the workspace's URL, for the Slack link
    down = alice.get(PAGE)
    assert down.status == 503
    assert "slack cannot be reached" in down.body
    assert down.header("Content-Security-Policy")


def test_membership_that_cannot_be_read_shows_nothing(view: View) -> None:
    record_session(view.recorder)
    bob = view.signed_in(BOB)
    view.slack.fail("conversations.members", times=5)  # nothing cached yet
    assert "scale grafana" not in bob.get("/ui/").body  # fail closed
    assert bob.get(PAGE).status == 404


def test_slacks_markup_reads_as_text_and_stays_escaped() -> None:
    assert slack_text("Needs 1 approval from <@U0BOB> or <!subteam^S0SRE|@sre>") == (
        "Needs 1 approval from @U0BOB or @S0SRE"
    )
    assert slack_text(":x: checks: 2 errors") == "✗ checks: 2 errors"
    # Plain text: the template escapes it as any other.
    assert slack_text("<script>alert(1)</script>") == "<script>alert(1)</script>"
    assert slack_text(None) == ""
