"""go-jsonnet's static analysis of files, run in a child process.

`std.type(import '<file>')` makes go-jsonnet parse the file and run its static checks over all of
it (unknown variables even inside hidden fields and functions), while evaluating only the top-level
expression. Evaluation in the binding cannot be interrupted, so it runs in a
child process that a timeout can kill. Imports resolve along tk's jpath and never leave the root.

Protocol: the parent writes a JSON list of jobs `{"file", "root", "search"}` to the child's stdin;
the child prints a JSON list with one go-jsonnet error text (or null) per job.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tools import sandbox
from tools.errors import ToolError
from tools.tanka.imports.graph import resolve_import
from tools.tanka.imports.scan import ImportRef
from tools.tanka.tk_library import TK_LIBRARY

# What `import "tk"` gives in a static check: its shape, not a real environment.
_TK_STUB = b"{ env: { apiVersion: 'tanka.dev/v1alpha1', kind: 'Environment', metadata: {}, spec: {}, data: {} } }"  # noqa: E501


def run_static_checks(
    jobs: Sequence[tuple[Path, Path, Sequence[Path]]], *, timeout: float
) -> list[str | None]:
    """One go-jsonnet error text (or None) per (file, root, search path) job.

    Raises ToolError when the child fails or runs past the timeout.
    """
    if not jobs:
        return []
    payload = [
        {"file": str(f), "root": str(root), "search": [str(s) for s in search]}
        for f, root, search in jobs
    ]
    result = sandbox.run_module(
        "tools.tanka.source.lint_static", payload, cwd=Path(jobs[0][1]), timeout=timeout
    )
    if not result.ok:
        raise ToolError(f"the static check failed: {result.error_text()[-2000:]}")
    errors: list[str | None] = json.loads(result.stdout)
    return errors


def _check(job: dict[str, Any]) -> str | None:
    import _gojsonnet  # noqa: PLC0415 - the Jsonnet VM loads only in the lint child

    root = Path(job["root"])
    search = [Path(s) for s in job["search"]]

    def load(base_dir: str, rel: str) -> tuple[str, bytes]:
        if rel == TK_LIBRARY:
            return "<internal>/tk.libsonnet", _TK_STUB
        # The binding passes the importing file's directory; any name inside it will do.
        importer = Path(base_dir or ".") / "_"
        resolution = resolve_import(ImportRef("import", rel, 0, 0), importer, search, confine=root)
        if resolution.found is None:
            raise RuntimeError(resolution.message)
        return str(resolution.found), resolution.found.read_bytes()

    snippet = f"std.type(import {json.dumps(job['file'])})"
    try:
        _gojsonnet.evaluate_snippet("<lint>", snippet, import_callback=load)
    except RuntimeError as exc:
        return str(exc)
    return None


def main() -> None:
    jobs = json.load(sys.stdin)
    json.dump([_check(job) for job in jobs], sys.stdout)


if __name__ == "__main__":
    main()
