"""`tanka-bot tk` as a daily tool: whole-process figures, in one run (issue 9).

1. Start-up: `tanka-bot tk env list` on a one-environment project vs `python -c pass`.
2. Tempo (when a checkout is given): `tanka-bot tk show microservices` as a whole process, with
   each evaluator (--jsonnet-implementation go, rust), vs a bare go-jsonnet evaluation of the
   same file in a fresh Python process (tk's import paths, nothing else), timed alternately; then
   automatic `tanka-bot tk diff` (no environment named) after a one-line library change, cold (no
   stored base tree, import index or base render) and warm, with each evaluator, the environment
   selection alone, and the diff with the environments named; then the first automatic diff
   after the base moved (a commit on the clone's HEAD, the one-line edit kept in the working
   tree, the previous base's caches warm), for two kinds of move: Go code and docs only (what
   most of Tempo's commits touch), and the same plus a library the affected environments read
   (their base side must render again); then the same two moves with the new base prepared
   first by another process in the same cache, as the bot's maintenance does in a
   TANKA_BOT_WORKDIR that `tk diff` shares.
3. The generated repository of ENVS environments (bench/tanka_diff.py's): automatic diff after a
   one-environment edit and after a library edit, cold and warm.

Caches live under a private TMPDIR, so "cold" is cold whatever else runs on the machine.
Tempo: fetch grafana/tempo and point TANKA_BENCH_TEMPO at its `operations/jsonnet-compiled`
(or pass it as the first argument); the checkout is cloned under bench/.work, never edited.
Run: .venv/bin/python bench/tk_daily.py [TEMPO_JSONNET_COMPILED] [RUNS] [ENVS]
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from support import bytecode_env

WORK = Path(__file__).parent / ".work" / "tk_daily"
BIN = Path(sys.executable).parent
TANKA_BOT = str(BIN / "tanka-bot")
BARE = """
import sys, _gojsonnet
root = sys.argv[1]
base = root + "/microservices"
jpath = [root + "/vendor", base + "/vendor", root + "/lib", base]
sys.stdout.write(_gojsonnet.evaluate_file(base + "/main.jsonnet", jpathdir=jpath))
"""
LIBRARY_FILE = "operations/jsonnet/microservices/config.libsonnet"


def run(argv: Sequence[str], cwd: Path, tmp: Path) -> tuple[float, int]:
    seconds, _, code = measured(argv, cwd, tmp)
    return seconds, code


def measured(argv: Sequence[str], cwd: Path, tmp: Path) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds of the process and its children, exit code). The CPU time is
    what the shared machine's load distorts least. Every run may write .pyc files (see
    support.bytecode_env), so only the first one compiles the sources."""
    env = {**bytecode_env(), "TMPDIR": str(tmp)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, check=False)
    took = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return took, cpu, done.returncode


def alternate(commands: dict[str, tuple[list[str], Path]], runs: int, tmp: Path) -> None:
    for argv, cwd in commands.values():
        run(argv, cwd, tmp)  # warm-up: page cache, .pyc files
    times: dict[str, list[float]] = {name: [] for name in commands}
    cpus: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, (argv, cwd) in commands.items():
            seconds, cpu, _ = measured(argv, cwd, tmp)
            times[name].append(seconds)
            cpus[name].append(cpu)
    width = max(map(len, commands))
    for name, values in times.items():
        low, mid = 1000 * min(values), 1000 * statistics.median(values)
        cpu_low, cpu_mid = 1000 * min(cpus[name]), 1000 * statistics.median(cpus[name])
        print(f"  {name:<{width}}  min {low:7.1f} ms  median {mid:7.1f} ms  "
              f"CPU min {cpu_low:7.1f} ms  median {cpu_mid:7.1f} ms")  # fmt: skip
    names = list(times)
    for name in names[1:]:
        for what, table in (("wall", times), ("CPU", cpus)):
            by_min = min(table[name]) / min(table[names[0]])
            by_median = statistics.median(table[name]) / statistics.median(table[names[0]])
            print(f"  {name} / {names[0]} ({what}): {by_min:.2f}x by min, "
                  f"{by_median:.2f}x by median")  # fmt: skip


def once(label: str, argv: Sequence[str], cwd: Path, tmp: Path) -> float:
    seconds, cpu, code = measured(argv, cwd, tmp)
    print(f"  {label:<58} {seconds:7.2f} s  CPU {cpu:6.2f} s  (exit {code})")
    return seconds


def git(repo: Path, *args: str) -> None:
    ident = ["-c", "user.name=bench", "-c", "user.email=bench@local"]
    subprocess.run(["git", *ident, *args], cwd=repo, check=True, capture_output=True)


def start_up(runs: int, tmp: Path) -> None:
    project = WORK / "tiny"
    (project / "env").mkdir(parents=True, exist_ok=True)
    (project / "jsonnetfile.json").write_text("{}\n")
    (project / "env" / "main.jsonnet").write_text("{}\n")
    (project / "env" / "spec.json").write_text(
        '{"apiVersion": "tanka.dev/v1alpha1", "kind": "Environment", '
        '"metadata": {"name": "env"}, "spec": {}}\n'
    )
    print("start-up (one static environment, no evaluation):")
    alternate(
        {
            "python -c pass": ([sys.executable, "-c", "pass"], project),
            "tanka-bot tk env list": ([TANKA_BOT, "tk", "env", "list"], project),
        },
        runs,
        tmp,
    )


def tempo(compiled: Path, runs: int, tmp: Path) -> None:
    print(f"tempo: {compiled}")
    show = [TANKA_BOT, "tk", "show", "microservices", "--jsonnet-implementation"]
    alternate(
        {
            "bare go-jsonnet process": ([sys.executable, "-c", BARE, str(compiled)], compiled),
            "tanka-bot tk show, go": ([*show, "go"], compiled),
            "tanka-bot tk show, rust": ([*show, "rust"], compiled),
        },
        runs,
        tmp,
    )
    source = Path(
        subprocess.run(
            ["git", "rev-parse", "--show-toplevel"],
            cwd=compiled,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    clone = WORK / "tempo"
    if not (clone / ".git").is_dir():
        shutil.rmtree(clone, ignore_errors=True)
        subprocess.run(["git", "clone", "-q", "--shared", str(source), str(clone)], check=True)
    git(clone, "reset", "-q", "--hard", "origin/HEAD")  # also after a run cut short mid-move
    library = clone / LIBRARY_FILE
    text = library.read_text()
    library.write_text(text.replace("replicas: 2,", "replicas: 3,", 1))
    diff = [TANKA_BOT, "tk", "diff", "--base", "HEAD"]
    print(f"  one-line change in {LIBRARY_FILE}, each evaluator in its own cold cache:")
    firsts: dict[str, float] = {}
    for evaluator in ("go", "rust"):
        own = tmp / f"cold-{evaluator}"
        shutil.rmtree(own, ignore_errors=True)
        own.mkdir()
        with_evaluator = [*diff, "--jsonnet-implementation", evaluator]
        firsts[evaluator] = once(
            f"automatic tk diff, cold, {evaluator}", with_evaluator, clone, own
        )
        for i in range(2):
            once(f"automatic tk diff, warm ({i + 1}), {evaluator}", with_evaluator, clone, own)
    print(f"  cold tk diff, rust / go: {firsts['rust'] / firsts['go']:.2f}x")
    cold = tmp / "cold"
    shutil.rmtree(cold, ignore_errors=True)
    cold.mkdir()
    once("automatic tk diff, cold (default evaluator)", diff, clone, cold)
    selection = (
        "from pathlib import Path; import time\n"
        "from tools.tanka.base_tree import BaseTrees, resolve_commit\n"
        "from tools.tanka.imports.changed import affected_entrypoints, base_index, "
        "changed_files\n"
        "repo = Path('.').resolve(); trees = BaseTrees(); commit = resolve_commit(repo, 'HEAD')\n"
        "tree = trees.tree(repo, commit); t = time.perf_counter()\n"
        "found = affected_entrypoints(repo, tree, changed_files(repo, commit), "
        "base_index(trees, commit, tree))\n"
        "print(f'{time.perf_counter() - t:.3f} s, {len(found)} environments')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", selection],
        cwd=clone,
        env={**os.environ, "TMPDIR": str(cold)},
        capture_output=True,
        text=True,
        check=False,
    )
    print(f"  {'environment selection alone (warm index, in-process)':<58} {done.stdout.strip()}")
    named = [*diff, "operations/jsonnet-compiled/microservices"]
    named.append("operations/jsonnet-compiled/microservices-with-extras")
    once("tk diff of the two compiled environments named, warm", named, clone, cold)
    base_moved(clone, diff, cold)
    shared = tmp / "prepared"
    shutil.rmtree(shared, ignore_errors=True)
    shared.mkdir()
    once("automatic tk diff, cold (a cache the bot's maintenance shares)", diff, clone, shared)
    base_moved(clone, diff, shared, prepared=True)
    git(clone, "checkout", "-q", "--", ".")


MOVES = {
    "Go code and docs": ("cmd/tempo/main.go", "README.md"),
    "Go, docs and a library the environments read": (
        "cmd/tempo/main.go", "README.md", "operations/jsonnet/microservices/vulture.libsonnet",
    ),
}  # fmt: skip


# What the bot's cache maintenance runs for a new base commit (bot/app.py's preparer).
PREPARE = (
    "from pathlib import Path\n"
    "from tools.tanka.base_tree import BaseTrees, resolve_commit\n"
    "from tools.tanka.diff.revision import RevisionDiffer\n"
    "repo = Path('.').resolve()\n"
    "differ = RevisionDiffer(trees=BaseTrees(), persist=True)\n"
    "differ.prepare_base(repo, resolve_commit(repo, 'HEAD'))\n"
)


def base_moved(clone: Path, diff: list[str], tmp: Path, *, prepared: bool = False) -> None:
    """The first automatic diff after the clone's base commit moved, for each kind of move; the
    clone's HEAD is put back after each, so the library edit stays the only working change.
    `prepared`: the new base is prepared (tree, index, renders) by another process first."""
    start = subprocess.run(["git", "rev-parse", "HEAD"], cwd=clone, capture_output=True,
                           text=True, check=True).stdout.strip()  # fmt: skip
    for what, files in MOVES.items():
        for name in files:
            path = clone / name
            path.write_text(path.read_text() + "\n// moved\n")  # a comment in Go and Jsonnet
        git(clone, "commit", "-q", "-m", f"the base moves: {what}", "--", *files)
        if prepared:
            subprocess.run([sys.executable, "-c", PREPARE], cwd=clone, capture_output=True,
                           env={**os.environ, "TMPDIR": str(tmp)}, check=True)  # fmt: skip
        label = f"{what}, prepared" if prepared else what
        once(f"first tk diff after the base moved: {label}", diff, clone, tmp)
        once("  and again (warm)", diff, clone, tmp)
        git(clone, "reset", "-q", "--soft", start)  # keep the working edit; drop the move
        git(clone, "checkout", "-q", "HEAD", "--", *files)


def generated(envs: int, tmp: Path) -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    import tanka_diff  # noqa: PLC0415 - bench/tanka_diff.py: the same generated repository

    from fakes.tanka_envs import LIBRARY  # noqa: PLC0415 - its library, once tanka_diff set the path

    repo = tanka_diff.build(envs)
    cold = tmp / "generated"
    shutil.rmtree(cold, ignore_errors=True)
    cold.mkdir()
    diff = [TANKA_BOT, "tk", "diff", "--base", "HEAD"]
    print(f"generated repository, {envs} environments:")
    tanka_diff.edit(repo, 3)
    once("automatic tk diff, one environment edited, cold", diff, repo, cold)
    tanka_diff.edit(repo, 4)
    once("automatic tk diff, one environment edited, warm", diff, repo, cold)
    (repo / "lib" / "app.libsonnet").write_text(LIBRARY.replace("nginx:1.25", "nginx:1.27"))
    once(f"automatic tk diff, library edit ({envs} envs), warm", diff, repo, cold)
    once(f"automatic tk diff, library edit ({envs} envs), again", diff, repo, cold)


def main() -> None:
    given = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("TANKA_BENCH_TEMPO", "")
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    envs = int(sys.argv[3]) if len(sys.argv) > 3 else 200
    tmp = WORK / "tmp"
    tmp.mkdir(parents=True, exist_ok=True)
    start_up(runs, tmp)
    compiled = Path(given).absolute() if given else None
    if compiled is not None and (compiled / "microservices" / "main.jsonnet").is_file():
        tempo(compiled, runs, tmp)
    else:
        print("tempo: skipped; set TANKA_BENCH_TEMPO to Tempo's operations/jsonnet-compiled")
    generated(envs, tmp)


if __name__ == "__main__":
    main()
