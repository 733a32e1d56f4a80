"""Scoring a checkout against a task's `expect`: the first check that does not hold, and why.

Environments are rendered by the in-process engine exactly as `tanka-bot tk show` renders them
(tools.tanka.pipeline.render.render_path, imports confined to the repository as bot.tk.cli does). A
check that cannot be evaluated (the environment does not render, the object is missing) fails with
that reason. The base side of `unchanged` is rendered from a pristine checkout of the same base
commit, once per suite (BaseRenders), never from the run's own checkout.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.errors import UserError
from bot.eval.tasks import (
    AnswerMatches,
    Check,
    EnvCheck,
    FilesUnchanged,
    NoChanges,
    Unchanged,
)
from bot.tk.common import one_line
from tools.errors import ToolError
from tools.sandbox import glob_match
from tools.tanka.diff.resources import index_resources
from tools.tanka.env.loader import EvalSettings
from tools.tanka.errors import TankaError
from tools.tanka.pipeline.render import render_path

Manifests = tuple[Mapping[str, Any], ...]
_MISSING = object()


class RenderFailed(UserError):
    """An environment that does not render; the message is the engine's, on one line."""


def render(root: Path, env: str) -> Manifests:
    """The processed manifests of the environment at `env` in the checkout `root`."""
    try:
        rendered = render_path(root / env, settings=EvalSettings(confine=root))
    except (TankaError, ToolError, OSError) as exc:
        raise RenderFailed(one_line(str(exc)).replace(f"{root}/", "")) from None
    return rendered.manifests


@dataclass
class BaseRenders:
    """Renders of pristine base checkouts, by (checkout, environment); shared by all runs."""

    _done: dict[tuple[Path, str], Manifests | RenderFailed] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def get(self, base_root: Path, env: str) -> Manifests:
        key = (base_root, env)
        with self._lock:
            found = self._done.get(key)
        if found is None:
            try:
                found = render(base_root, env)
            except RenderFailed as exc:
                found = exc
            with self._lock:
                self._done[key] = found
        if isinstance(found, RenderFailed):
            raise found
        return found


@dataclass(frozen=True, slots=True)
class Workspace:
    """What the checks look at: the run's checkout, and where its base can be rendered."""

    root: Path
    base_root: Path  # a pristine checkout of the base commit, never edited
    changed_files: Sequence[str]  # paths differing from the base commit (see bot.eval.repos)
    base_renders: BaseRenders


@dataclass(frozen=True, slots=True)
class Verdict:
    passed: bool
    failed_check: int | None = None  # index in `expect` of the first check that failed
    reason: str | None = None  # why it failed


def evaluate(checks: Sequence[Check], ws: Workspace, answer: str) -> Verdict:
    """Run the checks in order; the first that fails decides the verdict."""
    renders: dict[str, Manifests | RenderFailed] = {}

    def current(env: str) -> Manifests:
        if env not in renders:
            try:
                renders[env] = render(ws.root, env)
            except RenderFailed as exc:
                renders[env] = exc
        found = renders[env]
        if isinstance(found, RenderFailed):
            raise found
        return found

    for index, check in enumerate(checks):
        reason = _failure(check, ws, answer, current)
        if reason is not None:
            return Verdict(False, index, reason)
    return Verdict(True)


def _failure(check: Check, ws: Workspace, answer: str, current: Any) -> str | None:
    if isinstance(check, EnvCheck):
        return env_failure(check, ws.root, current)
    if isinstance(check, Unchanged):
        return _unchanged_failure(check, ws, current)
    if isinstance(check, FilesUnchanged):
        hits = [f for f in ws.changed_files if any(glob_match(g, f) for g in check.globs)]
        return f"changed: {', '.join(hits)}" if hits else None
    if isinstance(check, NoChanges):
        changed = ws.changed_files
        return f"the checkout changed: {', '.join(changed)}" if changed else None
    if isinstance(check, AnswerMatches):
        if check.pattern.search(answer):
            return None
        shown = " ".join(answer.split())
        shown = shown if len(shown) <= 120 else shown[:117] + "..."
        return f"the answer does not match {check.pattern.pattern!r}: {shown!r}"
    raise TypeError(f"unknown check {check!r}")


def env_failure(check: EnvCheck, root: Path, current: Any) -> str | None:  # noqa: PLR0911 - one early return per rule reads best
    """Why `check` does not hold in the checkout at `root`, or None."""
    if check.kind is None:  # the environment itself must be gone
        folder = root / check.env
        exists = folder.is_file() or (folder / "main.jsonnet").is_file()
        return f"{check.env} still exists" if exists else None
    try:
        manifests: Manifests = current(check.env)
    except RenderFailed as exc:
        return f"{check.env} does not render: {exc}"
    found = [m for m in manifests if m.get("kind") == check.kind and _name(m) == check.name]
    if len(found) > 1:
        return f"{check.env}: {len(found)} objects are {check.kind}/{check.name}; expected one"
    value: Any = _MISSING if not found else _walk(found[0], check.path)
    if check.absent:
        return None if value is _MISSING else f"{check.describe()} is present: {_shown(value)}"
    if value is _MISSING:
        if not found:
            return f"{check.env}: no {check.kind}/{check.name} in the rendered output"
        return f"{check.describe()} is missing"
    return _value_failure(check, value)


def _value_failure(check: EnvCheck, value: Any) -> str | None:
    what = check.describe()
    if check.matches is not None:
        if check.matches.search(as_string(value)):
            return None
        return f"{what} is {_shown(value)}, which does not match {check.matches.pattern!r}"
    if same(value, check.equals):
        return None
    return f"{what} is {_shown(value)}, expected {_shown(check.equals)}"


def _name(manifest: Mapping[str, Any]) -> Any:
    meta = manifest.get("metadata")
    return meta.get("name") if isinstance(meta, Mapping) else None


def _walk(value: Any, path: Sequence[str]) -> Any:
    for part in path:
        if isinstance(value, Mapping):
            if part not in value:
                return _MISSING
            value = value[part]
        elif isinstance(value, list) and re.fullmatch(r"\d+", part):
            if int(part) >= len(value):
                return _MISSING
            value = value[int(part)]
        else:
            return _MISSING
    return value


def same(actual: Any, expected: Any) -> bool:
    """Equality as YAML means it: 5 == 5.0, but true is not 1 and "5" is not 5."""
    if isinstance(actual, bool) or isinstance(expected, bool):
        return type(actual) is type(expected) and actual == expected
    if isinstance(actual, int | float) and isinstance(expected, int | float):
        return actual == expected
    if isinstance(actual, Mapping) and isinstance(expected, Mapping):
        return actual.keys() == expected.keys() and all(
            same(actual[k], expected[k]) for k in actual
        )
    if isinstance(actual, list) and isinstance(expected, list):
        return len(actual) == len(expected) and all(map(same, actual, expected))
    return type(actual) is type(expected) and bool(actual == expected)


def as_string(value: Any) -> str:
    """A value as `matches` sees it: strings as they are, anything else as compact JSON, numbers
    as `tk show` prints them (Jsonnet's 4.0 is 4)."""
    if isinstance(value, str):
        return value
    return json.dumps(_plain(value), sort_keys=True, separators=(",", ":"))


def _plain(value: Any) -> Any:
    """Whole floats as ints, all the way down: Jsonnet numbers are doubles."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _shown(value: Any) -> str:
    text = repr(value) if isinstance(value, str) else json.dumps(_plain(value), sort_keys=True)
    return text if len(text) <= 120 else text[:117] + "..."


def _unchanged_failure(check: Unchanged, ws: Workspace, current: Any) -> str | None:
    for env in check.envs:
        try:
            before = ws.base_renders.get(ws.base_root, env)
        except RenderFailed as exc:
            return f"{env} does not render at the base commit: {exc}"
        try:
            after: Manifests = current(env)
        except RenderFailed as exc:
            return f"{env} does not render any more: {exc}"
        if list(before) != list(after):
            old, new = index_resources(before), index_resources(after)
            keys = sorted(k for k in old.keys() | new.keys() if old.get(k) != new.get(k))
            names = ", ".join(f"{k.kind}/{k.name}" for k in keys) or "the order of objects"
            return f"{env} changed: {names}"
    return None
