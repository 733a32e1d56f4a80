"""Keep Kubernetes Secret values out of everything we show: tool results, diffs, Slack.

This is masking by kind; `learn_secret_values` feeds a `SecretMask` (tools/redaction/mask.py) with
the same values, which hides them by value wherever else they turn up (a copy in a ConfigMap, a
source file in a git diff).

A rendered `Secret` keeps its keys (a reviewer needs to see which keys exist) but every value under
`data` and `stringData` becomes a marker. When two revisions of a Secret are compared, a value that
differs is marked differently on the new side, so the diff says "this value changed" without
showing either value. Manifests are copied, never modified in place: the caller's render may be
cached and shared.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from tools.redaction.marker import REDACTED

if TYPE_CHECKING:
    from tools.redaction.mask import SecretMask

__all__ = [
    "REDACTED",
    "REDACTED_CHANGED",
    "is_secret",
    "learn_secret_values",
    "redact_against",
    "redact_all",
    "redact_deep",
    "redact_manifest",
]
REDACTED_CHANGED = "<redacted, value changed>"
SECRET_FIELDS = ("data", "stringData")


def is_secret(manifest: Mapping[str, Any]) -> bool:
    """Kind Secret in any letter case, whatever the apiVersion: a CRD named Secret, or a `secret`
    the API server would refuse, is redacted too. Someone meant it as a Secret, and a false
    positive only hides a value while a false negative leaks one."""
    kind = manifest.get("kind")
    return isinstance(kind, str) and kind.lower() == "secret"


def redact_manifest(manifest: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of `manifest` with its Secret values replaced by REDACTED (others copied as is)."""
    return redact_against(manifest, None)


def redact_against(manifest: Mapping[str, Any], base: Mapping[str, Any] | None) -> dict[str, Any]:
    """Redact `manifest`; values that differ from the same key in `base` get REDACTED_CHANGED.

    `base` is the other revision of the same resource (None when there is none), so a diff of the
    two redacted copies shows exactly which keys were added, removed or changed.
    """
    out = dict(manifest)
    if not is_secret(manifest):
        return out
    for field in SECRET_FIELDS:
        if field not in manifest:
            continue
        before = base.get(field) if base is not None and is_secret(base) else None
        out[field] = _redact_values(manifest[field], before)
    return out


def _redact_values(values: Any, before: Any) -> Any:
    if not isinstance(values, Mapping):
        # Not a map (an invalid Secret): nothing of it may be shown either.
        if values is None:
            return None
        return REDACTED if before is None or before == values else REDACTED_CHANGED
    old = before if isinstance(before, Mapping) else {}
    return {
        key: REDACTED if key not in old or old[key] == value else REDACTED_CHANGED
        for key, value in values.items()
    }


def redact_all(manifests: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    return [redact_manifest(m) for m in manifests]


def redact_deep(value: Any, *, inside_secret: bool = False) -> Any:
    """A copy of any evaluated value, safe to print in an error: every Secret in it is redacted,
    and with `inside_secret` (the value is a part of a Secret) every scalar in it is hidden.

    Error texts that show an object (tk's "Please check below object", an invalid object's body)
    must not carry a Secret's values into a tool result or Slack.
    """
    if isinstance(value, Mapping):
        if not inside_secret and is_secret(value):
            return redact_manifest(value)
        return {key: redact_deep(item, inside_secret=inside_secret) for key, item in value.items()}
    if isinstance(value, list):
        return [redact_deep(item, inside_secret=inside_secret) for item in value]
    return REDACTED if inside_secret and value is not None else value


def learn_secret_values(manifests: Iterable[Mapping[str, Any]], mask: SecretMask) -> None:
    """Teach `mask` every value of every Secret in `manifests`: `data` values are base64 (the mask
    learns their decoded text too), `stringData` values are plain."""
    plain: list[str] = []
    for manifest in manifests:
        if not is_secret(manifest):
            continue
        for value in scalar_texts(manifest.get("data")):
            mask.add_encoded(value)
        plain.extend(scalar_texts(manifest.get("stringData")))
    mask.add_all(plain)


def scalar_texts(value: Any) -> Iterable[str]:
    """Every scalar under `value` as text: a valid Secret has a map of strings, but an invalid
    one's numbers, lists or nested maps are shown just the same and must be hidden too."""
    if isinstance(value, Mapping):
        for item in value.values():
            yield from scalar_texts(item)
    elif isinstance(value, list):
        for item in value:
            yield from scalar_texts(item)
    elif isinstance(value, str):
        yield value
    elif value is not None and not isinstance(value, bool):
        yield str(value)
