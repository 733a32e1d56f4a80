"""Failures that stop a check from being trusted: a broken policy or an unusable setting.

Both end `tanka-bot tk check` with exit 2, so CI can tell "the check itself is broken" from "the
manifests are wrong" (exit 1). Messages are one line naming the file or setting and the fix.
"""

from __future__ import annotations

from tools.tanka.errors import TankaError


class CheckSetupError(TankaError):
    """A setting or a repository file the check depends on is unusable."""


class SchemaSettingError(CheckSetupError):
    """TANKA_BOT_KUBERNETES_VERSION names no bundled version, or a custom schema is unreadable."""


class PolicyError(CheckSetupError):
    """A Rego policy does not parse, does not compile, or fails while it is evaluated."""
