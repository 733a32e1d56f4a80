"""Import scans kept on disk by file content, shared by every base commit's import index.

Indexing a commit (index.py) lexes every file its environments reach: on Tempo about 700 files,
5.7 MB, ~2 s of pure Python. When the base branch moves, the environments that read a changed
file are resolved again, and each of them re-reads hundreds of vendored files that did not
change - in a new process (`tanka-bot tk diff`) with an empty in-memory cache every time.

A scan is a function of the file's text alone (scan.py), so it is stored under a digest of the
bytes: right for any tree, any commit, any repository, and a file changed in between simply
misses. The store is one JSON file beside the base trees, read when an index is built or derived
and rewritten after: entries used by that run first, older ones after them up to `MAX_ENTRIES`.
Its format names a digest of scan.py's own source, so a change to the lexer drops every stored
scan instead of trusting results the new code might not give. Writes are atomic (a concurrent
writer's entries may be lost, never half written): a lost entry only costs a lex.
"""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path
from typing import Any, get_args

from tools.tanka.base_tree import write_atomically
from tools.tanka.imports import scan
from tools.tanka.imports.scan import ImportKind, ImportRef, LexError, ScanResult

MAX_ENTRIES = 50_000
FILE_NAME = "import-scans.json"
_KINDS: dict[str, ImportKind] = {kind: kind for kind in get_args(ImportKind)}


def content_key(data: bytes) -> str:
    """The key of a file's bytes."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _lexer_version() -> str:
    """scan.py's source digest: a stored scan holds only for the lexer that made it."""
    try:
        source = Path(scan.__file__).read_bytes()
    except OSError:  # no source to compare with: store nothing that could be stale
        return ""
    return content_key(source)


class ScanStore:
    """ScanResults by content key, loaded from `file` on first use; `save` writes them back."""

    def __init__(self, file: Path) -> None:
        self.file = file
        self._lock = threading.Lock()
        self._stored: dict[str, ScanResult] | None = None
        self._used: dict[str, ScanResult] = {}
        self._version = _lexer_version()
        self.hits = 0
        self.misses = 0

    def get(self, key: str) -> ScanResult | None:
        with self._lock:
            found = self._used.get(key)
            if found is None:
                found = self._load().get(key)
                if found is not None:
                    self._used[key] = found
            if found is None:
                self.misses += 1
            else:
                self.hits += 1
            return found

    def put(self, key: str, result: ScanResult) -> None:
        with self._lock:
            self._used[key] = result

    def save(self) -> None:
        """Write the entries this run used, then the stored ones it did not, up to the cap;
        nothing when no new scan was made."""
        if not self._version or not self._used:
            return
        with self._lock:
            stored = self._load()
            if all(key in stored for key in self._used):
                return
            entries = dict(self._used)
            for key, result in stored.items():
                if len(entries) >= MAX_ENTRIES:
                    break
                entries.setdefault(key, result)
        body = {key: _encode(result) for key, result in entries.items()}
        self.file.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(self.file, json.dumps({"lexer": self._version, "scans": body}))

    def _load(self) -> dict[str, ScanResult]:
        if self._stored is None:
            self._stored = _read(self.file, self._version) if self._version else {}
        return self._stored


def _read(file: Path, version: str) -> dict[str, ScanResult]:
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
        if data.get("lexer") != version:
            return {}
        return {str(key): _decode(value) for key, value in data["scans"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError, IndexError):
        return {}  # unreadable or foreign: scan again


def _encode(result: ScanResult) -> list[Any]:
    imports = [[ref.kind, ref.path, ref.line, ref.column] for ref in result.imports]
    error = result.error
    return [imports] if error is None else [imports, [error.message, error.line, error.column]]


def _decode(value: list[Any]) -> ScanResult:
    imports = tuple(
        ImportRef(_KINDS[str(kind)], str(path), int(line), int(column))
        for kind, path, line, column in value[0]
    )
    if len(value) < 2:
        return ScanResult(imports)
    message, line, column = value[1]
    return ScanResult(imports, LexError(str(message), int(line), int(column)))
