"""jsonnetfile.json and jsonnetfile.lock.json: reading (v1, and v0 upgraded) and writing.

Output is byte-compatible with jb: Go's `json.MarshalIndent` with two spaces, a trailing
newline, keys in jb's struct order, dependencies sorted by name, and Go's string escaping
(`<`, `>`, `&`, U+2028/9 as \\u escapes). Reading follows jb's rules (its spec package):
empty bytes are an empty spec, `legacyImports` defaults to true, remotes are re-parsed and
written back canonically, the last of two entries with one name wins.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from tools.jb.deps import Dependency, GitSource, LocalSource, checked, parse_git
from tools.jb.errors import JbError

JSONNETFILE = "jsonnetfile.json"
LOCKFILE = "jsonnetfile.lock.json"
SPEC_VERSION = 1


@dataclass(slots=True)
class JsonnetFile:
    # Insertion-ordered by name: order matters for resolution (first version wins).
    dependencies: dict[str, Dependency] = field(default_factory=dict)
    legacy_imports: bool = True

    def add(self, dep: Dependency) -> None:
        self.dependencies[dep.name] = dep

    def sorted_dependencies(self) -> list[Dependency]:
        return sorted(self.dependencies.values(), key=lambda d: d.name.encode())

    def same_content(self, other: JsonnetFile) -> bool:
        """Equal as jb would write them (order-insensitive, since output is sorted)."""
        return (
            self.legacy_imports == other.legacy_imports
            and self.sorted_dependencies() == other.sorted_dependencies()
        )


def lockfile_of(locks: Iterable[Dependency]) -> JsonnetFile:
    # jb builds the lock from a zero-valued struct, so its legacyImports is always false.
    lock = JsonnetFile(legacy_imports=False)
    for dep in locks:
        lock.add(dep)
    return lock


# --- reading -------------------------------------------------------------------------------------


def parse(data: bytes, *, filename: str = JSONNETFILE) -> JsonnetFile:
    """Decode a jsonnetfile; JbError names the file and the JSON error position."""
    if not data:
        return JsonnetFile()
    try:
        doc = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise JbError(
            f"{filename} is not UTF-8 text (byte {exc.start}); re-save it as UTF-8"
        ) from exc
    except json.JSONDecodeError as exc:
        raise JbError(
            f"{filename} is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}; "
            "fix the syntax (or restore it with git) and retry"
        ) from exc
    if not isinstance(doc, dict):
        raise JbError(f"{filename} must hold a JSON object with a `dependencies` array")
    version = doc.get("version", 0)
    if version == 0:
        return _parse_v0(doc, filename)
    if version == SPEC_VERSION:
        return _parse_v1(doc, filename)
    raise JbError(
        f"{filename}: jsonnetfile version unknown ({version!r}); only versions 0 and 1 exist, "
        "set `version` to 1"
    )


def _dependency_list(doc: dict[str, Any], filename: str) -> list[dict[str, Any]]:
    entries = doc.get("dependencies")
    if entries is None:
        return []
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise JbError(f"{filename}: `dependencies` must be an array of objects")
    return entries


def _parse_v1(doc: dict[str, Any], filename: str) -> JsonnetFile:
    legacy = doc.get("legacyImports", True)
    if not isinstance(legacy, bool):
        raise JbError(f"{filename}: `legacyImports` must be true or false")
    spec = JsonnetFile(legacy_imports=legacy)
    for index, entry in enumerate(_dependency_list(doc, filename)):
        spec.add(_parse_entry(entry, f"{filename}: dependency #{index + 1}"))
    return spec


def _parse_v0(doc: dict[str, Any], filename: str) -> JsonnetFile:
    # v0 entries carry a mandatory `name`; it becomes the legacy-name override.
    spec = JsonnetFile(legacy_imports=True)
    for index, entry in enumerate(_dependency_list(doc, filename)):
        where = f"{filename}: dependency #{index + 1}"
        dep = _parse_entry(entry, where, v0=True)
        spec.add(dep)
    return spec


def _parse_entry(entry: dict[str, Any], where: str, *, v0: bool = False) -> Dependency:
    source = _field(entry, "source", dict, where, required=True)
    version = _field(entry, "version", str, where)
    sum_ = _field(entry, "sum", str, where)
    single = bool(_field(entry, "single", bool, where)) and not v0
    name = _field(entry, "name", str, where)
    git = _field(source, "git", dict, where)
    local = _field(source, "local", dict, where)
    parsed: GitSource | LocalSource
    if git:
        parsed = _parse_git_source(git, where, v0=v0)
    elif local:
        parsed = LocalSource(_field(local, "directory", str, where, required=True))
    else:
        raise JbError(f"{where} has no `source.git` or `source.local`; add one")
    return checked(Dependency(parsed, version, sum_, single, name))


def _parse_git_source(git: dict[str, Any], where: str, *, v0: bool) -> GitSource:
    remote = _field(git, "remote", str, where, required=True)
    subdir = _field(git, "subdir", str, where)
    dep = parse_git(remote)
    if dep is None or not isinstance(dep.source, GitSource):
        raise JbError(
            f"{where}: unable to parse git url {remote!r}; use https://host/user/repo.git"
        )
    if v0 and subdir:
        subdir = _clean_v0_subdir(subdir)
    cleaned = "/" + subdir.lstrip("/") if subdir else ""
    src = dep.source
    return GitSource(src.scheme, src.host, src.user, src.repo, cleaned)


def _clean_v0_subdir(subdir: str) -> str:
    # jb runs filepath.Clean("/" + subdir): rooted, so '..' cannot climb above the repository.
    parts: list[str] = []
    for part in subdir.split("/"):
        if part == "..":
            if parts:
                parts.pop()
        elif part not in ("", "."):
            parts.append(part)
    return "/".join(parts)


def _field(obj: dict[str, Any], key: str, kind: type, where: str, *, required: bool = False) -> Any:
    value = obj.get(key)
    if value is None:
        if required:
            raise JbError(f"{where} lacks `{key}`; add it")
        return kind()
    if not isinstance(value, kind):
        raise JbError(f"{where}: `{key}` must be a {_KIND_NAMES[kind]}")
    return value


_KIND_NAMES: dict[type, str] = {str: "string", bool: "boolean", dict: "JSON object"}


# --- writing -------------------------------------------------------------------------------------


def dump(spec: JsonnetFile) -> bytes:
    """The file as jb writes it, byte for byte."""
    deps = spec.sorted_dependencies()
    lines = ["{", f'  "version": {SPEC_VERSION},']
    if deps:
        lines.append('  "dependencies": [')
        for index, dep in enumerate(deps):
            block = _dump_dependency(dep)
            if index < len(deps) - 1:
                block[-1] += ","
            lines.extend("    " + line for line in block)
        lines.append("  ],")
    else:
        lines.append('  "dependencies": [],')
    lines.append(f'  "legacyImports": {"true" if spec.legacy_imports else "false"}')
    lines.append("}")
    return ("\n".join(lines) + "\n").encode("utf-8")


def _dump_dependency(dep: Dependency) -> list[str]:
    lines = ["{", '  "source": {']
    if isinstance(dep.source, GitSource):
        lines += [
            '    "git": {',
            f'      "remote": {go_quote(dep.source.remote)},',
            f'      "subdir": {go_quote(dep.source.subdir.lstrip("/"))}',
            "    }",
        ]
    else:
        lines += ['    "local": {', f'      "directory": {go_quote(dep.source.directory)}', "    }"]
    lines.append("  },")
    fields = [f'  "version": {go_quote(dep.version)}']
    if dep.sum:
        fields.append(f'  "sum": {go_quote(dep.sum)}')
    if dep.single:
        fields.append('  "single": true')
    if dep.legacy_override:
        fields.append(f'  "name": {go_quote(dep.legacy_override)}')
    lines.append(",\n".join(fields))
    lines.append("}")
    return "\n".join(lines).split("\n")


_GO_SHORT = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_GO_UNICODE = {"<", ">", "&", "\u2028", "\u2029"}


def go_quote(text: str) -> str:
    """A JSON string literal exactly as Go's encoding/json writes it (HTML-safe)."""
    out = ['"']
    for char in text:
        code = ord(char)
        if char in _GO_SHORT:
            out.append(_GO_SHORT[char])
        elif code < 0x20 or char in _GO_UNICODE:
            out.append(f"\\u{code:04x}")
        elif 0xD800 <= code <= 0xDFFF:  # a lone surrogate: Go writes the replacement char
            out.append("\ufffd")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def init_content() -> bytes:
    """What `jb init` writes."""
    return dump(JsonnetFile())
