"""20 Slack threads at once, each a scripted 10-step turn, through the whole Slack service.

    .venv/bin/python bench/serve_turns.py [THREADS] [STEPS]

In one process: the service as `serve` builds it (store in memory, repo cache, workspaces, the
real tools and Tanka engine, the Slack client talking to the local Slack simulator), with a
scripted model in place of the provider: each turn makes STEPS - 1 tool calls (reads, a search,
an edit, validation, tanka_show and tanka_diff) and then answers, and its proposal is rendered
and posted. Prints the wall time until every thread has its proposal, the turn latency
percentiles, and the peak memory of the process and of its children (the evaluation workers).
"""

from __future__ import annotations

import os
import resource
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for fakes/ (the local fakes)

from support import bare_origin

from bot.agent.messages import (
    LLMProvider,
    Message,
    ModelRequest,
    ModelResponse,
    StopReason,
    Text,
    ToolCall,
    Usage,
)
from bot.app import build_service
from bot.config import load_settings
from bot.domain.requests import Mention
from fakes.slack_server import SlackServer

CHANNEL = "C0BENCH"
MAIN = "local app = import 'app.libsonnet';\n\n{\n  web: app.deployment('web', replicas=1),\n}\n"
APP = (
    "{\n  deployment(name, replicas=1):: {\n    apiVersion: 'apps/v1', kind: 'Deployment',\n"
    "    metadata: { name: name }, spec: { replicas: replicas },\n  },\n}\n"
)


def plan(thread: int) -> list[tuple[str, dict[str, object]]]:
    env = f"environments/env{thread % 4}"
    return [
        ("file_list", {"glob_pattern": "environments/**"}),
        ("file_read", {"path": "lib/app.libsonnet"}),
        ("file_search", {"glob_pattern": "**/*.jsonnet", "text_query": "replicas"}),
        ("file_read", {"path": f"{env}/main.jsonnet"}),
        (
            "file_edit",
            {
                "path": f"{env}/main.jsonnet",
                "old_text": "replicas=1",
                "new_text": f"replicas={thread + 2}",
            },
        ),
        ("tanka_validate_jsonnet", {"file_path": f"{env}/main.jsonnet"}),
        ("tanka_show", {"env_path": env}),
        ("tanka_diff", {"env_path": env}),
        ("git_diff", {}),
    ]


class LoopingModel:
    """Answers from the conversation alone, so concurrent turns never share a script."""

    def __init__(self, steps: int) -> None:
        self.steps = steps

    @property
    def name(self) -> str:
        return "anthropic"

    @property
    def model(self) -> str:
        return "scripted"

    def complete(self, request: ModelRequest) -> ModelResponse:
        prompt = request.messages[0].text
        thread = int(prompt.rsplit(" ", 1)[-1])
        done = sum(1 for m in request.messages if m.role == "assistant")
        calls = plan(thread)[: self.steps - 1]
        usage = Usage(input_tokens=2000 + 500 * done, output_tokens=80)
        if done < len(calls):
            name, args = calls[done]
            call = ToolCall(f"t{thread}-{done}", name, args)
            return ModelResponse(Message("assistant", (call,)), usage, StopReason.TOOL_USE)
        text = Text(f"Scaled web to {thread + 2} replicas.")
        return ModelResponse(Message("assistant", (text,)), usage, StopReason.COMPLETE)


def origin(tmp: Path) -> Path:
    files = {"lib/app.libsonnet": APP, "jsonnetfile.json": "{}\n"}
    for i in range(4):
        files[f"environments/env{i}/main.jsonnet"] = MAIN
        files[f"environments/env{i}/spec.json"] = (
            '{"apiVersion": "tanka.dev/v1alpha1", "kind": "Environment", "metadata": '
            f'{{"name": "environments/env{i}"}}, "spec": {{"namespace": "env{i}"}}}}\n'
        )
    return bare_origin(tmp, files)


def main() -> None:
    threads = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    with tempfile.TemporaryDirectory() as tmp_name, SlackServer() as slack:
        tmp = Path(tmp_name)
        settings = load_settings({
            "SLACK_BOT_TOKEN": slack.bot_token, "SLACK_SIGNING_SECRET": "bench",
            "TANKA_BOT_SLACK_API_URL": slack.api_url, "TANKA_BOT_REPO_URL": str(origin(tmp)),
            "GITHUB_TOKEN": "bench", "TANKA_BOT_GITHUB_REPO": "acme/infra",
            "ANTHROPIC_API_KEY": "bench", "TANKA_BOT_WORKDIR": str(tmp / "work"),
            "TANKA_BOT_WORKERS": str(threads),
            # The scripted model plays the agent only; the reviewer has its own benchmark.
            "TANKA_BOT_REVIEW": "false",
        })  # fmt: skip
        model: LLMProvider = LoopingModel(steps)
        service = build_service(settings, provider_factory=lambda _s: model)
        service.maintenance.run_once()  # clone the cache and make spares, as serve does at start
        roots = [slack.add_message(CHANNEL, f"<@U0BOT> scale web {i}", user="U0BENCH")
                 for i in range(threads)]  # fmt: skip
        started = time.perf_counter()
        finished: dict[str, float] = {}
        lock = threading.Lock()

        def proposals() -> bool:
            for root in roots:
                if root.ts in finished:
                    continue
                if any("Proposal 1" in m.text for m in slack.bot_messages(CHANNEL, root.ts)):
                    with lock:
                        finished[root.ts] = time.perf_counter() - started
            return len(finished) == threads

        for i, root in enumerate(roots):
            service.runner.handle(Mention(CHANNEL, "U0BENCH", f"scale web {i}", root.ts, None))
        slack.wait_for(proposals, timeout=600)
        wall = time.perf_counter() - started
        service.stop(30)
        latencies = sorted(finished.values())
        own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        q = statistics.quantiles(latencies, n=100) if len(latencies) > 1 else latencies * 99
        print(f"{threads} threads x {steps}-step turns, {os.cpu_count()} cores")
        print(f"wall time until every proposal was posted: {wall:.1f} s")
        print(f"per thread: p50 {q[49]:.1f} s   p99 {q[98]:.1f} s   first {latencies[0]:.1f} s")
        print(f"peak RSS: service process {own:.0f} MB; largest child (eval worker, git) "
              f"{children:.0f} MB")  # fmt: skip
        outcomes = {
            outcome: sum(
                sample.value
                for metric in service.svc.metrics.tool_calls.collect()
                for sample in metric.samples
                if sample.name.endswith("_total") and sample.labels.get("outcome") == outcome
            )
            for outcome in ("ok", "error")
        }
        print(
            f"tool calls: {outcomes['ok']:.0f} ok, {outcomes['error']:.0f} failed; "
            f"Slack API calls: {len(slack.calls())}, limit violations: {len(slack.violations)}"
        )


if __name__ == "__main__":
    main()
