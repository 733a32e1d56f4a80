"""The import callback every evaluation uses: tk's jpath search, `import "tk"`, confinement.

With an import callback the gojsonnet binding ignores `jpathdir`, so this implements go-jsonnet's
file importer itself: the importing file's directory first, then tk's
jpath from the last entry to the first (base, root/lib, base/vendor, root/vendor); `import "tk"`
is served from memory. On top of tk it refuses absolute paths, and a candidate that leaves the
confinement directory (the project root by default) by `..` or by a symlink counts as "not found
here": the search goes on as tk's does (`../../x` from an environment may miss from one jpath
directory and hit from another), and only when no candidate inside matches does the import fail,
naming the path that would have left. Symlinks are followed one component at a time and the walk
stops at the first step out (tools/tanka/confined.py), so nothing outside is read or even looked
at: a hostile `importstr '/etc/passwd'` fails instead of leaking the file.

Files that call `std.native` get a one-line prelude that shadows `std` (natives/shim.py) so that
natives taking objects and natives' error texts work through the binding.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tools.errors import EngineError
from tools.tanka.confined import ConfinedPaths, Outside
from tools.tanka.natives.shim import SHIM_NAME, SHIM_SOURCE
from tools.tanka.tk_library import TK_LIBRARY, TK_LIBRARY_PATH, TK_LIBRARY_SOURCE

# One line, no newline: prepended to line 1, every later line keeps its number.
PRELUDE = f"local __tk_std = std; local std = (import '{SHIM_NAME}')(__tk_std); "
_USES_NATIVE = re.compile(rb"std\s*\.\s*native\b")
_JSONNET_SUFFIXES = (".jsonnet", ".libsonnet")
_CACHE_LIMIT = 50_000
# What a lookup found, as a read set records it (see Importer.outcome): a digest of the content,
# or one of these for a candidate that was not there or that leads out of the confinement.
MISSING = "-"
OUTSIDE = "!"


class ImportRefused(EngineError):
    """The callback's refusal; go-jsonnet reports the message at the import's location."""


def with_prelude(path: str, content: bytes) -> bytes:
    """The file's bytes as evaluated: the natives prelude added to Jsonnet files that need it."""
    # The substring test first: it rules out most files at memchr speed, where the pattern
    # alone took ~10 ms over the megabytes of a vendored Kubernetes library.
    if path.endswith(_JSONNET_SUFFIXES) and b"native" in content and _USES_NATIVE.search(content):
        return PRELUDE.encode() + content
    return content


class _ContentCache:
    """File bytes by (path, mtime, size): shared by every evaluation in a worker process."""

    def __init__(self) -> None:
        self._entries: dict[str, tuple[tuple[int, int, int], bytes]] = {}
        self._lock = threading.Lock()

    def read(self, path: str, info: os.stat_result | None = None) -> bytes:
        """The file's bytes as evaluated; `info` is its stat when the caller already has it."""
        if info is None:
            info = os.stat(path)
        signature = (info.st_mtime_ns, info.st_size, info.st_ino)
        with self._lock:
            hit = self._entries.get(path)
        if hit is not None and hit[0] == signature:
            return hit[1]
        with open(path, "rb") as handle:
            content = with_prelude(path, handle.read())
        with self._lock:
            if len(self._entries) >= _CACHE_LIMIT:
                self._entries.clear()
            self._entries[path] = (signature, content)
        return content


CACHE = _ContentCache()


class Importer:
    """callback(base_dir, rel) -> (found_at, bytes) for gojsonnet's `import_callback`."""

    def __init__(
        self,
        jpath: Sequence[Path],
        *,
        confine: Path,
        trusted: Sequence[Path] = (),
        one_run: bool = False,
    ) -> None:
        """`one_run`: this Importer serves a single evaluation, so what a path held is
        remembered for the rest of it (go-jsonnet keeps the first content it got for a path
        for the whole run anyway); without it every call looks at the files again."""
        # Highest precedence first, as go-jsonnet walks its list from the end.
        self.search = [str(p) for p in reversed(jpath)]
        self._paths = ConfinedPaths(confine)
        self.confine = self._paths.root
        self._confine_real = self._paths.real_root
        # Absolute imports the engine itself writes (the eval scripts import the entrypoint).
        self._trusted = {os.path.normpath(str(p)) for p in trusted}
        self.last_refusal: str | None = None
        # One Importer serves one evaluation: the directories' real paths are taken as fixed
        # for that run (ConfinedPaths remembers them).
        self._held: dict[str, bytes | _Outside | None] | None = {} if one_run else None

    def __call__(self, base_dir: str, rel: str) -> tuple[str, bytes]:
        try:
            return self._resolve(base_dir, rel)
        except ImportRefused as exc:
            # The binding hands our message to Go without a terminating NUL, so the error text
            # that comes back may carry stray bytes; eval_worker repairs it from this copy.
            self.last_refusal = str(exc)
            raise

    def looked_up(self) -> dict[str, str]:
        """Every candidate this one-run Importer looked up, found or not, with its outcome: the
        read set of the evaluation (a file created later where a lookup missed changes it)."""
        return {path: outcome_of(found) for path, found in (self._held or {}).items()}

    def outcome(self, candidate: str) -> str:
        """What a lookup of the absolute `candidate` finds now, as `looked_up` records it; a
        refused candidate (under .git, a directory) reads as leading out."""
        try:
            return outcome_of(self._lookup(candidate, candidate))
        except ImportRefused:
            return OUTSIDE

    def _resolve(self, base_dir: str, rel: str) -> tuple[str, bytes]:
        if rel == TK_LIBRARY:
            return TK_LIBRARY_PATH, TK_LIBRARY_SOURCE
        if rel == SHIM_NAME:
            return SHIM_NAME, SHIM_SOURCE.encode()
        if os.path.isabs(rel):
            return self._absolute(rel)
        directories = [base_dir] if base_dir else []
        left: _Outside | None = None
        for directory in [*directories, *self.search]:
            candidate = os.path.normpath(os.path.join(directory, rel))
            found = self._lookup(rel, candidate)
            if isinstance(found, _Outside):
                left = left or found
            elif found is not None:
                return candidate, found
        if left is not None:
            raise ImportRefused(
                f"import {_quote(rel)} refused: {left.reason}; no file inside the project "
                "matches it, and imports may not leave the project directory"
            )
        raise ImportRefused(_not_found(rel))

    def _absolute(self, rel: str) -> tuple[str, bytes]:
        candidate = os.path.normpath(rel)
        if candidate not in self._trusted:
            raise ImportRefused(
                f"import {_quote(rel)} refused: absolute import paths are not allowed; "
                "import files inside the project by a relative path"
            )
        found = self._lookup(rel, candidate)
        if isinstance(found, _Outside):  # a trusted path is the engine's own, inside
            raise ImportRefused(f"import {_quote(rel)} refused: {found.reason}")
        if found is None:
            raise ImportRefused(_not_found(rel))
        return candidate, found

    def _lookup(self, rel: str, candidate: str) -> bytes | _Outside | None:
        """The candidate's content, None (missing) or _Outside (it leaves the confinement), after
        the confinement checks; a refusal raised here is never remembered, so its message always
        names this import."""
        if self._held is not None and candidate in self._held:
            return self._held[candidate]
        probe = self._check_inside(rel, candidate)
        found = probe if isinstance(probe, _Outside) else self._try(rel, candidate, probe)
        if self._held is not None:
            self._held[candidate] = found
        return found

    def _check_inside(self, rel: str, candidate: str) -> _Probe | _Outside:
        if not self._paths.contains(candidate):
            return _Outside(f"{candidate} is outside the project directory {self.confine}")
        probe = self._probe(candidate)
        if isinstance(probe, _Outside):
            return _Outside(
                f"{candidate} is a symlink to {probe.reason}, outside the project "
                f"directory {self.confine}"
            )
        if _in_git_dir(candidate, self.confine) or _in_git_dir(probe.real, self._confine_real):
            # As the file tools: .git holds the remote URL and config, never configuration.
            raise ImportRefused(
                f"import {_quote(rel)} refused: nothing under .git/ may be imported"
            )
        return probe

    def _probe(self, candidate: str) -> _Probe | _Outside:
        """realpath(candidate) and, when one lstat settles it, whether and what it is; _Outside
        (naming where it leads) when a symlink on the way leaves the confinement.

        Resolving costs an lstat per path component; an import search tries the same few
        directories over and over, so each directory is resolved once per evaluation and only
        the last component is looked at (a symlink there takes the full walk).
        """
        if candidate == self.confine:  # "." from the root: a directory, the reading says so
            return _Probe(self._confine_real)
        head, tail = os.path.split(candidate)
        real_dir = self._paths.directory(head)
        if isinstance(real_dir, Outside):
            return _Outside(os.path.join(real_dir.target, tail))
        real = os.path.join(real_dir.real, tail)
        try:
            info = None if real_dir.missing else os.lstat(candidate)
        except (FileNotFoundError, NotADirectoryError):
            info = None
        except OSError:  # as realpath does; reading it will say what is wrong
            return _Probe(real)
        if info is None:
            return _Probe(real, missing=True)
        return self._link(candidate) if stat.S_ISLNK(info.st_mode) else _Probe(real, info=info)

    def _link(self, candidate: str) -> _Probe | _Outside:
        """A candidate that is a symlink: where the whole chain leads."""
        walked = self._paths.walk(candidate)
        if isinstance(walked, Outside):
            return _Outside(walked.target)
        return _Probe(walked.real, missing=walked.missing)

    @staticmethod
    def _try(rel: str, candidate: str, probe: _Probe) -> bytes | None:
        if probe.missing:
            return None
        if probe.info is not None and not stat.S_ISDIR(probe.info.st_mode):
            return Importer._read(rel, candidate, probe.info)
        return Importer._read_unknown(rel, candidate)

    @staticmethod
    def _read_unknown(rel: str, candidate: str) -> bytes | None:
        if os.path.isdir(candidate):
            raise ImportRefused(
                f"couldn't open import {_quote(rel)}: read {candidate}: is a directory"
            )
        return Importer._read(rel, candidate, None)

    @staticmethod
    def _read(rel: str, candidate: str, info: os.stat_result | None) -> bytes | None:
        try:
            return CACHE.read(candidate, info)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as exc:
            raise ImportRefused(
                f"couldn't open import {_quote(rel)}: {exc.strerror or exc}"
            ) from None


@dataclass(frozen=True, slots=True)
class _Outside:
    """A candidate that leaves the confinement. `reason` says how, for the final message; from
    _probe it is the path the symlinks lead to."""

    reason: str


@dataclass(frozen=True, slots=True)
class _Probe:
    real: str  # what os.path.realpath(candidate) returns
    missing: bool = False  # lstat said no such file
    info: os.stat_result | None = None  # its stat, when it is no symlink


def outcome_of(found: bytes | _Outside | None) -> str:
    """A lookup's outcome as a read set records it: content as evaluated (the prelude added)."""
    if found is None:
        return MISSING
    if isinstance(found, _Outside):
        return OUTSIDE
    return hashlib.sha256(found).hexdigest()[:32]


def _in_git_dir(path: str, directory: str) -> bool:
    """Whether `path` (inside `directory`) has a `.git` segment below it (case-folded)."""
    inside = path[len(directory.rstrip("/")) :].casefold()
    return "/.git/" in inside + "/"


def _not_found(rel: str) -> str:
    return f"couldn't open import {_quote(rel)}: no match locally or in the Jsonnet library paths"


def _quote(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)
