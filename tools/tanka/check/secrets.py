"""Keep a Secret's values out of finding messages.

Policies see the real object (a rule may check that a password is not empty, as conftest allows),
so a rule's message may quote a value, and so may a schema error about a mistyped field. Every
message about a Secret goes through `scrub`, which replaces each of the Secret's values, as
written and base64-decoded, by the marker redact.py uses everywhere else.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator, Mapping
from typing import Any

from tools.tanka.redact import REDACTED, SECRET_FIELDS, is_secret, scalar_texts

# Values this short could be replaced inside ordinary words ("on" in "container"), so they are
# only replaced where they stand alone.
_SHORT = 4


def secret_values(manifest: Mapping[str, Any]) -> set[str]:
    """The texts a Secret's `data` and `stringData` hold, decoded forms included."""
    if not is_secret(manifest):
        return set()
    found: set[str] = set()
    for field in SECRET_FIELDS:
        for value in scalar_texts(manifest.get(field)):
            found.add(value)
            found.update(_decoded(value))
    found.discard("")
    return found


def _decoded(value: str) -> Iterator[str]:
    try:
        raw = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return
    text = raw.decode("utf-8", errors="ignore").strip()
    if text:
        yield text


def scrub(message: str, manifest: Mapping[str, Any]) -> str:
    """`message` without any value of `manifest` (when it is a Secret); unchanged otherwise."""
    values = secret_values(manifest)
    if not values:
        return message
    # Longest first, so a value containing another is replaced whole.
    for value in sorted(values, key=len, reverse=True):
        if len(value) >= _SHORT:
            message = message.replace(value, REDACTED)
        else:
            message = re.sub(rf"(?<!\w){re.escape(value)}(?!\w)", REDACTED, message)
    return message
