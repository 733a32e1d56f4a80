"""One Slack session on Grafana Tempo, step by step, with a model that answers at once.

Every second measured is the bot's own. Needs a Tempo checkout: set TANKA_BENCH_TEMPO to its
`operations/jsonnet-compiled` (or pass it); without one the bench says so and exits 0. The
checkout is only read: a bare clone of it under bench/.work is the bot's remote.

1. A session, each run in a fresh process and a fresh TANKA_BOT_WORKDIR ("right after
   start-up"): the service as `serve` builds it (bot.app.build_service; store in memory, the
   Slack simulator in fakes/, the reviewer on), its background jobs started, then, as soon as
   /readyz would answer 200, a mention. /readyz waits for the repository alone, so the mention
   shares the CPUs with the first spare checkout and the base commit's renders, still being
   made. The scripted model asks for `file_edit` (a one-line change of the shared library
   Tempo's environments import), then `tanka_diff` of the compiled `microservices`, then
   answers. Steps: mention -> first model request; the edit (request to request: the tool, the
   saved patch, the progress message); the diff; the answer -> the proposal posted (rendered
   diffs of the affected environments, checks, review); mention -> proposal.
2. `tanka-bot tk diff` with no environment named, in a clone, the first run after its base
   moved (the clone pulled origin/main's new commit; a one-line edit of a library in the working
   tree). The previous base was diffed before, so its caches are warm, as on a machine in daily
   use. Two moves, each its own case: one touching only Go code and a README (no environment
   reads them: every base render carries over), and one touching also a library every affected
   environment reads (a value it renders: real evaluations). Each twice: tk diff alone (its own
   cache), and with the bot's cache maintenance on the same machine (TANKA_BOT_WORKDIR shared)
   having run since the move, as its scheduler does.
3. `tanka-bot tk show microservices` as a whole process, with each evaluator, vs a bare
   go-jsonnet evaluation of the same file in a fresh Python (bench/tk_daily.py's), alternately.
Parts 1 and 2 run with each evaluator (TANKA_BOT_JSONNET=go, =rust), alternated run by run, and
print the ratio rust / go.

Each figure: min / median / max over RUNS runs (default 3). The machine may be shared: read the
minimum. Run: .venv/bin/python bench/session_tempo.py [TEMPO_JSONNET_COMPILED] [RUNS] [PART...]
(PART: session, diff, show; default all three)
"""

from __future__ import annotations

import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from support import bytecode_env

WORK = Path(__file__).parent / ".work" / "session_tempo"
TANKA_BOT = str(Path(sys.executable).parent / "tanka-bot")
LIBRARY = "operations/jsonnet/microservices/config.libsonnet"
OLD, NEW = "replicas: 2,", "replicas: 3,"
ENV = "operations/jsonnet-compiled/microservices"
CHANNEL = "C0BENCH"
EVALUATORS = ("go", "rust")  # TANKA_BOT_JSONNET, side by side in every part
STEPS = (
    ("mention -> first model request", "first_request"),
    ("file_edit (incl. saving the edits)", "edit"),
    ("tanka_diff of microservices (first diff)", "diff"),
    ("final answer -> proposal posted", "propose"),
    ("mention -> proposal, in all", "total"),
)
BARE = """
import sys, _gojsonnet
root = sys.argv[1]
base = root + "/microservices"
jpath = [root + "/vendor", base + "/vendor", root + "/lib", base]
sys.stdout.write(_gojsonnet.evaluate_file(base + "/main.jsonnet", jpathdir=jpath))
"""


def git(cwd: Path, *args: str) -> str:
    ident = ["-c", "user.name=bench", "-c", "user.email=bench@local"]
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    done = subprocess.run(["git", *ident, *args], cwd=cwd, env=env, check=True,
                          capture_output=True, text=True)  # fmt: skip
    return done.stdout


def origin(source: Path) -> Path:
    """A bare clone of the Tempo checkout with only its main branch: the bot's remote."""
    bare = WORK / "origin.git"
    if not bare.is_dir():
        WORK.mkdir(parents=True, exist_ok=True)
        git(WORK, "clone", "-q", "--bare", "--single-branch", "--branch", "main", str(source),
            str(bare))  # fmt: skip
    return bare


def figures(values: list[float]) -> str:
    return (
        f"min {min(values):6.2f} s  median {statistics.median(values):6.2f} s  "
        f"max {max(values):6.2f} s"
    )


# --- 1. the session, in a child process -------------------------------------------------------


def one_session(remote: str, workdir: str) -> dict[str, float]:
    """Runs in its own interpreter: start the service, wait until ready, mention, time."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for fakes/
    from bot.agent.messages import ModelRequest, ModelResponse  # noqa: PLC0415 - loaded in the measured process, after its clock starts
    from bot.app import build_service  # noqa: PLC0415 - loaded in the measured process, after its clock starts
    from bot.config import load_settings  # noqa: PLC0415 - loaded in the measured process, after its clock starts
    from bot.domain.requests import Mention  # noqa: PLC0415 - loaded in the measured process, after its clock starts
    from fakes.scripted_provider import ScriptedProvider, call, reply, tools  # noqa: PLC0415 - loaded in the measured process, after its clock starts
    from fakes.slack_server import SlackServer  # noqa: PLC0415 - loaded in the measured process, after its clock starts

    requests: list[float] = []

    def agent(request: ModelRequest) -> ModelResponse:
        if request.system.startswith("You review a change"):
            return reply("The change does what was asked.\nVERDICT: OK")
        requests.append(time.perf_counter())
        done = sum(1 for m in request.messages if m.role == "assistant")
        if done == 0:
            return tools(call("file_edit", path=LIBRARY, old_text=OLD, new_text=NEW))
        if done == 1:
            return tools(call("tanka_diff", env_path=ENV))
        return reply("Raised the replicas of the shared config from 2 to 3.")

    model = ScriptedProvider([agent] * 20)
    with SlackServer() as slack:
        settings = load_settings({
            "SLACK_BOT_TOKEN": slack.bot_token, "SLACK_SIGNING_SECRET": "bench",
            "TANKA_BOT_SLACK_API_URL": slack.api_url, "TANKA_BOT_REPO_URL": remote,
            "GITHUB_TOKEN": "bench", "TANKA_BOT_GITHUB_REPO": "grafana/tempo",
            "ANTHROPIC_API_KEY": "bench", "TANKA_BOT_WORKDIR": workdir,
        })  # fmt: skip
        service = build_service(settings, provider_factory=lambda _s: model)
        booted = time.perf_counter()
        service.start_jobs(sweep_interval=300)
        while service.readiness.problem() is not None:  # what a readiness probe waits for
            time.sleep(0.05)
        ready = time.perf_counter() - booted
        root = slack.add_message(CHANNEL, "<@U0BOT> raise the replicas", user="U0BENCH")
        mentioned = time.perf_counter()
        service.runner.handle(Mention(CHANNEL, "U0BENCH", "raise the replicas", root.ts, None))
        posted = 0.0
        deadline = mentioned + 300
        while not posted and time.perf_counter() < deadline:
            if any("Proposal 1" in m.text for m in slack.bot_messages(CHANNEL, root.ts)):
                posted = time.perf_counter()
            time.sleep(0.01)
        texts = [m.text for m in slack.bot_messages(CHANNEL, root.ts)]
        service.stop(30)
    if not posted or len(requests) < 3:
        sys.exit("no proposal was posted; the thread says:\n" + "\n---\n".join(texts))
    first, edited, diffed = requests[:3]
    return {
        "ready": ready,
        "first_request": first - mentioned,
        "edit": edited - first,
        "diff": diffed - edited,
        "propose": posted - diffed,
        "total": posted - mentioned,
    }


def sessions(remote: Path, runs: int) -> None:
    print(f"1. one session, right after start-up ({runs} runs per evaluator, alternated, each a "
          "fresh process and workdir)")  # fmt: skip
    results: dict[str, list[dict[str, float]]] = {name: [] for name in EVALUATORS}
    for run in range(runs):
        for evaluator in EVALUATORS:
            workdir = WORK / f"workdir-{run}-{evaluator}"
            shutil.rmtree(workdir, ignore_errors=True)
            done = subprocess.run(
                [sys.executable, __file__, "--one-session", str(remote), str(workdir)],
                capture_output=True, text=True, check=False,
                env={**os.environ, "TANKA_BOT_JSONNET": evaluator},
            )  # fmt: skip
            shutil.rmtree(workdir, ignore_errors=True)
            if done.returncode != 0:
                sys.exit(f"session run failed:\n{done.stdout}\n{done.stderr}")
            results[evaluator].append(json.loads(done.stdout.strip().splitlines()[-1]))
    for evaluator, found in results.items():
        print(f"  TANKA_BOT_JSONNET={evaluator}")
        print(f"    {'start-up -> ready (/readyz 200)':<44} {figures([r['ready'] for r in found])}")
        for label, key in STEPS:
            print(f"    {label:<44} {figures([r[key] for r in found])}")
    go, rust = results["go"], results["rust"]
    print("  rust / go, by min:")
    for label, key in STEPS:
        by_min = min(r[key] for r in rust) / min(r[key] for r in go)
        print(f"    {label:<44} {by_min:.2f}x")


# --- 2. tk diff after the base moved ----------------------------------------------------------


# The two moves of section 2: what origin/main's new commit touches.
MOVES = {
    "Go/docs only": ("cmd/tempo/main.go", "README.md"),
    "library + Go + README": (
        "operations/jsonnet/microservices/vulture.libsonnet",
        "cmd/tempo/main.go",
        "README.md",
    ),
}


def tk_diff(remote: Path, runs: int) -> None:
    print(f"2. tanka-bot tk diff, no environment named, first run after the base moved ({runs})")
    for label, touched in MOVES.items():
        tk_diff_after(remote, runs, label, touched)


def tk_diff_after(remote: Path, runs: int, label: str, touched: tuple[str, ...]) -> None:
    from bot.runtime.scheduler import CacheMaintenance  # noqa: PLC0415 - loaded in the measured process, after its clock starts
    from bot.workspace.repo_cache import RepoCache  # noqa: PLC0415 - loaded in the measured process, after its clock starts
    from tools.tanka.base_tree import BaseTrees  # noqa: PLC0415 - loaded in the measured process, after its clock starts
    from tools.tanka.diff.revision import RevisionDiffer  # noqa: PLC0415 - loaded in the measured process, after its clock starts

    pusher, clone, tmp, workdir = (WORK / n for n in ("pusher", "clone", "tmp", "bot-workdir"))
    for path in (pusher, clone, tmp, workdir):
        shutil.rmtree(path, ignore_errors=True)
    tmp.mkdir(parents=True)
    git(WORK, "clone", "-q", "--shared", str(remote), str(pusher))
    git(WORK, "clone", "-q", "--shared", str(remote), str(clone))
    # The bot's cache maintenance on this machine, as `serve` runs it (no spares needed here).
    differ = RevisionDiffer(trees=BaseTrees(workdir / "base-trees"), persist=True)
    maintenance = CacheMaintenance(
        RepoCache(workdir, str(remote)), base_branch="main", interval=0.0, spares=0,
        prepare=lambda repo, commit, render: differ.prepare_base(repo, commit, render=render),
    )  # fmt: skip
    # tk diff's own caches, no bot around: one per evaluator, so neither warms the other's.
    alone = {}
    for evaluator in EVALUATORS:
        (tmp / evaluator).mkdir()
        alone[evaluator] = {**os.environ, "TMPDIR": str(tmp / evaluator),
                            "TANKA_BOT_JSONNET": evaluator}  # fmt: skip
    shared = {e: {**env, "TANKA_BOT_WORKDIR": str(workdir)} for e, env in alone.items()}
    diff = [TANKA_BOT, "tk", "diff"]
    edit = clone / LIBRARY
    edit.write_text(edit.read_text().replace(OLD, NEW, 1))
    for env in alone.values():  # the old base
        subprocess.run(diff, cwd=clone, env=env, capture_output=True, check=False)
    maintenance.run_once()
    times: dict[str, list[float]] = {f"{k} {e}": [] for k in ("alone", "shared") for e in alone}
    # Issue 38's yardstick, timed in the same runs: bare go-jsonnet on the compiled microservices.
    compiled = clone / Path(ENV).parent
    bare_argv = [sys.executable, "-c", BARE, str(compiled)]
    times["bare"] = []
    for run in range(runs):
        start = time.perf_counter()
        subprocess.run(bare_argv, cwd=compiled, capture_output=True, check=True)
        times["bare"].append(time.perf_counter() - start)
        move_base(pusher, run, touched)
        git(clone, "checkout", "-q", "--", ".")
        git(clone, "pull", "-q", "--ff-only")
        edit.write_text(edit.read_text().replace(OLD, NEW, 1))
        for evaluator, env in alone.items():
            times[f"alone {evaluator}"].append(timed_diff(diff, clone, env))
        assert maintenance.run_once(), maintenance.last_error  # the scheduler's run, not timed
        for evaluator, env in shared.items():
            times[f"shared {evaluator}"].append(timed_diff(diff, clone, env))
    print(f"  base move: {label}")
    for evaluator in alone:
        print(f"    {'tk diff alone (its own caches), ' + evaluator:<48} "
              f"{figures(times['alone ' + evaluator])}")  # fmt: skip
        print(f"    {'with the bot on this machine, ' + evaluator:<48} "
              f"{figures(times['shared ' + evaluator])}")  # fmt: skip
    for kind in ("alone", "shared"):
        by_min = min(times[f"{kind} rust"]) / min(times[f"{kind} go"])
        print(f"    {kind}: rust / go {by_min:.2f}x by min")
    bare = min(times["bare"])
    label = "bare go-jsonnet evaluation of microservices, fresh Python"
    print(f"    {label:<48} {figures(times['bare'])}")
    for key in ("alone go", "alone rust"):
        print(f"    tk diff {key} / bare, by min: {min(times[key]) / bare:.1f}x")


def timed_diff(argv: list[str], cwd: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    took = time.perf_counter() - start
    if done.returncode not in (0, 16):
        sys.exit(f"tk diff failed (exit {done.returncode}):\n{done.stderr}")
    return took


def move_base(pusher: Path, run: int, touched: tuple[str, ...]) -> None:
    """A commit on origin/main as main moves every day: in a library, a value its objects render
    (the CPU request, one millicore more each run: a comment would change no render); a comment
    appended to Go code, a paragraph to docs."""
    for name in touched:
        path = pusher / name
        text = path.read_text()
        if name.endswith(".libsonnet"):
            pattern = r"resourcesRequests\('(\d+)m'"
            moved, count = re.subn(pattern, lambda m: f"resourcesRequests('{int(m[1]) + 1}m'", text)
            assert count, f"{name} has no CPU request to move"
        else:
            moved = text + (f"\nmoved {run}\n" if name.endswith(".md") else f"// moved {run}\n")
        path.write_text(moved)
    git(pusher, "commit", "-q", "-am", f"base moves ({run})")
    git(pusher, "push", "-q", "origin", "HEAD:main")


# --- 3. tk show vs bare go-jsonnet ------------------------------------------------------------


def tk_show(compiled: Path, runs: int) -> None:
    print(f"3. tanka-bot tk show microservices vs a bare go-jsonnet evaluation ({runs} runs)")
    show = [TANKA_BOT, "tk", "show", "microservices", "--jsonnet-implementation"]
    commands = {
        "bare go-jsonnet in a fresh Python": [sys.executable, "-c", BARE, str(compiled)],
        "tanka-bot tk show microservices, go": [*show, "go"],
        "tanka-bot tk show microservices, rust": [*show, "rust"],
    }
    times: dict[str, list[float]] = {name: [] for name in commands}
    for argv in commands.values():  # warm-up: page cache, .pyc files
        subprocess.run(argv, cwd=compiled, env=bytecode_env(), capture_output=True, check=True)
    for _ in range(runs):
        for name, argv in commands.items():
            start = time.perf_counter()
            subprocess.run(argv, cwd=compiled, capture_output=True, check=True)
            times[name].append(time.perf_counter() - start)
    for name, values in times.items():
        print(f"  {name:<44} {figures(values)}")
    bare, *shows = times.values()
    for evaluator, shown in zip(("go", "rust"), shows, strict=True):
        ratios = sorted(s / b for s, b in zip(shown, bare, strict=True))
        label = f"ratio tk show ({evaluator}) / bare"
        print(f"  {label:<44} by min {min(shown) / min(bare):.2f}x, "
              f"per run {ratios[0]:.2f}-{ratios[-1]:.2f}x")  # fmt: skip


def main() -> None:
    if sys.argv[1:2] == ["--one-session"]:
        print(json.dumps(one_session(sys.argv[2], sys.argv[3])))
        return
    args = sys.argv[1:]
    given = args.pop(0) if args and not args[0].isdigit() else os.environ.get("TANKA_BENCH_TEMPO")
    runs = int(args.pop(0)) if args and args[0].isdigit() else 3
    parts = set(args) or {"session", "diff", "show"}
    if not given or not (Path(given) / "microservices" / "main.jsonnet").is_file():
        print("skipped: set TANKA_BENCH_TEMPO to a Tempo checkout's operations/jsonnet-compiled")
        return
    compiled = Path(given).absolute()
    source = Path(git(compiled, "rev-parse", "--show-toplevel").strip())
    remote = origin(source)
    print(f"Tempo at {source} ({git(source, 'rev-parse', '--short', 'HEAD').strip()}); "
          f"{os.cpu_count()} CPUs; {tempfile.gettempdir()}")  # fmt: skip
    if "session" in parts:
        sessions(remote, runs)
    if "diff" in parts:
        tk_diff(remote, runs)
    if "show" in parts:
        tk_show(compiled, runs)
    shutil.rmtree(WORK / "origin.git")  # the moved base must not reach the next run


if __name__ == "__main__":
    main()
