"""A Tanka repository whose Secret values leak out of the Secret every way we know of.

tests/fixtures/tanka_secrets/repo holds a Secret (a `stringData` password, a `data` token and a
multi-line certificate), a lower-case `kind: secret` object, and a ConfigMap that copies all of
them, plain and base64-encoded; lib/creds.libsonnet holds the values in source. `make_secret_repo`
commits it; `change_password` then edits the working tree so that every diff shows the old and the
new password side by side, next to a non-secret change that must stay visible.
"""

from __future__ import annotations

import base64
import shutil
from pathlib import Path

from tests.scenarios.project import commit_all, git

FIXTURE = Path(__file__).parent / "fixtures" / "tanka_secrets" / "repo"
ENV = "environments/prod"
CREDS = "lib/creds.libsonnet"

PASSWORD = "dummy-db-password-7Hq2"
NEW_PASSWORD = "dummy-db-password-NEW-9Xw4"
TOKEN = "dummy-api-token-Zk81"
LOWER_KIND_VALUE = "dummy-lowercase-kind-Qp3"
CERT_LINES = (
    "MIIBdummyKeyMaterialLineOneForTestsOnly0000000000",
    "MIIBdummyKeyMaterialLineTwoForTestsOnly1111111111",
)
CERT = "\n".join(["-----BEGIN CERTIFICATE-----", *CERT_LINES, "-----END CERTIFICATE-----", ""])
VISIBLE, NEW_VISIBLE = "plain-config-value", "plain-config-value-2"

# Folded over two lines by YAML: found by its words rather than as a whole.
PASSPHRASE = "dummy horse battery staple dummy horse battery staple dummy horse battery staple Xq7"
PASSPHRASE_WORDS = "horse battery"

PLAIN_VALUES = (PASSWORD, NEW_PASSWORD, TOKEN, LOWER_KIND_VALUE, *CERT_LINES, PASSPHRASE_WORDS)


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def b64_forms(text: str) -> set[str]:
    """Standard and URL-safe base64, padded and not."""
    raw = text.encode()
    forms = {base64.b64encode(raw).decode(), base64.urlsafe_b64encode(raw).decode()}
    return forms | {f.rstrip("=") for f in forms}


# Every form in which a value could be read: plain, base64 (as in a Secret's data or a copy).
FORBIDDEN = (
    *PLAIN_VALUES,
    *sorted(f for v in (PASSWORD, NEW_PASSWORD, TOKEN, CERT, PASSPHRASE) for f in b64_forms(v)),
)


def leaks(text: str) -> list[str]:
    """The forbidden forms that `text` shows."""
    return [form for form in FORBIDDEN if form in text]


def make_secret_repo(root: Path) -> Path:
    """The fixture committed at `root` (created), on branch main."""
    shutil.copytree(FIXTURE, root)
    git(root, "init", "-q", "-b", "main", ".")
    commit_all(root, "a Secret and its leaks")
    return root


def change_password(root: Path) -> None:
    """Working-tree edits: a new password in the source, a new non-secret ConfigMap value."""
    _replace(root / CREDS, PASSWORD, NEW_PASSWORD)
    _replace(root / ENV / "main.jsonnet", f"'{VISIBLE}'", f"'{NEW_VISIBLE}'")


def _replace(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, (path, old)
    path.write_text(text.replace(old, new))


# Another environment, with no Secret, whose ConfigMap copies the Secret's password: plain,
# base64 and URL-safe base64 without padding. Shown alone, nothing in it says it is secret.
APP = "environments/app"
APP_MAIN = """local creds = import 'creds.libsonnet';
{
  config: {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'copy' },
    data: {
      copied: creds.password,
      copied_b64: std.base64(creds.password),
      copied_url: std.strReplace(std.strReplace(std.rstripChars(std.base64(creds.password), '='),
                                                '+', '-'), '/', '_'),
    },
  },
}
"""


def add_copying_env(root: Path) -> Path:
    """`root` (a made secret repo) with APP committed."""
    (root / APP).mkdir()
    (root / APP / "main.jsonnet").write_text(APP_MAIN)
    spec = (root / ENV / "spec.json").read_text().replace(ENV, APP).replace('"prod"', '"app"')
    (root / APP / "spec.json").write_text(spec)
    commit_all(root, "an environment copying the password")
    return root


def make_secret_repo_with_copy(root: Path) -> Path:
    return add_copying_env(make_secret_repo(root))
