"""`tanka-bot serve` runs its turns in a work process of its own: the serving process
acknowledges Slack while the turns hold another interpreter. Over real HTTP, with a real Redis
and without (the serving process keeps the state in memory): the turns run in that process, it
is started again when it dies (with /readyz saying so meanwhile, and nothing acknowledged lost,
nor a session), it never outlives the serving process, and its metrics are the replica's."""

from __future__ import annotations

import json
import os
import re
import signal
import sys
import time
from pathlib import Path

import pytest

from tests.e2e.harness import Bot, Stack, stack

ROOT = Path(__file__).resolve().parents[2]

PIDS = re.compile(r"work process (\d+) started")


def work_pids(bot: Bot) -> list[int]:
    """The work processes `bot` started, oldest first (its log says each one)."""
    pids = []
    for line in bot.log().splitlines():
        try:
            message = json.loads(line).get("message", "")
        except ValueError:
            continue
        if match := PIDS.fullmatch(str(message)):
            pids.append(int(match.group(1)))
    return pids


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (exited, not yet reaped by its parent) counts as gone.
    state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    return state != "Z"


def wait_until(condition: object, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if callable(condition) and condition():
            return
        time.sleep(0.1)
    raise AssertionError(f"not met within {timeout} s")


def turns_in(s: Stack) -> float:
    assert s.bot is not None
    status, text = s.bot.get("/metrics")
    assert status == 200
    return sum(
        float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line.startswith("tanka_bot_turns_total{")
    )


@pytest.mark.parametrize("redis", [True, False], ids=["redis", "memory"])
def test_turns_run_in_the_work_process_and_its_metrics_are_the_replicas(
    tmp_path: Path, redis: bool
) -> None:
    with stack(tmp_path, redis=redis) as s:
        bot = s.start_bot()
        [pid] = work_pids(bot)
        assert pid != bot.process.pid
        assert alive(pid)
        s.model.answer("Hello from the work process.")
        root = s.mention("hi")
        s.wait_text(root.ts, "Hello from the work process.")
        # Only the work process runs turns; the serving process's /metrics counts them.
        wait_until(lambda: turns_in(s) == 1)
        assert "work process ready" in bot.log()
        # It yields the core to the serving process: the idle class (Linux), the serving
        # process's own left as it was.
        assert os.sched_getscheduler(pid) == os.SCHED_IDLE
        assert os.sched_getscheduler(bot.process.pid) == os.SCHED_OTHER


@pytest.mark.parametrize("redis", [True, False], ids=["redis", "memory"])
def test_a_dead_work_process_is_started_again_and_loses_no_mention(
    tmp_path: Path, redis: bool
) -> None:
    with stack(tmp_path, redis=redis) as s:
        bot = s.start_bot()
        [first] = work_pids(bot)
        s.model.answer("Before the kill.")
        earlier = s.mention("first")
        s.wait_text(earlier.ts, "Before the kill.")
        os.kill(first, signal.SIGKILL)
        # The 503 is read from the answer that showed it: on a loaded machine the restart may
        # be done by the time a second request is made.
        down: list[str] = []

        def reported_down() -> bool:
            status, text = bot.get("/readyz")
            down.extend([text] if status == 503 else [])
            return bool(down)

        wait_until(reported_down, timeout=10)
        assert "work process" in down[0]
        s.model.answer("Answered after the restart.")
        root = s.mention("still there?")  # acknowledged while no process takes work
        s.wait_text(root.ts, "Answered after the restart.", timeout=60)
        wait_until(lambda: bot.get("/readyz")[0] == 200, timeout=30)
        pids = work_pids(bot)
        assert len(pids) == 2
        assert pids[0] == first
        assert alive(pids[1])
        assert sum("Answered after" in t for t in s.bot_texts(root.ts)) == 1
        # The session the dead process answered in is kept (in Redis, or the serving process)
        s.model.answer("Same session.")
        s.reply(earlier.ts, "and again")
        s.wait_text(earlier.ts, "Same session.", timeout=60)


def test_the_work_process_never_outlives_the_serving_process(tmp_path: Path) -> None:
    with stack(tmp_path, redis=True) as s:
        bot = s.start_bot()
        [pid] = work_pids(bot)
        bot.stop(signal.SIGKILL)  # no goodbye: the pipe closing is all it hears
        wait_until(lambda: not alive(pid), timeout=10)


def test_a_work_process_slow_to_answer_keeps_the_replica_in_traffic(tmp_path: Path) -> None:
    """It runs at the lowest CPU priority: off the CPU for a moment (here: stopped), its last
    answer stands, so /readyz does not flap to 503 and take the replica out of traffic."""
    with stack(tmp_path, redis=True) as s:
        bot = s.start_bot()
        [pid] = work_pids(bot)
        assert bot.get("/readyz")[0] == 200
        os.kill(pid, signal.SIGSTOP)
        try:
            time.sleep(0.6)  # the last answer is no longer fresh: the question is asked
            status, body = bot.get("/readyz")
            assert (status, body.splitlines()[0]) == (200, "ready")
            # The serving process goes while that question waits: answering it fails, and the
            # work process goes too rather than live on alone.
            bot.stop(signal.SIGKILL)
        finally:
            os.kill(pid, signal.SIGCONT)
        wait_until(lambda: not alive(pid), timeout=10)


def test_sigterm_stops_both_processes_cleanly(tmp_path: Path) -> None:
    with stack(tmp_path, redis=True) as s:
        bot = s.start_bot()
        [pid] = work_pids(bot)
        assert bot.stop(signal.SIGTERM) == 0
        wait_until(lambda: not alive(pid), timeout=10)
        assert "work process stopped (all turns finished)" in bot.log()


def test_mcp_servers_run_once_in_the_work_process_and_readyz_names_the_failing_one(
    tmp_path: Path,
) -> None:
    mcp = tmp_path / "mcp.yaml"
    mcp.write_text(
        "servers:\n"
        f"  ops:\n    command: [{sys.executable}, -m, fakes.mcp_server]\n"
        f"    env: {{PYTHONPATH: '{ROOT}'}}\n"
        "  gone:\n    command: [no-such-mcp-binary]\n"
    )
    with stack(tmp_path, redis=True) as s:
        bot = s.start_bot({"TANKA_BOT_MCP_CONFIG": str(mcp)})
        [pid] = work_pids(bot)
        status, body = bot.get("/readyz")
        assert status == 200
        assert "degraded: MCP server gone: cannot start" in body
        servers = [p for p in Path("/proc").iterdir() if p.name.isdigit() and _runs_fake_mcp(p)]
        assert [parent_of(p) for p in servers] == [pid]  # one, started by the work process


def _runs_fake_mcp(proc: Path) -> bool:
    try:
        return b"fakes.mcp_server" in (proc / "cmdline").read_bytes()
    except OSError:
        return False


def parent_of(proc: Path) -> int:
    return int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
