"""Checks on rendered manifests: strict Kubernetes schemas and the repository's Rego policies.

A library with no agent or Slack knowledge; the CLI (`tanka-bot tk check`), the agent tool
(`tanka_check`) and proposals call `check_environments` and show its CheckReport.
"""

from tools.tanka.check.errors import CheckSetupError, PolicyError, SchemaSettingError
from tools.tanka.check.findings import Checker, Finding, Level, ObjectRef
from tools.tanka.check.report import CheckReport, EnvResult
from tools.tanka.check.run import CheckOptions, check_environments, check_manifests

__all__ = [
    "CheckOptions",
    "CheckReport",
    "CheckSetupError",
    "Checker",
    "EnvResult",
    "Finding",
    "Level",
    "ObjectRef",
    "PolicyError",
    "SchemaSettingError",
    "check_environments",
    "check_manifests",
]
