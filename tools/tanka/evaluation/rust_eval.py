"""One evaluation through jrsonnet (rjsonnet), or the reason go-jsonnet must answer instead.

The same import callback (tk's search, `import "tk"`, the confinement: importer.Importer) and the
same native functions serve both evaluators; what jrsonnet needs on top:
* the entry file is loaded through the callback too (`import` of a marker): jrsonnet resolves a
  snippet's relative imports from the working directory, not from the snippet's file;
* file contents as text: a file that is not UTF-8 cannot reach jrsonnet byte for byte (importbin),
  so it sends the evaluation to go-jsonnet;
* files that name a std function whose text differs get the guard prelude (rust_std.py);
* a smaller stack: go-jsonnet's std functions written in Jsonnet take several frames per call
  where jrsonnet's take one (std.map and std.format up to 6 per level, measured), so jrsonnet gets
  1/STACK_SHARE of the budget and whatever needs more is evaluated by go-jsonnet, which decides.

Any error, panic, unreadable result or result that may differ (rust_vouch.output_differs) is a
Fallback: the caller evaluates again with go-jsonnet and that answer - value or message - is tk's.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tools.tanka.evaluation.go_std import GO_PARSE_YAML, GO_STD, go_parse_yaml, go_std
from tools.tanka.evaluation.importer import Importer
from tools.tanka.evaluation.rust_std import VOUCH, WRITTEN_BY_GO, guard_for, with_guard
from tools.tanka.evaluation.rust_vouch import (
    VouchMode,
    output_differs,
    output_text_differs,
    vouch,
)

MAIN_MARKER = "<tanka-bot main>"
# The wrapper's own name; it never appears in a result (jrsonnet's errors are not shown).
_WRAPPER = "<tanka-bot>"
# See the module docstring: 500 frames for go-jsonnet are 71 for jrsonnet.
STACK_SHARE = 7
STACK_BYTES = 64 * 1024 * 1024

NativeCallbacks = dict[str, tuple[tuple[str, ...], Callable[..., Any]]]


@dataclass(frozen=True, slots=True)
class Fallback:
    """Why go-jsonnet evaluates this request instead."""

    reason: str


@dataclass(frozen=True, slots=True)
class RustResult:
    value: Any


class _Imports:
    """rjsonnet's import callback over the shared Importer: the entry file by marker, contents
    as text with the guard prelude, non-UTF-8 files noted."""

    def __init__(self, importer: Importer, main: tuple[str, str, bytes]) -> None:
        self.importer = importer
        # Where jrsonnet files the entry, the path std.thisFile names, and its bytes.
        self.main_path, self.main_file, self.main_text = main
        self.not_text: str | None = None

    def __call__(self, base_dir: str, rel: str) -> tuple[str, str]:
        if rel == MAIN_MARKER:
            return self.main_path, self._text(self.main_file, self.main_text, guard_any=True)
        guard = guard_for(rel)
        if guard is not None:
            return rel, guard
        found, content = self.importer(base_dir, rel)
        return found, self._text(found, content, guard_any=False)

    def _text(self, path: str, content: bytes, *, guard_any: bool) -> str:
        """As importer.with_prelude: only Jsonnet files get a prelude (importstr of a data file
        must read its bytes), and the entry file whatever its name."""
        key = (path, guard_any)
        hit = _TEXTS.get(key)
        # The importer's cache hands out the same bytes object while a file is unchanged.
        if hit is not None and hit[0] is content:
            text = hit[1]
        else:
            text = _decoded(path, content, guard_any=guard_any)
            if len(_TEXTS) >= _TEXTS_LIMIT:
                _TEXTS.clear()
            _TEXTS[key] = (content, text)
        if text is None:
            self.not_text = self.not_text or path
            return content.decode("utf-8", errors="replace")
        return text


# What a file's bytes become for jrsonnet, by path: scanning and decoding the megabytes of a
# vendored Kubernetes library took ~13 ms an evaluation.
_TEXTS: dict[tuple[str, bool], tuple[bytes, str | None]] = {}
_TEXTS_LIMIT = 50_000


def _decoded(path: str, content: bytes, *, guard_any: bool) -> str | None:
    """The file as jrsonnet reads it (the guard prelude added), None when it is not UTF-8."""
    if guard_any or path.endswith((".jsonnet", ".libsonnet")):
        content = with_guard(path, content)
    try:
        return content.decode("utf-8")
    except UnicodeDecodeError:
        return None


def evaluate_rust(
    *,
    filename: str,
    main_text: bytes,
    snippet: bool,
    importer: Importer,
    callbacks: NativeCallbacks,
    ext_codes: dict[str, str],
    tla_codes: dict[str, str],
    max_stack: int,
) -> RustResult | Fallback:
    """`main_text` (the file `filename`, or a snippet evaluated as if it were that file) through
    jrsonnet; a Fallback when go-jsonnet must answer."""
    import rjsonnet  # noqa: PLC0415 - loaded in the worker process only, as _gojsonnet is

    if any("import" in code for code in (*ext_codes.values(), *tla_codes.values())):
        # --ext-code-file and friends: a variable's import is resolved from the working
        # directory by jrsonnet, from none by go-jsonnet.
        return Fallback("a variable's code imports a file")
    depth_limit = max(1, max_stack // STACK_SHARE)
    # A snippet is not the file it is named after: another name keeps jrsonnet's cache of
    # that file apart (an eval script imports its entrypoint), in the same directory.
    main_path = f"{filename} (snippet)" if snippet else filename
    imports = _Imports(importer, (main_path, filename, main_text))
    natives = {**callbacks, **_vouch_native(depth_limit)}

    allow_a_large_stack()
    try:
        output: str = rjsonnet.evaluate_snippet(
            _WRAPPER,
            f"import {json.dumps(MAIN_MARKER)}",
            ext_codes=ext_codes,
            tla_codes=tla_codes,
            max_stack=depth_limit,
            import_callback=imports,
            native_callbacks=natives,
        )
    except (KeyboardInterrupt, SystemExit, MemoryError):
        raise
    except BaseException as exc:  # jrsonnet's RuntimeError and pyo3's PanicException alike
        return Fallback(f"jrsonnet: {_first_line(exc)}")
    if imports.not_text is not None:
        return Fallback(f"{os.path.basename(imports.not_text)} is not UTF-8 text")
    return _result(output, depth_limit)


def _result(output: str, depth_limit: int) -> RustResult | Fallback:
    """jrsonnet's JSON text as a value, unless it may differ from go-jsonnet's."""
    deep = output_text_differs(output, depth_limit)
    if deep:
        return Fallback("nesting deeper than the stack go-jsonnet manifests with")
    try:
        value = json.loads(output, parse_int=float, parse_constant=_no_constant)
    except ValueError as exc:
        return Fallback(f"jrsonnet's output is not JSON: {exc}")
    differs = None if deep is False else output_differs(value, depth_limit)
    if differs is not None:
        return Fallback(differs)
    return RustResult(value)


def allow_a_large_stack() -> None:
    """Let this process's main thread grow its stack to STACK_BYTES (RLIMIT_STACK, within the
    hard limit): jrsonnet's parser and manifester recurse on the machine stack, and 8 MB overflow
    (a crash, not an error) at about 5,000 nested brackets, where go-jsonnet reports its stack
    error; 64 MB take eight times that. The main thread's stack grows on demand up to the limit
    in force, so raising it now is enough (a thread with a stack of its own cost 0.25 ms an
    evaluation); threads started later get as much (glibc sizes them by the limit), which is why
    InProcessPool raises it before `tanka-bot tk` starts any. A worker that crashes all the same
    is replaced and go-jsonnet answers."""
    soft, hard = resource.getrlimit(resource.RLIMIT_STACK)
    if soft == resource.RLIM_INFINITY or soft >= STACK_BYTES:
        return
    wanted = STACK_BYTES if hard == resource.RLIM_INFINITY else min(STACK_BYTES, hard)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_STACK, (wanted, hard))


def _vouch_native(depth_limit: int) -> NativeCallbacks:
    def check(value: Any, mode: VouchMode) -> bool:
        return vouch(value, mode, depth_limit)

    return {
        VOUCH: (("value", "mode"), check),
        GO_PARSE_YAML: (("str",), go_parse_yaml),
        GO_STD: (("name", "args"), _GO_STD),
    }


_GO_STD = go_std(WRITTEN_BY_GO)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
