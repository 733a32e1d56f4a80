"""What a kustomize generator, transformer or validator config names: files, and addresses.

A kustomization's `generators:`, `transformers:` and `validators:` entries are files (or
directories holding a kustomization), or the configs themselves written inline: a YAML text,
or an object. A config is one of kustomize's builtin plugins, which name what they read in
fields of their own - ConfigMapGenerator's and SecretGenerator's `files`, `envs` and `env`, the
patch transformers' `path` and `paths`, ReplacementTransformer's `replacements[].path`,
HelmChartInflationGenerator's `chartHome`, `valuesFile`, `additionalValuesFiles` and `repo`
(where the chart is downloaded from) - or a KRM function (a `.../function` annotation), which
runs a program or pulls an image. A kustomization's own `helmCharts` items and `helmGlobals`
take the Helm generator's fields too.

kustomize resolves a config's paths from the kustomization's directory, wherever the config
itself is written.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import yaml

from tools.errors import EngineError

FIELDS = ("generators", "transformers", "validators")
_PATH = ("path", "env", "chartHome", "valuesFile", "repo")
_PATH_LISTS = ("paths", "files", "envs", "additionalValuesFiles")
_FUNCTION_ANNOTATIONS = ("config.kubernetes.io/function", "config.k8s.io/function")


class BadConfig(EngineError, ValueError):
    """An inline config that is not YAML."""


def inline(entry: Any) -> list[Any] | None:
    """The configs an entry writes inline, or None when the entry is a path."""
    if isinstance(entry, dict):
        return [entry]
    if isinstance(entry, str) and "\n" in entry:
        return parse(entry)
    return None


def parse(text: str) -> list[Any]:
    """The documents of a config file or inline text (kustomize takes several in one)."""
    try:
        return [doc for doc in yaml.safe_load_all(text) if doc is not None]
    except yaml.YAMLError as exc:
        raise BadConfig(str(exc)) from None


def describe(config: Any) -> str:
    """`Kind 'name'` of a config, for a message."""
    if not isinstance(config, dict):
        return "a config that is not an object"
    metadata = config.get("metadata")
    # A plugin's name is in its metadata; a `helmCharts` item names its chart at the top.
    name = metadata.get("name") if isinstance(metadata, dict) else config.get("name")
    kind = config.get("kind") or "config"
    return f"{kind} {name!r}" if name else str(kind)


def named(config: Any) -> Iterator[tuple[str, str]]:
    """(field, path or address) for every file or download a config names."""
    if not isinstance(config, dict):
        return
    for field in _PATH:
        value = config.get(field)
        if isinstance(value, str) and value:
            yield field, value
    for field in _PATH_LISTS:
        values = config.get(field)
        for value in values if isinstance(values, list) else []:
            if isinstance(value, str) and value:
                # A generator's `files` entry may be `key=path`: the key names the data key.
                yield field, value.split("=", 1)[-1] if field == "files" else value
    replacements = config.get("replacements")
    for item in replacements if isinstance(replacements, list) else []:
        if isinstance(item, dict) and isinstance(item.get("path"), str):
            yield "replacements", item["path"]


def function(config: Any) -> str | None:
    """The annotation that makes a config a KRM function, or None."""
    metadata = config.get("metadata") if isinstance(config, dict) else None
    annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
    if not isinstance(annotations, dict):
        return None
    return next((name for name in _FUNCTION_ANNOTATIONS if name in annotations), None)
