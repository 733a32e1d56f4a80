"""Hiding secrets in text: one marker (marker.py) for credentials in messages and logs
(credentials.py) and for Secret values wherever they turn up (mask.py)."""

from __future__ import annotations

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
