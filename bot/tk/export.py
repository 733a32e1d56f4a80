"""`tanka-bot tk export OUT_DIR PATH...`: tk export's flags on the in-process engine.

`-p/--parallel N` (tk's default 8; 0 or less means 8): with `--recursive` and N > 1 the
environments are found and loaded on up to N evaluation worker processes (tools/tanka/evaluation/
pool.py) instead of one at a time in this process, but no more than the CPUs: a worker is a
process, not tk's goroutine, and starting more than can run costs more than it gives
(bench/tk_export_parallel.py). Files are written in the same order either way, so the output is
the serial run's. A worker process has the engine's limits (a timeout and a
memory cap per evaluation) that the in-process evaluation has not.

`-c/--cache-path` is refused: tk's export cache keys an environment's output on the contents of
the files a regular expression finds it importing and on nothing else, so a render with other
--ext-*/--tla-* values, another `importbin`'d file or another chart behind helmTemplate hits the
same entry and gets the old files. `-e/--cache-envs` only selects what that cache covers, so
without it it does nothing (its patterns are still checked, as tk does).
`--mem-ballast-size-bytes` sizes a block tk allocates to slow Go's collector; accepted, unused.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

from bot.errors import UserError
from bot.tk import flags
from bot.tk.arguments import DEFAULT_PARALLEL
from tools.tanka.env.loader import EvalSettings
from tools.tanka.errors import MultipleEnvsError
from tools.tanka.evaluation.pool import EvalPool
from tools.tanka.export.run import (
    MULTIPLE_ENVS_HINT,
    ExportOptions,
    export_environments,
    merge_strategy,
    select_environments,
)


def run(args: argparse.Namespace) -> int:
    options = ExportOptions(
        format=args.format,
        extension=args.extension,
        recursive=args.recursive,
        name=args.name,
        targets=flags.targets(args),
        selector=flags.selector_text(args),
        merge_strategy=merge_strategy(args.merge_strategy, deprecated_merge=args.merge),
        merge_deleted_envs=tuple(args.merge_deleted_envs),
        skip_manifest=args.skip_manifest,
    )
    _check_cache_flags(args)
    parallel = min(args.parallel if args.parallel > 0 else DEFAULT_PARALLEL, os.cpu_count() or 1)
    settings = flags.with_variables(flags.eval_settings(args.env_paths[0]), args)
    with _workers(settings, parallel if args.recursive else 1) as settings:
        try:
            envs = select_environments(args.env_paths, options, settings)
        except MultipleEnvsError:
            print(MULTIPLE_ENVS_HINT, file=sys.stdout)
            raise
        export_environments(args.out_dir, envs, options, settings)
    return 0


def _check_cache_flags(args: argparse.Namespace) -> None:
    for pattern in args.cache_envs:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise UserError(f"--cache-envs {pattern!r}: {exc}; pass a regular expression") from None
    if args.cache_path:
        raise UserError(
            "--cache-path is not supported: tk's export cache keys a render on its imported "
            "files' contents alone, not on --ext-*/--tla-* values, importbin'd files or "
            "helmTemplate's charts, so a cache hit can write another render's files; export "
            "without --cache-path (--parallel speeds up many environments)"
        )


@contextmanager
def _workers(settings: EvalSettings, parallel: int) -> Iterator[EvalSettings]:
    """`settings` evaluating on `parallel` worker processes, closed on the way out; as they
    are when `parallel` is 1."""
    if parallel < 2:  # one at a time: the in-process evaluation
        yield settings
        return

    pool = EvalPool(size=parallel)
    try:
        yield replace(settings, pool=pool)
    finally:
        pool.close()
