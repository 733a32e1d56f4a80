"""Validate Jsonnet files: syntax, go-jsonnet static checks, imports, and jsonnet-lint if present.

Layers, each reported as `file:line:col: severity: message`:
1. syntax - go-jsonnet's parser, through the formatter (exact positions, no evaluation);
2. imports - every import/importstr/importbin must resolve along tk's jpath (wording as
   jsonnet-lint's); a lexer-level scan, so imports in dead code are checked too;
3. static - go-jsonnet's static analysis (unknown variables, ...) plus evaluation of the top-level
   expression only, in a child process with a timeout;
4. unused variables - go-jsonnet's linter check, in-process (unused.py), with its message and
   its location (`Diagnostic.span`);
5. jsonnet-lint - when on PATH: arity and field checks on top (its findings already made by a
   layer above are not repeated).
A file with a syntax error gets only that diagnostic: later layers would repeat it.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from tools import sandbox
from tools.errors import ToolError
from tools.tanka.imports.graph import ImportScanner, default_scanner, jpath_for, resolve_import
from tools.tanka.imports.scan import Positions as _Positions
from tools.tanka.source.fmt import DEFAULT_EXCLUDES, find_jsonnet_files
from tools.tanka.source.formatter import FormatError, FormatterUnavailable, format_source
from tools.tanka.source.lint_static import run_static_checks
from tools.tanka.source.unused import unused_variables

Severity = Literal["error", "warning"]
STATIC_TIMEOUT = 60.0
LINT_TIMEOUT = 60.0

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

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}: {self.severity}: {self.message}"

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
    jsonnet_lint: bool = True,
    scanner: ImportScanner | None = None,
) -> list[Diagnostic]:
    """Diagnostics for every Jsonnet file under paths (directories as `tk fmt` walks them)."""
    files = [f.resolve() for p in paths for f in _files(Path(p))]
    linter = _Linter(root.resolve() if root else None, scanner or default_scanner())
    for file in files:
        linter.lint_file(file)
    linter.run_static()
    if jsonnet_lint and shutil.which("jsonnet-lint"):
        linter.run_jsonnet_lint()
    return sorted(set(linter.found))


def format_diagnostics(diagnostics: Sequence[Diagnostic]) -> str:
    if not diagnostics:
        return "✓ valid"
    return "\n".join(str(d) for d in diagnostics)


def _files(target: Path) -> list[Path]:
    try:
        return find_jsonnet_files(target, DEFAULT_EXCLUDES)
    except FormatError as exc:
        raise ToolError(str(exc)) from exc


class _Linter:
    def __init__(self, root: Path | None, scanner: ImportScanner) -> None:
        self._root = root
        self._scanner = scanner
        self.found: list[Diagnostic] = []
        self._clean: list[tuple[Path, Path, tuple[Path, ...]]] = []  # parsed: (file, root, search)

    def shown(self, path: Path, root: Path) -> str:
        return str(path.relative_to(root)) if path.is_relative_to(root) else str(path)

    def lint_file(self, file: Path) -> None:
        root, search = jpath_for(file, self._root)
        shown = self.shown(file, root)
        try:
            text = file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            self.found.append(Diagnostic(shown, 1, 1, f"cannot read the file: {exc}"))
            return
        if self._syntax(text, shown):
            self._imports(file, shown, root, search)
            self._unused(text, shown)
            self._clean.append((file, root, search))

    def _unused(self, text: str, shown: str) -> None:
        positions = _Positions(text)
        for variable in unused_variables(text):
            line, column = positions.at(variable.start)
            end_line, end_column = positions.at(variable.end)
            message = f"Unused variable: {variable.name}"
            self.found.append(
                Diagnostic(shown, line, column, message, "error", "unused", end_line, end_column)
            )

    def _syntax(self, text: str, shown: str) -> bool:
        try:
            format_source(text, shown)
        except FormatterUnavailable:
            return True  # the static check parses too
        except FormatError as exc:
            self.found.append(_parse_located(str(exc), shown, "syntax"))
            return False
        return True

    def _imports(self, file: Path, shown: str, root: Path, search: tuple[Path, ...]) -> None:
        for ref in self._scanner.scan_file(file).imports:
            resolution = resolve_import(ref, file, search, confine=root)
            if resolution.error is not None:
                diagnostic = Diagnostic(
                    shown, ref.line, ref.column, resolution.message, "error", "import"
                )
                self.found.append(diagnostic)

    def run_static(self) -> None:
        try:
            results = run_static_checks(self._clean, timeout=STATIC_TIMEOUT)
        except ToolError as exc:
            self.found.extend(
                Diagnostic(
                    self.shown(f, r), 1, 1, f"static check not run: {exc}", "warning", "static"
                )
                for f, r, _ in self._clean
            )
            return
        for (file, root, _), error in zip(self._clean, results, strict=True):
            if error is not None and "couldn't open import" not in error:
                self.found.append(_from_runtime(error, self.shown(file, root), root))

    def run_jsonnet_lint(self) -> None:
        known = {(d.path, d.line, d.message) for d in self.found}
        for file, root, search in self._clean:
            for diagnostic in _jsonnet_lint(file, root, search, self.shown(file, root)):
                if (diagnostic.path, diagnostic.line, diagnostic.message) not in known:
                    self.found.append(diagnostic)


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


def _from_runtime(error: str, shown: str, root: Path) -> Diagnostic:
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


def _jsonnet_lint(file: Path, root: Path, search: Sequence[Path], shown: str) -> list[Diagnostic]:
    # -J: the right-most wins, so pass tk's jpath lowest precedence first.
    argv = ["jsonnet-lint"]
    for directory in reversed(search):
        argv += ["-J", str(directory)]
    try:
        result = sandbox.run([*argv, str(file)], cwd=file.parent, timeout=LINT_TIMEOUT)
    except ToolError as exc:
        return [Diagnostic(shown, 1, 1, f"jsonnet-lint not run: {exc}", "warning", "jsonnet-lint")]
    if result.returncode not in (0, 2):
        message = f"jsonnet-lint could not check the file: {result.error_text()[:500]}"
        return [Diagnostic(shown, 1, 1, message, "warning", "jsonnet-lint")]
    found = []
    for line in (result.stderr + result.stdout).decode("utf-8", errors="replace").splitlines():
        if _LOCATED.match(line):
            located = _parse_located(line, shown, "jsonnet-lint", root)
            found.append(located if located.path != str(file) else _with_path(located, shown))
    return found


def _with_path(diagnostic: Diagnostic, path: str) -> Diagnostic:
    return Diagnostic(
        path,
        diagnostic.line,
        diagnostic.column,
        diagnostic.message,
        diagnostic.severity,
        diagnostic.check,
    )
