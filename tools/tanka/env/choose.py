"""Finding Environment objects in evaluated output and choosing one, with tk's error texts."""

from __future__ import annotations

import importlib
from typing import Any

from tools.tanka.errors import MultipleEnvsError, NoMatchingEnvError, TankaError


def extract_envs(data: Any) -> list[dict[str, Any]]:
    """The manifests of kind Environment (any case) in `data`, after extraction and unwrapping.

    Uses tools.tanka.manifests (tk's extraction, validation and List unwrapping) when
    present.
    """
    name = "tools.tanka.manifests"
    manifests = importlib.import_module(name) if _has_manifests() else None
    if manifests is not None:
        found: list[dict[str, Any]] = list(manifests.extract_manifests(data))
    else:
        found = _walk(data)
    return [m for m in found if str(m.get("kind", "")).lower() == "environment"]


def _has_manifests() -> bool:
    try:
        importlib.import_module("tools.tanka.manifests")
    except ImportError:
        return False
    return True


def _walk(value: Any) -> list[dict[str, Any]]:
    """Minimal extraction: objects with string apiVersion and kind, searched in sorted key order."""
    if value is None:
        return []
    if isinstance(value, dict):
        if isinstance(value.get("apiVersion"), str) and isinstance(value.get("kind"), str):
            return [value]
        out: list[dict[str, Any]] = []
        for key in sorted(value):
            if value[key] is not None:
                out.extend(_walk(value[key]))
        return out
    if isinstance(value, list):
        return [m for item in value for m in _walk(item)]
    raise TankaError(f"found invalid Kubernetes object: {value!r} is not an object")


def select_env(envs: list[dict[str, Any]], path: str, name: str) -> dict[str, Any]:
    """tk's InlineLoader choice: the only one, or the exact name among several."""
    if len(envs) > 1:
        names: list[str] = []
        for env in envs:
            env_name = str(env.get("metadata", {}).get("name", ""))
            if env_name == name:
                return env
            names.append(env_name)
        raise MultipleEnvsError(path, name, sorted(names))
    if not envs:
        raise NoMatchingEnvError(path)
    return envs[0]
