"""Validate Jsonnet files: syntax, go-jsonnet static checks, imports, and jsonnet-lint's checks.

Layers, each reported as `file:line:col: severity: message` (`str(Diagnostic)`, which the agent
reads) or as go-jsonnet's text (`Diagnostic.gojsonnet`, which `tk lint` prints):
1. the linter, in process (tools/tanka/source/jsonnet, a port of go-jsonnet's front end and
   linter): syntax, static analysis (unknown variables, ...), imports that do not resolve along
   tk's jpath (in dead code too, walking into the files imported), unused variables, endless
   loops in locals and the type checker's findings (arity, fields, operands) - go-jsonnet's
   messages and locations (`Diagnostic.span`), checks `syntax`, `static`, `import`, `unused`
   and `jsonnet-lint`;
   (the type checker's and the endless-loop findings are reported as check `jsonnet-lint`);
2. static - evaluation of the top-level expression only, in a child process with a timeout
   (runtime errors such as a failed assert, which no static check sees).
A file that does not parse or analyse gets only that diagnostic: later layers would repeat it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from tools.errors import ToolError
from tools.tanka.errors import FormatError
from tools.tanka.imports.graph import (
    FileSystemSnapshot,
    ImportRef,
    jpath_for,
    resolve_import,
)
from tools.tanka.source.fmt import DEFAULT_EXCLUDES, find_jsonnet_files
from tools.tanka.source.jsonnet.error_format import format_static_error
from tools.tanka.source.jsonnet.errors import ParseError, StaticError
from tools.tanka.source.jsonnet.linter import (
    ImportFailure,
    LintFinding,
    LintSnippet,
    TreeCache,
    lint_findings,
)
from tools.tanka.source.lint_static import run_static_checks
from tools.tanka.tk_library import TK_LIBRARY, TK_LIBRARY_SOURCE

Severity = Literal["error", "warning"]
STATIC_TIMEOUT = 60.0

# go-jsonnet locations: `f:3:7-12 msg`, `f:3:7 msg`, `f:(3:7)-(5:1) msg`; C++ adds a colon.
_LOCATED = re.compile(
    r"""^(?P<file>[^\t\n]+?):
        (?: (?P<line>\d+):(?P<col>\d+)(?:-\d+)? | \((?P<l1>\d+):(?P<c1>\d+)\)-\(\d+:\d+\) )
        :?[ \t]+(?P<msg>.*)$""",
    re.VERBOSE,
)
_FRAME = re.compile(r"^\t(?P<where>[^\t]+)\t")


@dataclass(frozen=True, slots=True, order=True)
class Diagnostic:
    path: str
    line: int
    column: int
    message: str
    severity: Severity = "error"
    check: str = "syntax"  # syntax | import | static | unused | jsonnet-lint
    end_line: int = 0  # where the problem ends (exclusive column), when known
    end_column: int = 0
    # go-jsonnet's ErrorFormatter text (location, message, the source it points at), for the
    # linter's findings; empty for the layers go-jsonnet's linter does not have.
    text: str = ""

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}: {self.severity}: {self.message}"

    @property
    def gojsonnet(self) -> str:
        """The finding as jsonnet-lint (and so tk lint) prints it, closing blank line included:
        `main.jsonnet:1:7-22 Unused variable: unused`, a blank line, the source line, and
        blank lines; for our own layers the location and message alone."""
        return (self.text or f"{self.path}:{self.span} {self.message}\n\n") + "\n"

    @property
    def span(self) -> str:
        """go-jsonnet's location text: `3:7-12`, or `(3:7)-(5:2)` across lines."""
        if not self.end_line:
            return f"{self.line}:{self.column}"
        if self.end_line == self.line:
            return f"{self.line}:{self.column}-{self.end_column}"
        return f"({self.line}:{self.column})-({self.end_line}:{self.end_column})"


def lint_paths(
    paths: Iterable[str | Path],
    *,
    root: Path | None = None,
    excludes: Iterable[str] = DEFAULT_EXCLUDES,
    absolute_names: bool = False,
) -> list[Diagnostic]:
    """Diagnostics for every Jsonnet file under paths (directories as `tk fmt` walks them, minus
    the `excludes` globs). Files are named relative to the root they are confined to, or, with
    `absolute_names`, by absolute path, as tk lint names them (it lints `filepath.Abs(file)`)."""
    patterns = tuple(excludes)
    files = [f.resolve() for p in paths for f in _files(Path(p), patterns)]
    linter = _Linter(root.resolve() if root else None, absolute_names)
    for file in files:
        linter.lint_file(file)
    linter.run_static()
    # Each linted file's findings in go-jsonnet's order (as tk prints them), files in the order
    # they were found; a finding two files share (in a file both import) once.
    return list(dict.fromkeys(d for found in linter.found.values() for d in found))


def format_diagnostics(diagnostics: Sequence[Diagnostic]) -> str:
    if not diagnostics:
        return "✓ valid"
    # An imported file's error is one line however many linted files import it.
    return "\n".join(dict.fromkeys(str(d) for d in diagnostics))


def _files(target: Path, excludes: tuple[str, ...]) -> list[Path]:
    try:
        return find_jsonnet_files(target, excludes)
    except FormatError as exc:
        raise ToolError(str(exc)) from exc


class _ProjectImporter:
    """Imports for the in-process linter, resolved as tk resolves them and confined to the
    checkout; files are named by their path relative to the root, as diagnostics show them
    (or by absolute path: `absolute`)."""

    _TK = "<tk>"  # Tanka's in-memory library

    def __init__(
        self, root: Path, search: tuple[Path, ...], fs: FileSystemSnapshot, absolute: bool
    ) -> None:
        self._root = root
        self._search = search
        self._fs = fs
        self._absolute = absolute

    def find(self, importing: str, path: str) -> str:
        if path == TK_LIBRARY:
            return self._TK
        ref = ImportRef("import", path, 0, 0)
        resolution = resolve_import(
            ref, self._root / importing, self._search, confine=self._root, fs=self._fs
        )
        if resolution.error is not None or resolution.found is None:
            raise ImportFailure(resolution.message)
        found = resolution.found
        if self._absolute or not found.is_relative_to(self._root):
            return str(found)
        return str(found.relative_to(self._root))

    def read(self, found_at: str) -> str:
        if found_at == self._TK:
            return TK_LIBRARY_SOURCE.decode()
        try:
            return (self._root / found_at).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ImportFailure(f"cannot read {found_at}: {exc}") from exc


_CHECKS = {
    "parse": "syntax",
    "static": "static",
    "import": "import",
    "unused": "unused",
    "types": "jsonnet-lint",
    "traversal": "jsonnet-lint",
}


def _from_finding(finding: LintFinding, shown: str) -> Diagnostic:
    error: StaticError = finding.error
    text = format_static_error(error)  # go-jsonnet's: at the import, for an imported file's
    check = _CHECKS[finding.kind]
    if error.cause is not None:  # an imported file that does not parse: report it there
        error = error.cause
        check = "syntax" if isinstance(error, ParseError) else "static"
    loc = error.loc
    if not loc.is_set():
        return Diagnostic(shown, 1, 1, error.msg, "error", check, text=text)
    begin, end = loc.begin, loc.end
    return Diagnostic(
        loc.file_name, begin.line, begin.column, error.msg, "error", check, end.line, end.column,
        text,
    )  # fmt: skip


class _Linter:
    def __init__(self, root: Path | None, absolute: bool) -> None:
        self._root = root
        self._absolute = absolute
        self._fs = FileSystemSnapshot()
        # Files imported by many of the linted files are parsed once per run, not per file.
        self._trees = TreeCache()
        self.found: dict[Path, list[Diagnostic]] = {}  # by linted file
        self._clean: list[tuple[Path, Path, tuple[Path, ...]]] = []  # parsed: (file, root, search)

    def shown(self, path: Path, root: Path) -> str:
        if self._absolute or not path.is_relative_to(root):
            return str(path)
        return str(path.relative_to(root))

    def lint_file(self, file: Path) -> None:
        root, search = jpath_for(file, self._root)
        shown = self.shown(file, root)
        found = self.found.setdefault(file, [])
        try:
            text = file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            found.append(Diagnostic(shown, 1, 1, f"cannot read the file: {exc}"))
            return
        importer = _ProjectImporter(root, search, self._fs, self._absolute)
        try:
            findings = lint_findings([LintSnippet(shown, text)], importer, trees=self._trees)
        except (RecursionError, MemoryError) as exc:
            message = f"too deep or too large for the linter ({type(exc).__name__}); not checked"
            found.append(Diagnostic(shown, 1, 1, message, "warning", "syntax"))
            return
        found.extend(_from_finding(f, shown) for f in findings)
        if not any(f.kind in ("parse", "static") for f in findings):
            self._clean.append((file, root, search))

    def run_static(self) -> None:
        try:
            results = run_static_checks(self._clean, timeout=STATIC_TIMEOUT)
        except ToolError as exc:
            for f, r, _ in self._clean:
                message = f"static check not run: {exc}"
                self.found[f].append(
                    Diagnostic(self.shown(f, r), 1, 1, message, "warning", "static")
                )
            return
        known = {
            (d.path, d.line, d.column, d.message) for found in self.found.values() for d in found
        }
        for (file, root, _), error in zip(self._clean, results, strict=True):
            if error is not None and "couldn't open import" not in error:
                found = _from_runtime(
                    error, self.shown(file, root), None if self._absolute else root
                )
                if (found.path, found.line, found.column, found.message) not in known:
                    self.found[file].append(found)


def _parse_located(text: str, fallback: str, check: str, root: Path | None = None) -> Diagnostic:
    """A Diagnostic from go-jsonnet's `file:line:col-col message` text."""
    first = text.strip().splitlines()[0] if text.strip() else "unknown error"
    match = _LOCATED.match(first)
    if match is None:
        return Diagnostic(fallback, 1, 1, first, "error", check)
    line = int(match["line"] or match["l1"])
    column = int(match["col"] or match["c1"])
    path = match["file"]
    if root is not None and Path(path).is_absolute() and Path(path).is_relative_to(root):
        path = str(Path(path).relative_to(root))
    return Diagnostic(path, line, column, match["msg"], "error", check)


def _from_runtime(error: str, shown: str, root: Path | None) -> Diagnostic:
    """Locate a `RUNTIME ERROR: msg` + frames text at its innermost frame in a real file."""
    body = error.removeprefix("RUNTIME ERROR: ")
    head = body.splitlines()[0] if body else "unknown error"
    if _LOCATED.match(head):  # a static error inside an imported file
        return _parse_located(head, shown, "static", root)
    for line in body.splitlines()[1:]:
        frame = _FRAME.match(line)
        if frame and not frame["where"].startswith("<lint>"):
            return _parse_located(f"{frame['where']} {head}", shown, "static", root)
    return Diagnostic(shown, 1, 1, head, "error", "static")
