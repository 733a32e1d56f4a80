"""`tk eval PATH [-e EXPR]`: what an environment's entrypoint evaluates to, as JSON.

As pkg/tanka/load.go (Eval) and cmd/tk/jsonnet.go do it: the path is resolved like any
environment path (root, base, entrypoint); a static environment gets itself as the
`tanka.dev/environment` ext var (so `tk.env` works), an inline one the error that refuses it. With
an expression the entrypoint is wrapped in `main<expr>` (expression starting with `[`) or
`main.<expr>`, called with the TLAs by name when it is a function; without one the file is
evaluated as is (a function gets the TLAs). The output is Go's json.MarshalIndent with two spaces
(sorted keys, Go's number and string spelling) and a newline.
"""

from __future__ import annotations

import os
from typing import Any

from tools.tanka.env.loader import (
    INLINE_ENV_CODE,
    EvalSettings,
    evaluate,
    prefixed,
    static_environment,
)
from tools.tanka.errors import JsonnetError
from tools.tanka.evaluation.scripts import pattern_script, probe_script
from tools.tanka.gojson.encode import go_dumps_indent, sorted_maps
from tools.tanka.project import SPEC_FILE, resolve_env_paths


def evaluate_path(
    path: str | os.PathLike[str], expression: str = "", *, settings: EvalSettings | None = None
) -> Any:
    """The decoded value (numbers as floats) of the environment's entrypoint, or of `expression`
    applied to it. JsonnetError with tk's prefixes on failure."""
    settings = settings or EvalSettings()
    paths = resolve_env_paths(path)
    static = (paths.base / SPEC_FILE).exists()
    env_code = static_environment(paths).to_go_json(with_data=False) if static else INLINE_ENV_CODE
    if not expression:
        try:
            return evaluate(paths, settings, env_code=env_code, snippet=None, tlas=settings.tlas)
        except JsonnetError as exc:
            raise prefixed(exc, "evaluating jsonnet") from None
    entry = str(paths.entrypoint)
    try:
        probe = evaluate(paths, settings, env_code=env_code, snippet=probe_script(entry), tlas={})
        is_function = probe is True
        tlas = sorted(settings.tlas)
        script = pattern_script(entry, expression, tlas=tlas, is_function=is_function)
        return evaluate(paths, settings, env_code=env_code, snippet=script, tlas=settings.tlas)
    except JsonnetError as exc:
        raise prefixed(exc, f"evaluating jsonnet in path '{paths.base}'") from None


def eval_output(value: Any) -> str:
    """tk eval's output for a value: MarshalIndent with two spaces, then a newline."""
    return go_dumps_indent(sorted_maps(value)) + "\n"
