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

A result whose only doubt is text an operator may have written (rust_vouch.text_doubt: digits
that read as a fraction, in a string the result holds or a guarded function measured) is settled
by the operator check (rust_operators.py): a second jrsonnet run over the same files with `+` and
`%` checked. Any error, panic, unreadable result, other difference (rust_vouch.output_differs) or
failed check is a Fallback: the caller evaluates again with go-jsonnet and that answer - value or
message - is tk's.
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
from tools.tanka.evaluation.quiet_panics import panics_unprinted
from tools.tanka.evaluation.rust_operators import (
    MISMATCH,
    OPERATORS_NAME,
    OPERATORS_SOURCE,
    PRELUDE,
    QUIET_PRELUDE,
    Rewrites,
    doubted,
    note_doubt,
)
from tools.tanka.evaluation.rust_std import (
    FALLBACK_MARK,
    VOUCH,
    WRITTEN_BY_GO,
    guard_for,
    guard_prelude,
)
from tools.tanka.evaluation.rust_vouch import (
    PRELUDE_MARK,
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


@dataclass(frozen=True, slots=True)
class _Doubtful:
    """A run that ended, whose value is tk's once the operator check passes."""

    value: Any
    reason: str


class _Imports:
    """rjsonnet's import callback over the shared Importer: the entry file by marker, contents
    as text with the guard prelude, non-UTF-8 files noted."""

    def __init__(
        self, importer: Importer, main: tuple[str, str, bytes], *, check: str | None = None
    ) -> None:
        self.importer = importer
        # Where jrsonnet files the entry, the path std.thisFile names, and its bytes.
        self.main_path, self.main_file, self.main_text = main
        # The operator check's run (rust_operators.py), after the prelude `check` (PRELUDE
        # alone, QUIET_PRELUDE after a first run): its rewritten files.
        self.rewrites = Rewrites(check) if check else None
        self.not_text: str | None = None

    def __call__(self, base_dir: str, rel: str) -> tuple[str, str]:
        if rel == MAIN_MARKER:
            return self.main_path, self._text(self.main_file, self.main_text, guard_any=True)
        guard = OPERATORS_SOURCE if rel == OPERATORS_NAME else guard_for(rel)
        if guard is not None:
            return rel, guard
        found, content = self.importer(base_dir, rel)
        return found, self._text(found, content, guard_any=False)

    def _text(self, path: str, content: bytes, *, guard_any: bool) -> str:
        """As importer.with_prelude: only Jsonnet files get a prelude (importstr of a data file
        must read its bytes), and the entry file whatever its name."""
        key = (path, guard_any, self.rewrites.prelude if self.rewrites else None)
        hit = _TEXTS.get(key)
        # The importer's cache hands out the same bytes object while a file is unchanged.
        if hit is not None and hit[0] is content:
            text = hit[1]
        else:
            text = _decoded(path, content, guard_any=guard_any, rewrites=self.rewrites)
            if text is _UNCHECKED:  # not kept (may fit next time): the check stops here
                return f"error {json.dumps(FALLBACK_MARK + ': no operator check')}"
            if len(_TEXTS) >= _TEXTS_LIMIT:
                _TEXTS.clear()
            _TEXTS[key] = (content, text)
        if text is None:
            self.not_text = self.not_text or path
            return content.decode("utf-8", errors="replace")
        return text


# What a file's bytes become for jrsonnet, by path: scanning and decoding the megabytes of a
# vendored Kubernetes library took ~13 ms an evaluation.
_TEXTS: dict[tuple[str, bool, str | None], tuple[bytes, str | None]] = {}
_TEXTS_LIMIT = 50_000
_UNCHECKED = "<the operator check cannot read this file>"


def _decoded(
    path: str, content: bytes, *, guard_any: bool, rewrites: Rewrites | None
) -> str | None:
    """The file as jrsonnet reads it (the guard prelude added; in the operator check's run, also
    the rewrite and its prelude), None when it is not UTF-8, _UNCHECKED with no rewrite."""
    jsonnet = guard_any or path.endswith((".jsonnet", ".libsonnet"))
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if not jsonnet:
        return text
    prelude = guard_prelude(path, content).decode("utf-8")
    if rewrites is None:
        return prelude + text
    checked = rewrites(path, text)
    # The operators' prelude first: it takes the real std, before the guard's shadows it.
    return _UNCHECKED if checked is None else rewrites.prelude + prelude + checked


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
    doubt_key: str,
) -> RustResult | Fallback:
    """`main_text` (the file `filename`, or a snippet evaluated as if it were that file) through
    jrsonnet; a Fallback when go-jsonnet must answer. `doubt_key` names the entry file wherever
    its project is (rust_operators.doubted)."""
    import rjsonnet  # noqa: PLC0415 - loaded in the worker process only, as _gojsonnet is

    if any("import" in code for code in (*ext_codes.values(), *tla_codes.values())):
        # --ext-code-file and friends: a variable's import is resolved from the working
        # directory by jrsonnet, from none by go-jsonnet.
        return Fallback("a variable's code imports a file")
    depth_limit = max(1, max_stack // STACK_SHARE)
    # A snippet is not the file it is named after: another name keeps jrsonnet's cache of
    # that file apart (an eval script imports its entrypoint), in the same directory.
    main = (f"{filename} (snippet)" if snippet else filename, filename, main_text)

    def run(frames: int, doubts: list[str] | None, check: str | None = None) -> str | Fallback:
        """jrsonnet's output, or why it has none. The plain run gathers its `doubts`; the
        operator check's (None) reads the rewritten files, after the prelude `check`."""
        imports = _Imports(importer, main, check=check)
        natives = {**callbacks, **_vouch_native(depth_limit, doubts)}
        try:
            with panics_unprinted():
                output: str = rjsonnet.evaluate_snippet(
                    _WRAPPER,
                    f"import {json.dumps(MAIN_MARKER)}",
                    ext_codes=ext_codes,
                    tla_codes=tla_codes,
                    max_stack=frames,
                    import_callback=imports,
                    native_callbacks=natives,
                )
        except (KeyboardInterrupt, SystemExit, MemoryError):
            raise
        except BaseException as exc:  # jrsonnet's RuntimeError and pyo3's PanicException alike
            return Fallback(f"jrsonnet: {_first_line(exc)}")
        if imports.not_text is not None:
            return Fallback(f"{os.path.basename(imports.not_text)} is not UTF-8 text")
        if imports.rewrites is not None and imports.rewrites.refused is not None:
            return Fallback(f"no operator check: {imports.rewrites.refused}")
        return output

    allow_a_large_stack()
    if doubted(doubt_key):
        # Doubted before (the other side of a diff, the next session): the check alone, within
        # jrsonnet's share of the stack, shows as much as both runs - its frames are the plain
        # run's and more - and needs no walk of the result for doubts.
        output = run(depth_limit, None, PRELUDE)
        if isinstance(output, str):
            return _checked_result(output, depth_limit)
        if MISMATCH in output.reason:
            return Fallback(f"the operator check stopped: {output.reason}")
        # Out of stack (its calls' frames) or of parse budget: as with no doubt known.
    return _plain_then_checked(doubt_key, lambda doubts: run(depth_limit, doubts),
                               lambda: run(max_stack * STACK_SHARE, None, QUIET_PRELUDE),
                               depth_limit)  # fmt: skip


def _plain_then_checked(
    doubt_key: str,
    plain: Callable[[list[str]], str | Fallback],
    checked: Callable[[], str | Fallback],
    depth_limit: int,
) -> RustResult | Fallback:
    """The plain run's value, once the operator check settles any doubt about its text."""
    doubts: list[str] = []
    output = plain(doubts)
    if isinstance(output, Fallback):
        return output
    first = _result(output, depth_limit, doubts)
    if not isinstance(first, _Doubtful):
        return first
    note_doubt(doubt_key)
    # The plain run ended within jrsonnet's share of the stack: go-jsonnet's stack holds this
    # program. The check follows the same branches (or stops), so the frames its calls add
    # (up to 10 a level of `a + b + ...`, measured) need no such bound: it gets STACK_SHARE
    # times go-jsonnet's budget, a few megabytes of the machine stack.
    settled = checked()
    if isinstance(settled, Fallback):
        return Fallback(f"{first.reason}, and the operator check stopped: {settled.reason}")
    return RustResult(first.value)


def _loaded(output: str, depth_limit: int) -> tuple[Any, bool | None] | Fallback:
    """jrsonnet's JSON text as a value, with output_text_differs's first look (False: nothing
    in it can differ, None: walk it); a Fallback when it nests too deep or is no JSON."""
    deep = output_text_differs(output, depth_limit)
    if deep:
        return Fallback("nesting deeper than the stack go-jsonnet manifests with")
    try:
        return json.loads(output, parse_int=float, parse_constant=_no_constant), deep
    except ValueError as exc:
        return Fallback(f"jrsonnet's output is not JSON: {exc}")


def _checked_result(output: str, depth_limit: int) -> RustResult | Fallback:
    """The operator check's JSON text as a value: every text its operators wrote was shown to
    be go-jsonnet's, so only nesting and text read with a prelude can still differ (the mark,
    plain ASCII, is never escaped in JSON)."""
    if PRELUDE_MARK in output:
        return Fallback("a string holds text read with a prelude")
    loaded = _loaded(output, depth_limit)
    return loaded if isinstance(loaded, Fallback) else RustResult(loaded[0])


def _result(output: str, depth_limit: int, doubts: list[str]) -> RustResult | _Doubtful | Fallback:
    """jrsonnet's JSON text as a value, unless it may differ from go-jsonnet's; _Doubtful when
    only the operator check can tell (`doubts`: what the guarded functions doubted)."""
    loaded = _loaded(output, depth_limit)
    if isinstance(loaded, Fallback):
        return loaded
    value, deep = loaded
    differs = None if deep is False else output_differs(value, depth_limit)
    if differs is not None and not differs.doubt:
        return Fallback(differs.reason)
    if differs is not None or doubts:
        return _Doubtful(value, differs.reason if differs is not None else doubts[0])
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


def _vouch_native(depth_limit: int, doubts: list[str] | None) -> NativeCallbacks:
    """The natives of the guard; `doubts`: where the plain run notes text a guarded function
    measures or hashes that only the operator check can vouch for (None in that check's run,
    where every operator's text is checked as it is written)."""

    def check(value: Any, mode: VouchMode) -> bool:
        return vouch(value, mode, depth_limit, doubts)

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
