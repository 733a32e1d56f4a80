"""`lint_paths` in a child process, for callers that share their process with other work.

The in-process linter parses every file a linted file imports and type-checks them all: on a
repository vendoring k8s-libsonnet that is seconds of pure-Python work and about half a gigabyte
(tools/tanka/source/jsonnet). In the bot that would hold the interpreter's lock against every other
thread (Slack acknowledgements, other sessions) and could take the process's memory with it, so
the agent's `validate_jsonnet` runs it here: a child with a timeout and a memory cap, whose
diagnostics come back as JSON. `tanka-bot tk lint` runs in-process; it is the whole program.

Protocol: the parent writes `{"paths": [...], "root": ..., "memory_mb": ...}` to the child's
stdin; the child prints a JSON list of Diagnostic fields.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from tools import sandbox
from tools.errors import ToolError
from tools.memory_cap import cap_memory
from tools.tanka.source.lint import Diagnostic, lint_paths

TIMEOUT = 180.0  # the static check's own child (60 s) included
MEMORY_MB = 2048


def lint_in_child(
    paths: Sequence[Path],
    *,
    root: Path,
    timeout: float = TIMEOUT,
    memory_mb: int = MEMORY_MB,
    cancelled: Callable[[], bool] | None = None,
) -> list[Diagnostic]:
    """`lint_paths(paths, root=root)`, run in a child process; ToolError when it fails, runs past
    `timeout`, needs more than `memory_mb` megabytes or `cancelled` says stop."""
    payload = {"paths": [str(p) for p in paths], "root": str(root), "memory_mb": memory_mb}
    result = sandbox.run_module(
        "tools.tanka.source.lint_child", payload, cwd=root, timeout=timeout, cancelled=cancelled
    )
    if not result.ok:
        tail = result.error_text()[-1500:]
        if "MemoryError" in tail:
            raise ToolError(
                f"the lint needed more than {memory_mb} MB (the files it imports are too large "
                "to check here); run `tanka-bot tk lint` on a machine of your own"
            )
        raise ToolError(f"the lint failed: {tail}")
    return [Diagnostic(**fields) for fields in json.loads(result.stdout)]


def main() -> None:
    job = json.load(sys.stdin)
    cap_memory(int(job["memory_mb"]))
    found = lint_paths([Path(p) for p in job["paths"]], root=Path(job["root"]))
    json.dump([dataclasses.asdict(d) for d in found], sys.stdout)


if __name__ == "__main__":
    main()
