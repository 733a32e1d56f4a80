"""Hiding secrets in text: one marker (marker.py) for credentials in messages and logs
(credentials.py) and for Secret values wherever they turn up (mask.py).

The names below load their module on first use: the renderer behind `tanka-bot tk show` needs
only the marker, and importing any one module of a package runs this file first, so eager
imports here would load the credential patterns (RE2) and the mask on every start-up.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tools.redaction.credentials import has_url_userinfo, scrub_credentials
    from tools.redaction.marker import REDACTED
    from tools.redaction.mask import MIN_LINE_LENGTH, MIN_VALUE_LENGTH, SecretMask

__all__ = [
    "MIN_LINE_LENGTH",
    "MIN_VALUE_LENGTH",
    "REDACTED",
    "SecretMask",
    "has_url_userinfo",
    "scrub_credentials",
]
_MODULE_OF = {
    "MIN_LINE_LENGTH": "mask",
    "MIN_VALUE_LENGTH": "mask",
    "REDACTED": "marker",
    "SecretMask": "mask",
    "has_url_userinfo": "credentials",
    "scrub_credentials": "credentials",
}


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
