"""`tanka-bot eval`: run the agent on a suite of Tanka tasks and score it (CONTRACT.md).

    tanka-bot eval                              the shipped suite (evals/), Markdown on stdout
    tanka-bot eval --only scale-prod --repeat 3 --json --report out.json
    tanka-bot eval --check-tasks                no model: is every task's checker honest?

Exit 0 when every run passed (or, with --check-tasks, every task is sound), 1 otherwise, 2 for a
broken task file or setting. The agent is built as `tanka-bot chat` builds it: the provider from
the settings (bot.compose), the default tool registry, the system prompt and the turn budgets.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

from bot.agent.agent import Agent
from bot.agent.prompts import system_prompt
from bot.compose import CommandDeps, budgets_from_settings
from bot.config import Settings, load_settings
from bot.errors import UserError
from bot.eval.report import Report, to_json, to_markdown
from bot.eval.runner import RunResult, SuiteRunner
from bot.eval.selfcheck import TaskCheck, check_tasks
from bot.eval.tasks import TaskFileError, load_suite, select
from tools.context import ToolContext
from tools.redaction import SecretMask
from tools.tanka.base_tree import BaseTrees
from tools.tanka.diff.revision import RevisionDiffer

# The shipped suite: evals/ at the top of the source tree this package belongs to.
DEFAULT_TASKS = Path(__file__).resolve().parents[2] / "evals"


def run_eval(args: argparse.Namespace, deps: CommandDeps | None = None) -> int:
    deps = deps or CommandDeps()
    if args.repeat < 1:
        raise TaskFileError([f"--repeat {args.repeat}: give 1 or more runs per task"])
    if args.jobs < 1:
        raise TaskFileError([f"--jobs {args.jobs}: give 1 or more"])
    tasks = select(load_suite(args.tasks or DEFAULT_TASKS), args.only)
    out = deps.stdout or sys.stdout
    err = deps.stderr or sys.stderr
    if args.check_tasks:
        return _check_tasks(args, tasks, out, err)
    settings = _settings(args, deps.environ)
    workdir = settings.workdir / "eval"
    try:
        workdir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(
            f"TANKA_BOT_WORKDIR ({settings.workdir}): {exc.strerror or exc}; "
            "point it at a writable directory"
        ) from None
    provider = deps.provider_factory(settings)
    try:
        agent = Agent(
            provider,
            deps.registry_factory(),
            system_prompt=system_prompt(),
            budgets=budgets_from_settings(settings),
        )
        runner = SuiteRunner(
            agent,
            functools.partial(_context, settings),
            workdir=workdir,
            jobs=args.jobs,
            progress=ProgressLine(err),
        )
        results = runner.run(tasks, repeat=args.repeat)
    finally:
        close = getattr(provider, "close", None)
        if callable(close):
            close()
    report = Report(provider.name, provider.model, results)
    text = json.dumps(to_json(report), indent=2) + "\n" if args.json else to_markdown(report)
    _emit(text, args.report, out, f"{report.passed}/{report.total} runs passed")
    return 0 if report.ok else 1


def _context(settings: Settings, root: Path, base: str, folder: Path) -> ToolContext:
    """A run's ToolContext, as `tanka-bot chat` builds one, with its own diff caches."""
    return ToolContext(
        root=root,
        protected_paths=settings.protected_paths,
        base_commit=base,
        differ=RevisionDiffer(trees=BaseTrees(folder / "base-trees")),
        secret_mask=SecretMask(),
        policy_dir=settings.policy_dir,
        kubernetes_version=settings.kubernetes_version,
    )


def _settings(args: argparse.Namespace, environ: Mapping[str, str] | None) -> Settings:
    settings = load_settings(environ)
    overrides = {k: v for k, v in (("provider", args.provider), ("model", args.model)) if v}
    if overrides:
        settings = settings.model_copy(update=overrides)
    return settings.require(settings.missing_for_provider())


def _emit(text: str, path: Path | None, out: TextIO, summary: str) -> None:
    if path is None:
        out.write(text)
        return
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UserError(f"--report {path}: {exc.strerror or exc}; give a writable path") from None
    out.write(f"{summary}; report written to {path}\n")


class ProgressLine:
    """One line on stderr while the suite runs: rewritten in place on a terminal, else a line per
    finished run."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.live = stream.isatty()
        self.failed = 0

    def __call__(self, done: int, total: int, run: RunResult) -> None:
        self.failed += not run.passed
        outcome = "passed" if run.passed else ("error" if run.error else "failed")
        text = (
            f"[{done}/{total}] {run.task_id} #{run.run} {outcome} ({run.seconds:.1f} s)"
            f" · {done - self.failed} passed, {self.failed} failed"
        )
        if self.live:
            end = "\n" if done == total else ""
            self.stream.write(f"\r\033[K{text}{end}")
        else:
            self.stream.write(text + "\n")
        self.stream.flush()


def _check_tasks(args: argparse.Namespace, tasks: list[Any], out: TextIO, err: TextIO) -> int:
    def progress(result: TaskCheck) -> None:
        err.write(f"{'ok  ' if result.ok else 'FAIL'} {result.task_id} ({result.seconds:.1f} s)\n")
        err.flush()

    results = check_tasks(tasks, jobs=args.jobs, progress=progress)
    bad = [r for r in results if not r.ok]
    if args.json:
        payload = {
            "passed": len(results) - len(bad),
            "total": len(results),
            "tasks": [{"id": r.task_id, "problems": list(r.problems)} for r in results],
        }
        text = json.dumps(payload, indent=2) + "\n"
    else:
        lines = [f"- {r.task_id}: {p}" for r in bad for p in r.problems]
        head = (
            f"{len(results)} tasks: every one fails on its base and passes with its reference"
            if not bad
            else f"{len(bad)} of {len(results)} tasks have unsound checkers:"
        )
        text = "\n".join([head, *lines]) + "\n"
    _emit(text, args.report, out, f"{len(results) - len(bad)}/{len(results)} tasks sound")
    return 0 if not bad else 1
