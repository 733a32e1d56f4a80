"""A proposal for a library change that touches ENVS generated environments, end to end.

The repository: fakes/tanka_envs.py's project (the tests' too): a library (a Deployment, a
Service, a ConfigMap and a Secret per environment) and ENVS environments generated from it, one
namespace each, in VARIANTS variants (each its own replicas and memory limit). The service as
`serve` builds it (store in memory, the Slack simulator, the reviewer on) with a scripted model
that answers at once: its cache maintenance runs first (as after start-up: a spare checkout, then
the base commit's tree, import index and every base render, off the request path; timed apart),
then a mention; the model edits the library's image and memory limits (every environment
changes, each variant its own way) and answers; the bot renders the affected environments,
checks and reviews the change and posts the proposal.

Prints the maintenance time, the final answer -> proposal time (and the CPU time it took, which
depends less on what else the machine runs), mention -> proposal, the proposal's steps (the
rendered diff, whose evaluations run in the workers, the checks, the posting; the review's model
answers at once), how the proposal grouped the environments (its summary's first lines) and the
peak memory of the service process and of its largest evaluation worker.
Target (issue 25): under 40 s from the answer to the proposal on a 2-core machine, the
environments grouped into the variants. Issue 38: each evaluator (go-jsonnet, jrsonnet) cold
(the base side renders in the request) and warm (the maintenance prepared the base), side by
side with a bare go-jsonnet render of one side on all CPUs, in the same run: cold under half of
it, warm under a quarter.
Run: .venv/bin/python bench/proposal_scale.py [ENVS] [VARIANTS] [EVALUATORS, default go,rust]
"""

from __future__ import annotations

import os
import resource
import shutil
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for fakes/

from support import git

from bot.agent.messages import ModelRequest, ModelResponse
from bot.app import build_service
from bot.config import load_settings
from bot.domain.requests import Mention
from bot.handlers import turn
from bot.publish import change
from fakes.scripted_provider import ScriptedProvider, call, reply, tools
from fakes.slack_server import SlackServer
from fakes.tanka_envs import MEMORY, write_project
from tools.tanka.diff import revision
from tools.tanka.evaluation.pool import EvalPool
from tools.tanka.pipeline import render as render_module

WORK = Path(__file__).parent / ".work" / "proposal_scale"
CHANNEL = "C0SCALE"
LIBRARY = "lib/app.libsonnet"
REQUEST = "move to nginx 1.27, with more memory"
MORE_MEMORY = "['384Mi', '768Mi', '1536Mi', '3Gi']"


# The proposal's steps, timed where they are called: (module, attribute, label).
PHASES = (
    (change, "rendered_change", "rendered diff (both sides, compared)"),
    (change, "_checks", "checks (schemas, policies)"),
    (turn, "propose", "proposal built and posted"),
)


# Where the rendered diff's time goes (issue 38), timed where the service calls them: (owner,
# attribute, label). Calls run in threads at once, so these add up thread-seconds.
SLOW_PATHS: tuple[tuple[Any, str, str], ...] = (
    (EvalPool, "run", "evaluation in a worker, with the transfer"),
    (render_module, "process_loaded", "manifest extraction and processing"),
    (revision, "manifest_yaml", "YAML emission"),
    (revision, "diff_manifests", "the diff"),
    (change, "group_envs", "the grouping (the proposal)"),
    (turn, "group_envs", "the grouping (the turn)"),
)
_ORIGINALS: dict[tuple[int, str], Any] = {}


def time_phases() -> dict[str, list[float]]:
    """Wrap the turn's steps so each call adds (wall seconds, CPU seconds of the service and
    its workers meanwhile)."""
    took: dict[str, list[float]] = {}
    for module, name, label in PHASES:
        took[label] = [0.0, 0.0]
        setattr(module, name, _timed(_original(module, name), took[label]))
    return took


def time_slow_paths() -> dict[str, list[float]]:
    """Wrap the rendered diff's parts: each adds (thread-seconds, calls)."""
    took: dict[str, list[float]] = {}
    for owner, name, label in SLOW_PATHS:
        took[label] = [0.0, 0.0]
        setattr(owner, name, _counted(_original(owner, name), took[label]))
    return took


def _original(owner: Any, name: str) -> Any:
    """`owner.name` as it was before any run wrapped it (each run wraps afresh)."""
    return _ORIGINALS.setdefault((id(owner), name), getattr(owner, name))


def _counted(action: Callable[..., Any], into: list[float]) -> Callable[..., Any]:
    def run(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return action(*args, **kwargs)
        finally:
            into[0] += time.perf_counter() - start
            into[1] += 1

    return run


def _timed(action: Callable[..., Any], into: list[float]) -> Callable[..., Any]:
    def run(*args: Any, **kwargs: Any) -> Any:
        wall, cpu = time.perf_counter(), cpu_seconds()
        try:
            return action(*args, **kwargs)
        finally:
            into[0] += time.perf_counter() - wall
            into[1] += cpu_seconds() - cpu

    return run


def generate(envs: int, variants: int) -> Path:
    """A bare origin holding the library and `envs` environments."""
    shutil.rmtree(WORK, ignore_errors=True)
    work = WORK / "project"
    write_project(work, envs, variants)
    git(WORK, "init", "-q", "-b", "main", str(work))
    git(work, "add", ".")
    git(work, "commit", "-q", "-m", "generated environments")
    git(WORK, "clone", "-q", "--bare", str(work), str(WORK / "origin.git"))
    shutil.rmtree(work)
    return WORK / "origin.git"


def live_children() -> list[Path]:
    """/proc entries of this process's running children (the evaluation workers among them)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if entry.name.isdigit() and int(fields[1]) == os.getpid():
            found.append(entry)
    return found


def cpu_seconds() -> float:
    """CPU time of this process and of its children, live ones (the evaluation workers) included:
    on a shared machine the wall time depends on the others, the CPU time much less."""
    ticks = os.sysconf("SC_CLK_TCK")
    own = resource.getrusage(resource.RUSAGE_SELF)
    dead = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = own.ru_utime + own.ru_stime + dead.ru_utime + dead.ru_stime
    for entry in live_children():
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # it ended meanwhile: counted among the dead
        total += (int(fields[11]) + int(fields[12])) / ticks
    return total


class WorkerPeaks:
    """The largest peak RSS (VmHWM) of the evaluation workers, sampled while they run: they are
    replaced once they grow past a size, and getrusage's figure for ended children is the
    largest of every child, the bench's own git runs included."""

    def __init__(self, every: float = 0.2) -> None:
        self.largest_mb = 0.0
        self.every = every
        threading.Thread(target=self._watch, name="worker-peaks", daemon=True).start()

    def _watch(self) -> None:
        while True:
            for entry in live_children():
                try:
                    command = (entry / "cmdline").read_bytes()
                    status = (entry / "status").read_text()
                except OSError:
                    continue  # it ended meanwhile
                if b"tools.tanka.evaluation.worker" not in command:
                    continue
                for line in status.splitlines():
                    if line.startswith("VmHWM:"):
                        self.largest_mb = max(self.largest_mb, int(line.split()[1]) / 1024)
            time.sleep(self.every)


BARE_WORKER = """
import json, sys, _gojsonnet, rjsonnet
evaluator, root, envs = sys.argv[1], sys.argv[2], sys.argv[3:]
run = _gojsonnet.evaluate_file if evaluator == "go" else rjsonnet.evaluate_file
for env in envs:
    base = root + "/" + env
    # tk's import paths, highest precedence first as jrsonnet's jpathdir takes them
    jpath = [base, root + "/lib", base + "/vendor", root + "/vendor"]
    spec = json.load(open(base + "/spec.json"))
    run(base + "/main.jsonnet", jpathdir=jpath if evaluator != "go" else jpath[::-1],
        ext_codes={"tanka.dev/environment": json.dumps(spec)})
"""


def bare_one_side(origin: Path, envs: int, evaluator: str = "go") -> float:
    """Wall seconds for a bare evaluator to evaluate every environment once (one side of the
    change), in one process per CPU as tk's parallel export would: go-jsonnet's is the yardstick
    named by issue 38, jrsonnet's the floor of any tool built on it."""
    import subprocess  # noqa: PLC0415 - the bare baseline only

    from fakes.tanka_envs import env_dir  # noqa: PLC0415 - the bare baseline only

    checkout = WORK / "bare-checkout"
    shutil.rmtree(checkout, ignore_errors=True)
    git(WORK, "clone", "-q", str(origin), str(checkout))
    cpus = os.cpu_count() or 1
    names = [env_dir(i) for i in range(envs)]
    started = time.perf_counter()
    running = [
        subprocess.Popen(
            [sys.executable, "-c", BARE_WORKER, evaluator, str(checkout), *names[k::cpus]]
        )
        for k in range(cpus)
    ]
    if any(process.wait() for process in running):
        sys.exit("the bare go-jsonnet evaluation failed")
    return time.perf_counter() - started


def run(origin: Path, envs: int, implementation: str, *, warm: bool) -> dict[str, Any]:
    """One proposal, end to end, with `implementation` evaluating; `warm`: the cache
    maintenance prepared the base first (its renders included), as the bot does after start-up;
    cold: the base side renders in the request too."""
    answered: list[float] = []
    phases = time_phases()
    slow = time_slow_paths()
    workers = WorkerPeaks()

    def agent(request: ModelRequest) -> ModelResponse:
        if request.system.startswith("You review a change"):
            return reply("The change does what was asked.\nVERDICT: OK")
        if not any(m.role == "assistant" for m in request.messages):
            return tools(
                call("file_edit", path=LIBRARY, old_text="nginx:1.25", new_text="nginx:1.27"),
                call("file_edit", path=LIBRARY, old_text=MEMORY, new_text=MORE_MEMORY),
            )
        answered.extend((time.perf_counter(), cpu_seconds()))
        return reply("Moved every environment to nginx 1.27, with more memory.")

    workdir = WORK / f"workdir-{implementation}-{'warm' if warm else 'cold'}"
    shutil.rmtree(workdir, ignore_errors=True)
    figures: dict[str, Any] = {"maintenance": 0.0}
    with SlackServer() as slack:
        settings = load_settings({
            "SLACK_BOT_TOKEN": slack.bot_token, "SLACK_SIGNING_SECRET": "bench",
            "TANKA_BOT_SLACK_API_URL": slack.api_url, "TANKA_BOT_REPO_URL": str(origin),
            "GITHUB_TOKEN": "bench", "TANKA_BOT_GITHUB_REPO": "acme/infra",
            "ANTHROPIC_API_KEY": "bench", "TANKA_BOT_WORKDIR": str(workdir),
            "TANKA_BOT_JSONNET": implementation,
        })  # fmt: skip
        model = ScriptedProvider([agent] * 10)
        service = build_service(settings, provider_factory=lambda _s: model)
        if warm:
            started = time.perf_counter()
            if not service.maintenance.run_once():
                sys.exit(f"maintenance failed: {service.maintenance.last_error}")
            figures["maintenance"] = time.perf_counter() - started
            for spent in slow.values():  # from the mention on
                spent[:] = [0.0, 0.0]
        root = slack.add_message(CHANNEL, f"<@U0BOT> {REQUEST}", user="U0BENCH")
        mentioned = time.perf_counter()
        service.runner.handle(Mention(CHANNEL, "U0BENCH", REQUEST, root.ts, None))
        posted = 0.0
        while not posted and time.perf_counter() < mentioned + 900:
            proposal = [m for m in slack.bot_messages(CHANNEL, root.ts) if "Proposal 1" in m.text]
            posted = time.perf_counter() if proposal else 0.0
            time.sleep(0.05)
        used = cpu_seconds() - answered[1] if answered else 0.0
        texts = [m.text for m in slack.bot_messages(CHANNEL, root.ts)]
        service.stop(30)
    if not posted or not answered:
        sys.exit("no proposal was posted; the thread says:\n" + "\n---\n".join(texts))
    figures.update(
        answer=posted - answered[0], mention=posted - mentioned, cpu=used,
        phases={label: tuple(v) for label, v in phases.items()}, worker_mb=workers.largest_mb,
        slow={label: tuple(v) for label, v in slow.items()},
        proposal=next(t for t in texts if "Proposal 1" in t),
    )  # fmt: skip
    return figures


def main() -> None:
    envs = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    variants = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    evaluators = sys.argv[3].split(",") if len(sys.argv) > 3 else ["go", "rust"]
    started = time.perf_counter()
    origin = generate(envs, variants)
    cpus = os.cpu_count() or 1
    print(f"{envs} environments in {variants} variants, generated in "
          f"{time.perf_counter() - started:.1f} s; {cpus} CPUs")  # fmt: skip
    bare = bare_one_side(origin, envs)
    print(f"bare go-jsonnet, one side ({envs} evaluations, {cpus} processes): {bare:.1f} s")
    floor = bare_one_side(origin, envs, "rust")
    print(
        f"bare jrsonnet, the same: {floor:.1f} s = {floor / bare:.2f}x go-jsonnet's "
        f"(the floor of a warm change: one side; of a cold one: {2 * floor / bare:.2f}x)"
    )
    results: dict[tuple[str, bool], dict[str, Any]] = {}
    for warm in (False, True):
        for implementation in evaluators:
            figures = run(origin, envs, implementation, warm=warm)
            results[(implementation, warm)] = figures
            kind = "warm (base prepared)" if warm else "cold"
            print(f"{implementation}, {kind}:")
            if warm:
                print(f"  maintenance after start-up (spare, base tree, index, {envs} base "
                      f"renders): {figures['maintenance']:.1f} s")  # fmt: skip
            print(f"  final answer -> proposal posted: {figures['answer']:.1f} s "
                  f"= {figures['answer'] / bare:.2f}x the bare one-side render")  # fmt: skip
            print(f"  mention -> proposal posted:      {figures['mention']:.1f} s")
            print(f"  CPU time from the answer to the proposal (service and workers): "
                  f"{figures['cpu']:.1f} s")  # fmt: skip
            for label, (wall, cpu) in figures["phases"].items():
                print(f"    {label + ':':<40} {wall:5.1f} s ({cpu:.1f} s CPU)")
            print("  where the time goes, from the mention (thread-seconds, threads overlap):")
            for label, (spent, calls) in figures["slow"].items():
                print(f"    {label + ':':<44} {spent:6.1f} s in {calls:.0f} calls")
            print(f"  largest evaluation worker {figures['worker_mb']:.0f} MB")
    print("side by side (answer -> proposal; target: cold < 0.5x, warm < 0.25x the bare render):")
    for warm in (False, True):
        kind = "warm" if warm else "cold"
        line = "  ".join(
            f"{impl} {results[(impl, warm)]['answer'] / bare:.2f}x" for impl in evaluators
        )
        print(f"  {kind}: {line}")
        if len(evaluators) == 2:
            first, second = (results[(impl, warm)]["answer"] for impl in evaluators)
            print(f"    {evaluators[1]} / {evaluators[0]}: {second / first:.2f}x")
    text = results[(evaluators[-1], True)]["proposal"]
    print("the proposal's first lines:")
    for line in text.splitlines()[:12]:
        print(f"  {line[:150]}")
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS of the service process: {own:.0f} MB")


if __name__ == "__main__":
    main()
