"""`tk tool imports PATH`: every file an environment imports, transitively, relative to its
project root (pkg/jsonnet/imports.go's TransitiveImports).

As tk: the path is made absolute and its symlinks resolved before the entrypoint, root and jpath
are found; `import` is followed into the file it names and `importstr` lists its file, while
`importbin` is not listed (tk's walk of the syntax tree does not know it); every listed path is
symlink-resolved, made relative to the root, and sorted with the entrypoint among them; an
import that does not resolve fails the command. Output: the list as compact JSON (Go's
encoding, so `<`, `>` and `&` are escaped).

Different on purpose: `import "tk"` is Tanka's in-memory library and is not listed (tk tries to
resolve `<internal>/tk.libsonnet` as a file and fails); the entrypoint's own imports are looked
up from its directory, where tk first tries the working directory; and imports stay inside the
confinement directory as the evaluator's do.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from tools.tanka.errors import TankaError
from tools.tanka.gojson.encode import go_string
from tools.tanka.imports.graph import default_scanner, search_path
from tools.tanka.project import resolve_env_paths


@dataclass(frozen=True, slots=True)
class TransitiveImports:
    root: Path
    entrypoint: Path
    files: tuple[Path, ...]  # absolute, symlink-resolved, the entrypoint included, sorted

    def relative(self) -> list[str]:
        """tk's list: each path relative to the root, sorted."""
        return sorted(os.path.relpath(f, self.root) for f in self.files)


def transitive_imports(path: str | os.PathLike[str], *, confine: Path | None) -> TransitiveImports:
    """The files the environment at `path` imports; TankaError naming the first import that does
    not resolve (tk's "importing '<path>' from '<file>'")."""
    directory = os.path.realpath(os.path.abspath(path))
    if not os.path.exists(directory):
        raise TankaError(f"lstat {os.path.abspath(path)}: no such file or directory")
    paths = resolve_env_paths(directory)
    graph = default_scanner().closure(
        paths.entrypoint, search_path(paths.root, paths.base), confine=confine or paths.root
    )
    for file, error in graph.lex_errors.items():
        raise TankaError(f"{file}:{error.line}:{error.column} {error.message}")
    found: set[str] = set()
    for resolution in graph.resolutions:
        if resolution.ref.kind == "importbin":
            continue
        if resolution.error is not None:
            raise TankaError(
                f"importing '{resolution.ref.path}' from '{resolution.importer}': "
                f"{resolution.message}"
            )
        if resolution.found is not None:
            found.add(os.path.abspath(resolution.found))
    files = [Path(os.path.realpath(f)) for f in found] + [paths.entrypoint]
    return TransitiveImports(paths.root, paths.entrypoint, tuple(sorted(files)))


def format_imports(relative: list[str]) -> str:
    """tk's output: json.Marshal of the list, then a newline."""
    return "[" + ",".join(map(go_string, relative)) + "]\n"
