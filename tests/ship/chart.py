"""Render the Helm chart with Helm's own engine (helm-python-sdk embeds Helm's Go library, so no
helm binary and no network are involved) and parse what it renders."""

from __future__ import annotations

import base64
import functools
from typing import Any

import helm_python as helm
import yaml

from tests.ship.paths import CHART

RELEASE = "ops"
NAMESPACE = "chatops"
Obj = dict[str, Any]


@functools.cache
def chart() -> helm.Chart:
    helm.disable_logging()
    return helm.Chart.load(CHART)


def render_files(values: dict[str, Any] | None = None) -> dict[str, str]:
    return chart().render(values or {}, name=RELEASE, namespace=NAMESPACE, is_install=True)


def render(values: dict[str, Any] | None = None) -> list[Obj]:
    objects: list[Obj] = []
    for path, text in sorted(render_files(values).items()):
        if not path.endswith(".yaml"):
            continue
        objects += [doc for doc in yaml.safe_load_all(text) if doc]
    return objects


def one(objects: list[Obj], kind: str, name: str | None = None) -> Obj:
    found = [
        o for o in objects if o["kind"] == kind and (name is None or o["metadata"]["name"] == name)
    ]
    assert len(found) == 1, f"{len(found)} {kind} {name or ''}"
    return found[0]


def kinds(objects: list[Obj]) -> list[str]:
    return sorted(o["kind"] for o in objects)


def bot(objects: list[Obj]) -> Obj:
    return one(objects, "Deployment", f"{RELEASE}-tanka-bot")


def container(deployment: Obj) -> Obj:
    containers: list[Obj] = deployment["spec"]["template"]["spec"]["containers"]
    assert len(containers) == 1
    return containers[0]


def secret_data(secret: Obj) -> dict[str, str]:
    return {k: base64.b64decode(v).decode() for k, v in (secret.get("data") or {}).items()}
