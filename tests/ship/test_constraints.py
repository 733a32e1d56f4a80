"""constraints.txt pins exactly the runtime dependency closure that pyproject.toml declares."""

from __future__ import annotations

import tomllib
from importlib import metadata

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from tests.ship.paths import CONSTRAINTS, ROOT

PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
RUNTIME = [Requirement(r) for r in PROJECT["dependencies"]]
RUNTIME += [Requirement(r) for r in PROJECT["optional-dependencies"]["openai"]]
DEV = [Requirement(r) for r in PROJECT["optional-dependencies"]["dev"]]


def pins() -> dict[str, Version]:
    out: dict[str, Version] = {}
    for raw in CONSTRAINTS.read_text().splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        name, sep, version = line.partition("==")
        assert sep, f"constraints.txt: {line!r} is not an exact pin"
        out[canonicalize_name(name)] = Version(version)
    return out


PINS = pins()
REFRESH = "refresh constraints.txt as its header says"


def test_every_runtime_dependency_is_pinned_within_its_range() -> None:
    for req in RUNTIME:
        name = canonicalize_name(req.name)
        assert name in PINS, f"{req.name} is not in constraints.txt: {REFRESH}"
        assert req.specifier.contains(PINS[name], prereleases=True), (
            f"constraints.txt pins {req.name}=={PINS[name]}, outside {req.specifier}: {REFRESH}"
        )


def test_the_pins_are_closed_under_dependencies() -> None:
    # Each pinned package's own requirements (as installed in this venv, which `make test` builds
    # from the same pyproject.toml) must be pinned too, or the image would resolve them freely.
    env = {k: str(v) for k, v in default_environment().items()} | {"extra": ""}
    missing = set()
    for name in PINS:
        for raw in metadata.requires(name) or []:
            req = Requirement(raw)
            if req.marker is None or req.marker.evaluate(env):
                dep = canonicalize_name(req.name)
                if dep not in PINS:
                    missing.add(f"{dep} (needed by {name})")
    assert not missing, f"not pinned: {sorted(missing)}: {REFRESH}"


def _runtime_closure() -> set[str]:
    """Every package the runtime requirements pull in, as installed in this venv."""
    env = {k: str(v) for k, v in default_environment().items()} | {"extra": ""}
    seen: set[str] = set()
    todo = [canonicalize_name(r.name) for r in RUNTIME]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for raw in metadata.requires(name) or []:
            req = Requirement(raw)
            if req.marker is None or req.marker.evaluate(env):
                todo.append(canonicalize_name(req.name))
    return seen


def test_no_development_tool_is_in_the_image() -> None:
    # A dev tool that a runtime package also needs (PyJWT for PyGithub, websockets for
    # google-genai) is rightly pinned; one that nothing at run time needs must not be.
    dev_only = {canonicalize_name(r.name) for r in DEV} - _runtime_closure()
    assert "pytest" in dev_only
    assert not dev_only & set(PINS)
    assert not {"pip", "setuptools", "tanka-bot"} & set(PINS)
