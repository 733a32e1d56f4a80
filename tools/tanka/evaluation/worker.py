"""The child side of evaluation: one go-jsonnet run per request, inside a worker process.

A worker caps its own address space before each run (RLIMIT_AS: what the Go runtime has already
reserved plus the request's budget), sends back the parsed JSON value or go-jsonnet's error text,
and dies (with "out of memory" on its stderr) if a runaway evaluation hits the cap - the parent
then reports the cause and starts a fresh worker.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tools.memory_cap import cap_memory
from tools.tanka.evaluation.importer import Importer, ImportRefused, outcome_of, with_prelude
from tools.tanka.evaluation.quiet_panics import stderr_is_a_log

if TYPE_CHECKING:  # the worker process's own; `tanka-bot tk` evaluates in-process without it
    from multiprocessing.connection import Connection

_IMPORTER_PREFIX = re.compile(r"importer error: ")
# The message runs until the stack trace, which starts on a new line with a tab.
_IMPORTER_MESSAGE = re.compile(r"importer error: .*?(?=\n\t|\Z)", re.DOTALL)


@dataclass(frozen=True, slots=True)
class EvalRequest:
    """Everything a worker needs; plain data so it crosses the process boundary."""

    filename: str  # absolute: std.thisFile and the base of relative imports
    snippet: str | None  # None: read `filename` from disk
    confine: str  # imports may not leave this directory
    jpath: tuple[str, ...]  # lowest precedence first, as tk passes it
    ext_codes: dict[str, str] = field(default_factory=dict)
    tla_codes: dict[str, str] = field(default_factory=dict)
    max_stack: int = 500
    memory_mb: int = 1024
    trusted: tuple[str, ...] = ()  # absolute imports the engine itself writes
    record: bool = False  # send back what the run read (EvalReply.reads)
    # "rust": jrsonnet first, go-jsonnet when it cannot vouch for the answer (rust_eval.py).
    implementation: str = "go"


@dataclass(frozen=True, slots=True)
class EvalReply:
    value: Any = None
    error: str | None = None
    # With EvalRequest.record: every path the run looked up (the entrypoint, imports, importstr
    # and importbin files, candidates that missed) -> importer.Importer.outcome; None when the
    # run failed or called a native that reads files the import callback does not see.
    reads: dict[str, str] | None = None
    evaluator: str = "go"  # which one answered
    fallback: str | None = None  # why go-jsonnet answered a "rust" request


# Natives that read the file system themselves (a chart's or a kustomization's whole directory)
# or run a program: a run that calls one has no read set.
FILE_NATIVES = ("helmTemplate", "kustomizeBuild")


def evaluate(request: EvalRequest) -> EvalReply:
    """Run one evaluation in this process (no limits); the worker loop wraps it."""
    if request.implementation == "rust":
        reply = _evaluate_rust(request)
        if isinstance(reply, EvalReply):
            return reply
        return replace(_evaluate_go(request), fallback=reply)
    return _evaluate_go(request)


def _evaluate_rust(request: EvalRequest) -> EvalReply | str:
    """jrsonnet's reply, or why go-jsonnet must answer (rust_eval.py)."""
    from tools.tanka.evaluation.rust_eval import RustResult, evaluate_rust  # noqa: PLC0415 - the Jsonnet VM loads in the worker, not in the parent that imports EvalRequest
    from tools.tanka.natives.functions import native_callbacks  # noqa: PLC0415 - the Jsonnet VM loads in the worker, not in the parent that imports EvalRequest

    importer = _importer(request)
    opaque: list[str] = []
    callbacks = native_callbacks(request.confine)
    if request.record:
        callbacks = _noting(callbacks, opaque)
    try:
        main = _main_source(request)
    except OSError:
        return "the entry file cannot be read"  # go-jsonnet's path says why
    snippet = main is None
    text = request.snippet.encode() if main is None and request.snippet is not None else main
    outcome = evaluate_rust(
        filename=request.filename,
        main_text=text or b"",
        snippet=snippet,
        importer=importer,
        callbacks=callbacks,
        ext_codes=request.ext_codes,
        tla_codes=request.tla_codes,
        max_stack=request.max_stack,
        doubt_key=os.path.relpath(request.filename, request.confine),
    )
    if not isinstance(outcome, RustResult):
        return outcome.reason
    reads = None
    if request.record and not opaque:
        reads = importer.looked_up()
        if main is not None:  # read above, not through the callback
            reads[request.filename] = outcome_of(main)
    return EvalReply(value=outcome.value, reads=reads, evaluator="rust")


def _importer(request: EvalRequest) -> Importer:
    return Importer(
        [Path(p) for p in request.jpath],
        confine=Path(request.confine),
        trusted=[Path(p) for p in request.trusted],
        one_run=True,
    )


def _evaluate_go(request: EvalRequest) -> EvalReply:
    import _gojsonnet  # noqa: PLC0415 - the Jsonnet VM loads in the worker, not in the parent that imports EvalRequest

    from tools.tanka.natives.functions import native_callbacks  # noqa: PLC0415 - the Jsonnet VM loads in the worker, not in the parent that imports EvalRequest

    importer = _importer(request)
    callbacks = native_callbacks(request.confine)
    opaque: list[str] = []
    if request.record:
        callbacks = _noting(callbacks, opaque)
    try:
        main = _main_source(request)
        text = request.snippet if main is None else main.decode("utf-8", errors="replace")
        output = _gojsonnet.evaluate_snippet(
            request.filename,
            text,
            ext_codes=request.ext_codes,
            tla_codes=request.tla_codes,
            max_stack=request.max_stack,
            import_callback=importer,
            native_callbacks=callbacks,
        )
    except UnicodeDecodeError as exc:  # stray bytes after an import refusal, see _repair
        raw = exc.object if isinstance(exc.object, bytes) else bytes(exc.object)
        return EvalReply(error=clean_error(_repair(raw.decode("utf-8", "replace"), importer)))
    except (RuntimeError, ImportRefused) as exc:
        return EvalReply(error=clean_error(_repair(str(exc), importer)))
    except OSError as exc:
        return EvalReply(error=f"reading {request.filename}: {exc.strerror or exc}")
    reads = None
    if request.record and not opaque:
        reads = importer.looked_up()
        if main is not None:  # read above, not through the callback
            reads[request.filename] = outcome_of(main)
    return EvalReply(value=json.loads(output, parse_int=float), reads=reads)


def _noting(callbacks: dict[str, tuple[tuple[str, ...], Any]], called: list[str]) -> dict[
    str, tuple[tuple[str, ...], Any]
]:  # fmt: skip
    """`callbacks` with the file-reading natives noting their name in `called` when run."""

    def noted(name: str, fn: Any) -> Any:
        def call(*args: Any) -> Any:
            called.append(name)
            return fn(*args)

        return call

    return {
        name: (params, noted(name, fn) if name.endswith(FILE_NATIVES) else fn)
        for name, (params, fn) in callbacks.items()
    }


def _main_source(request: EvalRequest) -> bytes | None:
    """The file's bytes as evaluated (the natives prelude added); None for a snippet."""
    if request.snippet is not None:
        return None
    with open(request.filename, "rb") as handle:
        return with_prelude(request.filename, handle.read())


def _repair(text: str, importer: Importer) -> str:
    """Put the importer's own message back where the binding may have appended stray bytes
    (go-jsonnet's python glue passes the callback's error without a terminating NUL)."""
    if importer.last_refusal is None:
        return text
    message = "importer error: " + importer.last_refusal
    return _IMPORTER_MESSAGE.sub(lambda _: message, text, count=1)


def clean_error(text: str) -> str:
    """go-jsonnet's message as tk shows it: no binding-specific `importer error:` prefix."""
    return _IMPORTER_PREFIX.sub("", text, count=1).rstrip("\n")


def serve(conn: Connection, stderr_path: str) -> None:
    """Worker main loop: requests in, replies out, until the parent closes the pipe."""
    # Go's fatal errors (out of memory, stack) go to fd 2: keep them for the parent to read.
    fd = os.open(stderr_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(fd, 2)
    os.close(fd)
    stderr_is_a_log[0] = True  # rjsonnet's panics may go there (quiet_panics.py)
    evaluate(EvalRequest("<warm-up>", "{}", "/", ()))  # let the Go runtime reserve its arenas
    evaluate(EvalRequest("<warm-up>", "{}", "/", (), implementation="rust"))  # and load jrsonnet
    conn.send("ready")  # start-up time must not count against the first request's timeout
    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError):
            return
        cap_memory(request.memory_mb)
        try:
            conn.send(evaluate(request))
        except MemoryError:
            # The heap may be in any state: say why on stderr and let the parent replace us.
            os.write(2, b"fatal error: out of memory (Python)\n")
            os._exit(3)


if __name__ == "__main__":
    import sys
    from multiprocessing.connection import Connection

    # Run the imported module's serve: replies must pickle as tools.tanka.evaluation.worker classes,
    # not as this __main__'s copies.
    from tools.tanka.evaluation import worker as eval_worker  # noqa: PLW0406 - see above

    eval_worker.serve(Connection(int(sys.argv[1])), sys.argv[2])
