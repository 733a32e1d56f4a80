"""What a kustomization reads, checked before `kustomize build` runs: only the project's files.

kustomize takes a `resources` (or `bases`, `components`) entry that is no local file or directory
for a remote target and clones it with git, and loads any file named by an http(s) URL. A
repository could so have the bot fetch from anywhere its network reaches (a cloud metadata
address included) and show what came back in a diff, or read a repository outside the project
through a `file://` clone. tk runs kustomize as it is; the bot renders from the project alone.

`check_kustomization` follows the kustomization from the target directory through every
kustomization it names and refuses, naming the file and the entry:
- an entry that names a URL (`scheme://...`, or git's `user@host:path`);
- a resource, base or component that is not in the project (kustomize would fetch it);
- any path that leads outside the project directory, through `..` or a symlink;
- in a generator, transformer or validator config, written inline or in a file, and in
  `helmCharts`/`helmGlobals`: the same for each file or address it names, and a KRM function
  (tools.tanka.natives.kustomize_plugins says which fields).
Inline patches (text with a newline) are content, not paths: not checked.
`kustomize build` then runs with every git transport refused and HTTP sent to a closed port
(`NO_NETWORK_ENV`), in case a kustomize version reads a field this module does not know.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import Any

import yaml

from tools.tanka.confined import ConfinedPaths, Outside
from tools.tanka.errors import NativeError
from tools.tanka.natives import kustomize_plugins as plugins

# The names kustomize looks for in a directory, in its order.
KUSTOMIZATION_FILES = ("kustomization.yaml", "kustomization.yml", "Kustomization")
# Entries kustomize fetches when they are not local: they must exist in the project.
_TARGETS = ("resources", "bases", "components")
# Entries that are files (or directories holding a kustomization) read through kustomize's loader.
_FILES = ("crds", "configurations", "generators", "transformers", "validators",
          "patchesStrategicMerge")  # fmt: skip
_PATH_ITEMS = ("patches", "patchesJson6902", "replacements")  # lists of {path: ...}
_GENERATORS = ("configMapGenerator", "secretGenerator")  # {files: [...], envs: [...], env: ...}
_REMOTE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://|^[^/\s]+@[^/\s]+:")
# git refuses every transport (an unknown name is all that is allowed); Go's HTTP client and git
# send http(s) to a port nothing listens on.
NO_NETWORK_ENV = {
    "GIT_ALLOW_PROTOCOL": "none",
    "GIT_TERMINAL_PROMPT": "0",
    "HTTP_PROXY": "http://127.0.0.1:9",
    "HTTPS_PROXY": "http://127.0.0.1:9",
    "http_proxy": "http://127.0.0.1:9",
    "https_proxy": "http://127.0.0.1:9",
    "NO_PROXY": "",
    "no_proxy": "",
}


def check_kustomization(target: str, confine: str, fn: str) -> None:
    """Refuse (NativeError) a kustomization at directory `target` that reads anything but the
    files of the project directory `confine` (see the module)."""
    paths = ConfinedPaths(confine)
    pending = [_inside(paths, target, fn, f"kustomization directory {target!r}")]
    seen = set()
    while pending:
        real = pending.pop()
        if real in seen or not os.path.isdir(real):
            continue  # a file given as the target: kustomize says what is wrong with it
        seen.add(real)
        found = _kustomization_file(real)
        if found is None:
            continue  # kustomize says a directory has no kustomization
        # kustomize takes a kustomization's directory by its real path and joins entries to it,
        # so `..` climbs from where a symlink leads, not from the link: so does this check.
        directory = paths.root + real[len(paths.real_root) :]
        source = os.path.join(directory, os.path.basename(found))
        kustomization = _load(found, source, fn)
        for field, entry in _entries(kustomization):
            if "\n" in entry:
                continue  # inline content (an inline plugin config is checked below)
            where = f"{source}: {field} entry {entry!r}"
            resolved = _checked(paths, directory, entry, fn, where)
            if field in _TARGETS and not os.path.exists(resolved):
                raise NativeError(
                    f"{fn}: {where} is no file or directory of the project; kustomize would "
                    "fetch it as a remote target, which tanka-bot does not do"
                )
            if os.path.isdir(resolved):
                pending.append(resolved)
            elif field in plugins.FIELDS and os.path.isfile(resolved):
                shown = os.path.join(directory, entry)
                _check_configs(paths, directory, _configs_in(resolved, shown, fn), fn, shown)
        for field, configs in _inline_configs(kustomization, source, fn):
            _check_configs(paths, directory, configs, fn, f"{source}: inline {field} entry")


def _checked(paths: ConfinedPaths, directory: str, entry: str, fn: str, where: str) -> str:
    """The real path an entry of a kustomization in `directory` names; refused when it is an
    address or leads outside the project."""
    if _REMOTE.match(entry):
        raise NativeError(
            f"{fn}: {where} is remote; tanka-bot fetches nothing kustomize would "
            "download: vendor it into the repository and name its path"
        )
    return _inside(paths, os.path.normpath(os.path.join(directory, entry)), fn, where)


def _check_configs(
    paths: ConfinedPaths, directory: str, configs: list[Any], fn: str, where: str
) -> None:
    """Generator, transformer or validator configs: what they name must be the project's
    (relative to the kustomization's directory, as kustomize reads it), and none runs a
    program."""
    for config in configs:
        what = f"{where} ({plugins.describe(config)})"
        annotation = plugins.function(config)
        if annotation is not None:
            raise NativeError(
                f"{fn}: {what} is a KRM function ({annotation}); it would run a program or "
                "pull an image, which tanka-bot does not do"
            )
        for field, entry in plugins.named(config):
            _checked(paths, directory, entry, fn, f"{what}: {field} entry {entry!r}")


def _configs_in(path: str, shown: str, fn: str) -> list[Any]:
    try:
        with open(path, encoding="utf-8") as handle:
            return plugins.parse(handle.read())
    except (OSError, UnicodeDecodeError, plugins.BadConfig) as exc:
        raise NativeError(f"{fn}: {shown} cannot be read as YAML: {exc}") from None


def _inline_configs(
    kustomization: dict[str, Any], source: str, fn: str
) -> Iterator[tuple[str, list[Any]]]:
    """(field, configs) for each config written in the kustomization itself: inline plugin
    configs, `helmCharts` items and `helmGlobals`."""
    for field in plugins.FIELDS:
        for number, item in enumerate(_list(kustomization.get(field)), 1):
            try:
                configs = plugins.inline(item)
            except plugins.BadConfig as exc:
                raise NativeError(
                    f"{fn}: {source}: inline {field} entry {number} is not YAML: {exc}"
                ) from None
            if configs is not None:
                yield field, configs
    yield "helmCharts", [c for c in _list(kustomization.get("helmCharts")) if isinstance(c, dict)]
    globals_ = kustomization.get("helmGlobals")
    if isinstance(globals_, dict):
        yield "helmGlobals", [globals_]


def _inside(paths: ConfinedPaths, path: str, fn: str, what: str) -> str:
    found = paths.walk(path)
    if isinstance(found, Outside):
        raise NativeError(
            f"{fn}: {what} leads to {found.target}, outside the project directory "
            f"{paths.root}; refused"
        )
    return found.real


def _kustomization_file(directory: str) -> str | None:
    for name in KUSTOMIZATION_FILES:
        path = os.path.join(directory, name)
        if os.path.isfile(path):
            return path
    return None


def _load(path: str, shown: str, fn: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as handle:
            loaded = yaml.safe_load(handle)
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise NativeError(f"{fn}: {shown} cannot be read as YAML: {exc}") from None
    return loaded if isinstance(loaded, dict) else {}


def _entries(kustomization: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(field, path) for every path-like entry; text with a newline is inline content."""
    for field in _TARGETS + _FILES:
        for item in _list(kustomization.get(field)):
            if isinstance(item, str):
                yield field, item
    for field in _PATH_ITEMS:
        for item in _list(kustomization.get(field)):
            if isinstance(item, dict) and isinstance(item.get("path"), str):
                yield field, item["path"]
    for field in _GENERATORS:
        for item in _list(kustomization.get(field)):
            if not isinstance(item, dict):
                continue
            named = _list(item.get("files")) + _list(item.get("envs")) + [item.get("env")]
            for entry in named:
                if isinstance(entry, str) and entry:
                    yield field, entry.split("=", 1)[-1]  # `key=path` names the key
    openapi = kustomization.get("openapi")
    if isinstance(openapi, dict) and isinstance(openapi.get("path"), str):
        yield "openapi", openapi["path"]


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
