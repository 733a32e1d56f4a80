"""Guardrails over real HTTP into `tanka-bot serve`, in memory and with a real Redis: freezes
(an admin's, and the settings file's windows) with an override, policy waivers, budgets, and
one bot pull request per environment (two replicas agreeing on a hold, a lost merge webhook
recovered by the periodic check).

Windows that start and end by the clock, and waivers that expire, are tested in-process with
freezegun (tests/unit/guards); here time is the real one, so freezes begin and end by command
and fixed windows are set around now.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path

import pytest

from fakes import github_webhooks as hooks
from fakes.slack_interactions import app_home_opened
from fakes.slack_server import SlackMessage
from tests.e2e.harness import ALICE, BOB, CHANNEL, Stack, stack
from tests.e2e.test_teams import audit, settings_file
from tests.scenarios.models import Call
from tests.scenarios.project import git, make_project_with_policy

PROD = "environments/prod/main.jsonnet"
DEV = "environments/dev/main.jsonnet"
OPS = "U0OPS"  # an admin
PLATFORM = "U0PLAT"  # owns the policy rule
REPO = "acme/infra"
STORES = [pytest.param(False, id="memory"), pytest.param(True, id="redis")]


def command(s: Stack, text: str, *, user: str = OPS) -> str:
    """`/tanka <text>` by `user`; the ephemeral answer's text."""
    before = len(s.slack.ephemerals)
    s.sender.command(text, channel_id=CHANNEL, user_id=user)

    def answered() -> str | None:
        new = [e for e in s.slack.ephemerals[before:] if e.user == user]
        return new[0].text if new else None

    return s.slack.wait_for(answered, 30)


def scale_prod(s: Stack, replicas: int, **usage: int) -> tuple[SlackMessage, SlackMessage]:
    s.model.calls(
        Call(
            f"c{replicas}",
            "file_edit",
            {"path": PROD, "old_text": "replicas=2", "new_text": f"replicas={replicas}"},
        )
    )
    s.model.answer(f"Prod now runs {replicas}.", **usage)
    root = s.mention(f"scale grafana in prod to {replicas}")
    return root, s.proposal(root.ts)


def events(s: Stack, name: str) -> list[dict[str, object]]:
    return [e for e in audit(s) if e["event"] == name]


@pytest.mark.parametrize("redis", STORES)
def test_a_freeze_starts_and_ends_while_a_proposal_waits(tmp_path: Path, redis: bool) -> None:
    with stack(tmp_path, redis=redis) as s:
        s.start_bot(settings_file(tmp_path, {"admins": [OPS]}))
        root, proposal = scale_prod(s, 3)
        assert "Frozen" not in str(proposal.blocks)

        assert command(s, "freeze environments/prod* 2h incident 42", user=BOB).startswith(
            "Only an admin (<@U0OPS>)"
        )
        assert "Frozen `environments/prod*` until" in command(
            s, "freeze environments/prod* 2h incident 42"
        )
        s.slack.wait_for(
            lambda: any(
                "froze `environments/prod*`" in m.text for m in s.slack.bot_messages(CHANNEL)
            ),
            30,
        )
        assert "incident 42 (by <@U0OPS>)" in command(s, "freezes", user=ALICE)

        s.react(proposal.ts, "white_check_mark", user=BOB)
        refused = s.wait_text(root.ts, "is frozen until")
        assert "`environments/prod` is frozen until" in refused.text
        assert "(incident 42)" in refused.text
        assert "override REASON" in refused.text
        assert "<@U0OPS>" in refused.text
        assert s.github.repos[REPO].pulls == {}

        assert command(s, "unfreeze environments/prod*") == "Unfrozen `environments/prod*`."
        assert command(s, "freezes", user=ALICE) == "Nothing is frozen now."
        s.react(proposal.ts, "white_check_mark", user=BOB)
        s.wait_text(root.ts, "Opened pull request #1")

        kinds = {e["event"]: e for e in audit(s)}
        assert kinds["freeze"]["user"] == OPS
        assert kinds["freeze"]["details"]["reason"] == "incident 42"
        assert kinds["unfreeze"]["user"] == OPS
        _, metrics = s.bot.get("/metrics") if s.bot else (0, "")
        assert 'tanka_bot_guard_refusals_total{guard="freeze"} 1.0' in metrics


def test_a_settings_window_freezes_a_proposal_and_an_admin_override_lets_it_pass(
    tmp_path: Path,
) -> None:
    now = datetime.now(UTC)
    window = {
        "envs": ["environments/prod*"],
        "reason": "holidays",
        "from": (now - timedelta(hours=1)).isoformat(),
        "to": (now + timedelta(hours=1)).isoformat(),
    }
    with stack(tmp_path) as s:
        s.start_bot(settings_file(tmp_path, {"admins": [OPS], "freezes": [window]}))
        root, proposal = scale_prod(s, 4)
        assert "Frozen: `environments/prod` is frozen until" in str(proposal.blocks)
        assert "(holidays)" in str(proposal.blocks)
        assert "holidays (settings file)" in command(s, "freezes", user=ALICE)

        s.reply(root.ts, "override the freeze please", user=BOB)  # not an admin
        s.wait_text(root.ts, "only an admin (<@U0OPS>) may override a freeze")
        s.react(proposal.ts, "white_check_mark", user=BOB)
        s.wait_text(root.ts, "It can be approved once the freeze ends")

        s.reply(root.ts, "override customer outage, fix reviewed by SRE", user=OPS)
        s.wait_text(root.ts, "overrode the freeze for proposal 1: customer outage")
        s.react(proposal.ts, "white_check_mark", user=BOB)
        s.wait_text(root.ts, "Opened pull request #1")
        body = s.github.repos[REPO].pulls[1].body
        assert "Freeze overridden by Slack user U0OPS: customer outage, fix reviewed by SRE" in body
        [override] = events(s, "override")
        assert override["user"] == OPS
        assert override["details"]["frozen"] == ["environments/prod"]  # type: ignore[index]


@pytest.mark.parametrize("redis", STORES)
def test_a_failing_policy_blocks_approval_until_its_owner_waives_it(
    tmp_path: Path, redis: bool
) -> None:
    owners = {"main.deny_capacity": [PLATFORM]}
    with stack(
        tmp_path, redis=redis, project=partial(make_project_with_policy, rule="deny_capacity")
    ) as s:
        s.start_bot(settings_file(tmp_path, {"admins": [OPS], "policy_owners": owners}))
        root, proposal = scale_prod(s, 9)
        blocks = str(proposal.blocks)
        assert "more than 5 replicas needs a capacity review" in blocks
        assert "Policy `main.deny_capacity` denies this change" in blocks

        s.react(proposal.ts, "white_check_mark", user=BOB)
        refused = s.wait_text(root.ts, "not opened: policy `main.deny_capacity` denies")
        assert "<@U0PLAT> may reply `waive main.deny_capacity REASON [for 7d]`" in refused.text
        assert s.github.repos[REPO].pulls == {}

        s.reply(root.ts, "waive main.deny_capacity I say so", user=BOB)
        s.wait_text(root.ts, "only the owners of `main.deny_capacity` (<@U0PLAT>) may waive it")
        s.reply(root.ts, "waive main.deny_schema it is fine", user=PLATFORM)
        s.wait_text(root.ts, "`main.deny_schema` cannot be waived")
        s.reply(root.ts, "waive deny_capacity load test next week for 3d", user=PLATFORM)
        waived = s.wait_text(root.ts, "waived `main.deny_capacity` for this thread until")
        assert "Proposal 1 no longer needs it to pass" in waived.text

        s.react(proposal.ts, "white_check_mark", user=BOB)
        s.wait_text(root.ts, "Opened pull request #1")
        body = s.github.repos[REPO].pulls[1].body
        assert "Policy `main.deny_capacity` waived by Slack user U0PLAT until" in body
        assert "load test next week" in body
        [waiver] = events(s, "waiver")
        assert waiver["user"] == PLATFORM
        assert waiver["details"]["rule"] == "main.deny_capacity"  # type: ignore[index]


@pytest.mark.parametrize("redis", STORES)
def test_a_budget_crossed_inside_a_turn_lets_it_finish_and_refuses_the_next(
    tmp_path: Path, redis: bool
) -> None:
    budget = {"budgets": [{"channels": [CHANNEL], "daily_usd": 1}], "admins": [OPS]}
    with stack(tmp_path, redis=redis) as s:
        s.start_bot(
            {**settings_file(tmp_path, budget), "TANKA_BOT_PRICES": "claude-opus-4-6=15/75"}
        )
        # One turn spends $1.50 of the $1 budget: it passes 80% and 100% and still finishes.
        root, proposal = scale_prod(s, 3, input_tokens=100_000, output_tokens=0)
        warned = s.wait_text(root.ts, "Budget: the daily budget of <#C0DEPLOY>")
        assert "(150%)" in warned.text
        assert "new turns are refused until it resets" in warned.text
        s.sender.send(app_home_opened(user=OPS))  # the admins' Home tab says so too
        homes = s.slack.wait_for(
            lambda: [v for v in s.slack.views("home") if v.user == OPS] or None, 15
        )
        guardrails = json.dumps(homes[0].view)
        assert ":warning: daily budget of <#C0DEPLOY>: $1.50 of $1.00 (150%)" in guardrails
        assert "Proposal 1" in proposal.text

        calls = s.model.request_count()
        s.reply(root.ts, "now dev too")
        refused = s.wait_text(root.ts, "Not starting a turn")
        tomorrow = (datetime.now(UTC) + timedelta(days=1)).strftime("%Y-%m-%d 00:00 UTC")
        assert f"resets {tomorrow}" in refused.text
        assert "$1.50 of $1.00" in refused.text
        assert "`/tanka budget raise USD`" in refused.text
        assert "<@U0OPS>" in refused.text
        assert s.model.request_count() == calls  # refused before any model call

        assert "$1.50 of $1.00 (150%)" in command(s, "budget", user=ALICE)
        assert command(s, "budget raise 5", user=BOB).startswith("Only an admin")
        assert "$1.50 of $6.00 (25%)" in command(s, "budget raise 5")

        s.model.answer("Dev is unchanged.")
        s.reply(root.ts, "now dev too")
        s.wait_text(root.ts, "Dev is unchanged.")
        assert len(events(s, "budget_warning")) == 1  # once per budget and period
        [refusal] = events(s, "budget_refused")
        assert round(refusal["details"]["spent_usd"], 2) == 1.5  # type: ignore[index]
        [raised] = events(s, "budget_raised")
        assert raised["user"] == OPS
        _, metrics = s.bot.get("/metrics") if s.bot else (0, "")
        assert 'tanka_bot_guard_refusals_total{guard="budget"} 1.0' in metrics


LIB = "lib/app.libsonnet"


def _label_every_deployment(s: Stack) -> tuple[SlackMessage, SlackMessage]:
    """A second session whose change renders differently in dev and prod (a library edit)."""
    s.model.calls(
        Call(
            "l1",
            "file_edit",
            {
                "path": LIB,
                "old_text": "metadata: { name: name },",
                "new_text": "metadata: { name: name, labels: { team: 'obs' } },",
            },
        )
    )
    s.model.answer("Every deployment is labelled.")
    root = s.mention("label every deployment with team obs")
    return root, s.proposal(root.ts)


def _open_prod_pull_request(s: Stack) -> SlackMessage:
    root, proposal = scale_prod(s, 3)
    s.react(proposal.ts, "white_check_mark", user=BOB)
    s.wait_text(root.ts, "Opened pull request #1")
    return root


@pytest.mark.parametrize("redis", STORES)
def test_one_bot_pull_request_per_environment_and_the_waiting_thread_goes_on_after_the_merge(
    tmp_path: Path, redis: bool
) -> None:
    with stack(tmp_path, redis=redis) as s:
        s.start_bot()
        first = _open_prod_pull_request(s)
        if redis:  # a second replica sees the first one's hold
            s.start_bot({"TANKA_BOT_WORKDIR": str(tmp_path / "replica-2")})
        root, proposal = _label_every_deployment(s)
        assert "Waiting: `environments/prod` is in pull request" in str(proposal.blocks)
        s.react(proposal.ts, "white_check_mark", user=BOB)
        refused = s.wait_text(root.ts, "opened from another thread: one bot pull request per")
        assert "`environments/prod` is in pull request <" in refused.text
        assert list(s.github.repos[REPO].pulls) == [1]
        assert "`environments/prod`: <" in command(s, "status", user=ALICE)

        # Pull request #1 merges: the base moves, and its webhook frees prod.
        pull = s.github.repos[REPO].pulls[1]
        git(
            s.origin, "update-ref", "refs/heads/main", git(s.origin, "rev-parse", pull.head).strip()
        )
        pull.merged, pull.state = True, "closed"
        repo = s.github.repos[REPO]
        s.webhooks.send("pull_request", hooks.pull_request(repo, pull, action="closed", by="erin"))
        s.wait_text(first.ts, "Pull request #1 was merged by *erin*")
        s.wait_text(
            root.ts, "Pull request #1, which held an environment of this thread, was merged"
        )
        again = s.proposal(root.ts, 2)
        assert "Waiting" not in str(again.blocks)
        s.react(proposal.ts, "white_check_mark", user=BOB)  # the old proposal's approval
        s.wait_text(root.ts, "that is proposal 1, not the latest")
        s.react(again.ts, "white_check_mark", user=BOB)
        s.wait_text(root.ts, "Opened pull request #2")
        [waiting] = events(s, "proposal_waiting")[:1]
        assert waiting["details"]["pr"] == 1  # type: ignore[index]


def test_a_lost_merge_webhook_is_recovered_by_the_periodic_check(tmp_path: Path) -> None:
    with stack(tmp_path, redis=True) as s:
        # A short session TTL makes the sweep (and the hold check with it) run every 10 s.
        s.start_bot({"TANKA_BOT_SESSION_TTL": "40"})
        _open_prod_pull_request(s)
        root, proposal = _label_every_deployment(s)
        s.react(proposal.ts, "white_check_mark", user=BOB)
        s.wait_text(root.ts, "one bot pull request per environment")

        s.github.repos[REPO].pulls[1].state = "closed"  # closed on GitHub; no webhook arrives
        s.wait_text(root.ts, "was closed or merged (found by the periodic check)", timeout=60)
        s.wait_text(root.ts, "Proposal 1 is unchanged on the newest base")
        s.react(proposal.ts, "white_check_mark", user=BOB)
        s.wait_text(root.ts, "Opened pull request #2")


def _scale_dev(s: Stack) -> tuple[SlackMessage, SlackMessage]:
    s.model.calls(
        Call("d1", "file_edit", {"path": DEV, "old_text": "replicas=1", "new_text": "replicas=3"})
    )
    s.model.answer("Dev runs 3.")
    root = s.mention("scale grafana in dev to 3")
    return root, s.proposal(root.ts)


@pytest.mark.parametrize("redis", STORES)
def test_an_approval_after_the_base_moved_under_what_it_renders_asks_again(
    tmp_path: Path, redis: bool
) -> None:
    with stack(tmp_path, redis=redis) as s:
        s.start_bot()
        # A move that changes nothing dev reads: the approval stands.
        root, proposal = _scale_dev(s)
        _move_main(s, "lib/obsolete.libsonnet", "{}", "{ unused: true }")
        s.react(proposal.ts, "white_check_mark", user=BOB)
        s.wait_text(root.ts, "Opened pull request #1")

        # A move of the library prod reads: the approval does not count, prod is proposed again.
        root, proposal = scale_prod(s, 4)
        head = _move_main(
            s,
            LIB,
            "spec: { replicas: replicas },",
            "spec: { replicas: replicas, revisionHistoryLimit: 3 },",
        )
        s.react(proposal.ts, "white_check_mark", user=BOB)
        stale = s.wait_text(root.ts, "your approval of proposal 1 does not count")
        assert f"`main` moved to `{head[:7]}`" in stale.text
        assert "`environments/prod`" in stale.text
        again = s.proposal(root.ts, 2)
        assert list(s.github.repos[REPO].pulls) == [1]
        s.react(again.ts, "white_check_mark", user=BOB)
        s.wait_text(root.ts, "Opened pull request #2")
        [event] = events(s, "proposal_stale")
        assert event["details"]["head"] == head  # type: ignore[index]
        assert event["details"]["environments"] == ["environments/prod"]  # type: ignore[index]


def _move_main(s: Stack, path: str, old: str, new: str) -> str:
    """Someone else's commit on the origin's main; its id."""
    work = s.tmp / f"other-{len(list(s.tmp.glob('other-*')))}"
    git(s.tmp, "clone", "--quiet", str(s.origin), str(work))
    file = work / path
    file.write_text(file.read_text().replace(old, new))
    git(work, "commit", "--quiet", "-am", f"{path}: {new}")
    git(work, "push", "--quiet", "origin", "HEAD:main")
    return git(work, "rev-parse", "HEAD").strip()
