"""Running the agent on tasks: each run on a fresh repository, then the checks.

A run is the same agent, tools, prompt and budgets as `tanka-bot chat` (the front end builds them,
bot.eval.command) on a fresh copy of the task's fixture. Runs share nothing writable: each has
its own repository, ToolContext, SecretMask and rendered-diff caches, in its own temporary
folder, removed afterwards. A model or tool error, or anything else going wrong in a run, ends
that run as failed with the error recorded; the suite goes on.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

from bot.agent.agent import Agent
from bot.agent.cancel import CancelToken
from bot.eval.checks import BaseRenders, Workspace, evaluate
from bot.eval.repos import changed_files, fresh_repo
from bot.eval.tasks import Task
from tools.context import ToolContext

log = logging.getLogger(__name__)

# (checkout, base commit, the run's scratch folder) -> what the agent's tools receive.
ContextFactory = Callable[[Path, str, Path], ToolContext]


@dataclass(frozen=True, slots=True)
class RunResult:
    task_id: str
    run: int  # 1 .. repeat
    passed: bool
    failed_check: int | None = None
    reason: str | None = None  # why the failed check failed
    error: str | None = None  # the model or tool error that ended the run
    model_calls: int = 0
    tool_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    seconds: float = 0.0


@dataclass(frozen=True, slots=True)
class TaskResult:
    task_id: str
    runs: tuple[RunResult, ...]

    @property
    def passed(self) -> int:
        return sum(r.passed for r in self.runs)


Progress = Callable[[int, int, RunResult], None]  # (runs finished, runs in all, the last one)


@dataclass
class Bases:
    """One pristine checkout per fixture, for the base side of `unchanged`; never edited."""

    folder: Path
    renders: BaseRenders = field(default_factory=BaseRenders)
    _roots: dict[Path, Path] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def root(self, fixture: Path) -> Path:
        with self._lock:
            found = self._roots.get(fixture)
            if found is None:
                found = self.folder / f"base-{len(self._roots)}"
                fresh_repo(fixture, found)
                self._roots[fixture] = found
            return found


class SuiteRunner:
    def __init__(
        self,
        agent: Agent,
        make_context: ContextFactory,
        *,
        workdir: Path | None = None,
        jobs: int = 1,
        progress: Progress | None = None,
    ) -> None:
        self.agent = agent
        self.make_context = make_context
        self.workdir = workdir
        self.jobs = max(1, jobs)
        self.progress = progress
        self._tokens: list[CancelToken] = []
        self._lock = threading.Lock()

    def run(self, tasks: Sequence[Task], repeat: int = 1) -> list[TaskResult]:
        """Every task `repeat` times, `jobs` runs at once; results in suite order."""
        todo = [(task, n) for task in tasks for n in range(1, repeat + 1)]
        scratch = Path(tempfile.mkdtemp(prefix="tanka-bot-eval-", dir=self.workdir))
        bases = Bases(scratch)
        done: dict[tuple[str, int], RunResult] = {}
        try:
            with ThreadPoolExecutor(max_workers=self.jobs, thread_name_prefix="eval") as pool:
                futures = [pool.submit(self._run, t, n, bases, scratch) for t, n in todo]
                try:
                    self._collect(futures, done, len(todo))
                except BaseException:  # Ctrl+C: stop the turns under way, start no more
                    self.cancel("the evaluation was interrupted")
                    pool.shutdown(wait=True, cancel_futures=True)
                    raise
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        return [
            TaskResult(t.id, tuple(done[(t.id, n)] for n in range(1, repeat + 1))) for t in tasks
        ]

    def _collect(
        self, futures: list[Future[RunResult]], done: dict[tuple[str, int], RunResult], total: int
    ) -> None:
        finished = threading.Event()
        lock = threading.Lock()

        def on_done(future: Future[RunResult]) -> None:
            if future.cancelled():
                return
            result = future.result()
            with lock:
                done[(result.task_id, result.run)] = result
                count = len(done)
                if self.progress is not None:
                    self.progress(count, total, result)
                if count == total:
                    finished.set()

        for future in futures:
            future.add_done_callback(on_done)
        while not finished.wait(0.2):  # a timed wait, so Ctrl+C reaches this thread
            pass

    def cancel(self, reason: str) -> None:
        with self._lock:
            for token in self._tokens:
                token.cancel(reason)

    def _run(self, task: Task, n: int, bases: Bases, scratch: Path) -> RunResult:
        started = time.monotonic()
        folder = Path(tempfile.mkdtemp(prefix=f"{task.id}-{n}-", dir=scratch))
        token = CancelToken()
        with self._lock:
            self._tokens.append(token)
        try:
            return self._attempt(task, n, bases, folder, token=token, started=started)
        except Exception as exc:  # the suite goes on; the run records why it stopped
            log.debug("eval run %s #%d failed", task.id, n, exc_info=True)
            error = f"{type(exc).__name__}: {exc}"
            return RunResult(task.id, n, False, error=error, seconds=_since(started))
        finally:
            with self._lock:
                self._tokens.remove(token)
            shutil.rmtree(folder, ignore_errors=True)

    def _attempt(
        self,
        task: Task,
        n: int,
        bases: Bases,
        folder: Path,
        *,
        token: CancelToken,
        started: float,
    ) -> RunResult:
        root = folder / "repo"
        base = fresh_repo(task.repo, root)
        ctx = self.make_context(root, base, folder)
        turn = self.agent.run_turn((), task.prompt, ctx, cancel=token)
        used = turn.usage
        result = RunResult(
            task.id,
            n,
            False,
            model_calls=turn.steps,
            tool_calls=turn.tool_calls,
            # Every token the model read, cached or not: input + output is the turn's total.
            input_tokens=used.input_tokens + used.cache_read_tokens + used.cache_write_tokens,
            output_tokens=used.output_tokens,
        )
        if turn.error is not None:
            return replace(result, error=str(turn.error), seconds=_since(started))
        ws = Workspace(root, bases.root(task.repo), changed_files(root, base), bases.renders)
        verdict = evaluate(task.expect, ws, turn.text)
        return replace(
            result,
            passed=verdict.passed,
            failed_check=verdict.failed_check,
            reason=verdict.reason,
            seconds=_since(started),
        )


def _since(started: float) -> float:
    return round(time.monotonic() - started, 2)
