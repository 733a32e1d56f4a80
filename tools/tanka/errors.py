"""Errors of the Tanka engine. Messages are tk's own texts wherever tk has one.

TankaError's tree, so callers (the CLI, the agent tools) catch one class and show `str(exc)`:
one message that says what is wrong, in the words a tk user already knows. Beside it, the
importers analysis's and the formatter's errors, defined here so that what shows them (bot.tk's
error boundary) need not load those engines.
"""

from __future__ import annotations

from collections.abc import Sequence

from tools.errors import EngineError

DOCS_STRUCTURE = "https://tanka.dev/directory-structure"


class TankaError(EngineError):
    """Base class: str(exc) is the text to show a user."""


class PathNotFoundError(TankaError):
    """The given path does not exist (Go's os.Stat wording)."""

    def __init__(self, path: str) -> None:
        super().__init__(f"stat {path}: no such file or directory")
        self.path = path


class NoRootError(TankaError):
    def __init__(self) -> None:
        super().__init__(
            "unable to identify the project root.\n"
            "Tried to find 'tkrc.yaml' or 'jsonnetfile.json' in the parent directories.\n"
            f"Please refer to {DOCS_STRUCTURE} for more information"
        )


class NoBaseError(TankaError):
    def __init__(self, filename: str) -> None:
        super().__init__(
            "Unable to identify the environments base directory.\n"
            f"Tried to find '{filename}' in the parent directories.\n"
            f"Please refer to {DOCS_STRUCTURE} for more information"
        )
        self.filename = filename


class SpecError(TankaError):
    """spec.json (or an inline Environment object) cannot be parsed."""


class MultipleEnvsError(TankaError):
    def __init__(self, path: str, name: str, found: Sequence[str]) -> None:
        names = "\n - ".join(found)
        if name:
            text = (
                f"found multiple Environments in {go_quote(path)} matching {go_quote(name)}. "
                f"Provide a more specific name that matches a single one: \n - {names}"
            )
        else:
            text = (
                f"found multiple Environments in {go_quote(path)}. "
                f"Use `--name` to select a single one: \n - {names}"
            )
        super().__init__(text)
        self.names = tuple(found)


class NoMatchingEnvError(TankaError):
    def __init__(self, path: str) -> None:
        super().__init__(
            f"found no matching environments; run 'tk env list {path}' to view available options"
        )
        self.path = path  # front ends name their own listing command with it


class StaticAndInlineError(TankaError):
    """A static environment whose output still holds an inline Environment (tk's Load check)."""

    def __init__(self) -> None:
        super().__init__(
            "found a tanka Environment resource. Check that you aren't using a spec.json and "
            "inline environments simultaneously"
        )


class ParallelError(TankaError):
    """Several environments failed while being processed together (tk's ErrParallel text)."""

    def __init__(self, errors: Sequence[str]) -> None:
        text = "Errors occurred during parallel processing:\n\n"
        text += "".join(f"- {err}\n\n" for err in errors)
        super().__init__(text)
        self.errors = tuple(errors)


class JsonnetError(TankaError):
    """Jsonnet evaluation failed: go-jsonnet's message, with file:line:col and stack trace."""


class EvalTimeoutError(JsonnetError):
    def __init__(self, what: str, seconds: float) -> None:
        super().__init__(
            f"evaluating {what} did not finish within {seconds:g} seconds and was stopped; "
            "look for unbounded recursion or a very large computation"
        )


class EvalMemoryError(JsonnetError):
    def __init__(self, what: str, memory_mb: int) -> None:
        super().__init__(
            f"evaluating {what} ran out of memory (limit {memory_mb} MB) and was stopped; "
            "look for a runaway computation or a huge output"
        )


class EvalCrashedError(JsonnetError):
    def __init__(self, what: str, detail: str) -> None:
        super().__init__(f"evaluating {what} crashed the evaluator ({detail})")


class NativeError(TankaError):
    """A native function (helmTemplate, parseYaml, ...) failed; the text is its Go message."""


_GO_ESCAPES = {
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
    "\\": "\\\\",
    '"': '\\"',
}


def go_quote(text: str) -> str:
    """`text` double-quoted as Go's strconv.Quote (`%q`, `%#v`) does: printable characters as
    they are (non-ASCII included), others escaped; tk and go-jsonnet quote names in messages so."""
    out = ['"']
    for c in text:
        code = ord(c)
        if c in _GO_ESCAPES:
            out.append(_GO_ESCAPES[c])
        elif c.isprintable():
            out.append(c)
        elif code < 0x80:
            out.append(f"\\x{code:02x}")
        elif code < 0x10000:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    out.append('"')
    return "".join(out)


class ImportersError(EngineError, ValueError):
    """A bad argument to the importers analysis (e.g. a file that does not exist)."""


class FormatError(EngineError):
    """The source cannot be formatted; the message is go-jsonnet's `file:line:col message`."""


class FormatterUnavailable(FormatError):
    """Neither the gojsonnet shared library nor a jsonnetfmt binary could be used."""
