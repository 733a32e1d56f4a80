"""A Tanka repository whose Secret values hold every character an encoder escapes, and an
environment that carries them out of the Secret in every form Jsonnet can write.

lib/vault.libsonnet holds a password as a Jsonnet literal with escapes (`\\'`, `\\"`), a token
base64-encoded as the Secret's `data` holds it, and an API key read with `importstr` from
lib/api-key.txt. environments/prod renders them as a Secret. `LEAK_ENV` (written by the agent
in the tests) copies each into a ConfigMap as is, spelled out, reversed, upper-case, as
character codes, cut, base64-encoded and inside a JSON document, beside a value that is not
secret and must stay readable.

`forms` lists, with the standard library alone, every spelling in which a value could be read;
`shown_forms(text)` says which of them a text holds.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

from tests.scenarios.project import commit_all, git

PASSWORD = 'Xk9<q&Tz>it\'s: "r3al"-Pw#2026'
TOKEN = "tok-8Hq<&>Zr\"Lm'w31"
API_KEY = "apikey-Q7w&e<r>t\"y'u2"
VALUES = {"password": PASSWORD, "token": TOKEN, "key": API_KEY}
VISIBLE = "still-visible-7"

PROD = "environments/prod"
LEAK_ENV = "environments/leak"
VAULT = "lib/vault.libsonnet"
API_KEY_FILE = "lib/api-key.txt"


def _jsonnet_literal(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


VAULT_SOURCE = f"""// Dummy credentials for the masking tests, shaped like generated ones.
{{
  password: {_jsonnet_literal(PASSWORD)},
  tokenB64: '{base64.b64encode(TOKEN.encode()).decode()}',
  apiKey: importstr 'api-key.txt',
}}
"""

PROD_MAIN = """local v = import 'vault.libsonnet';
{
  secret: {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'creds' },
    stringData: { password: v.password, apiKey: v.apiKey },
    data: { token: v.tokenB64 },
  },
}
"""

LEAK_MAIN = """local v = import 'vault.libsonnet';
local forms(name, s) = {
  [name + '-plain']: s,
  [name + '-spelled']: std.join(' ', std.stringChars(s)),
  [name + '-reversed']: std.join('', std.reverse(std.stringChars(s))),
  [name + '-upper']: std.asciiUpper(s),
  [name + '-codes']: std.toString(std.encodeUTF8(s)),
  [name + '-piece']: std.substr(s, std.length(s) - 14, 14),
  [name + '-base64']: std.base64(s),
  [name + '-json']: std.manifestJsonEx({ value: s }, '  '),
};
{
  config: {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'leak' },
    data: forms('password', v.password) + forms('token', std.base64Decode(v.tokenB64))
          + forms('key', v.apiKey) + { visible: '%s' },
  },
}
"""


def spec(env: str, namespace: str) -> str:
    return json.dumps(
        {
            "apiVersion": "tanka.dev/v1alpha1",
            "kind": "Environment",
            "metadata": {"name": env},
            "spec": {"namespace": namespace},
        },
        indent=2,
    )


def make_vault_repo(root: Path) -> Path:
    """The repository committed at `root` (created), on branch main."""
    (root / "lib").mkdir(parents=True)
    (root / PROD).mkdir(parents=True)
    (root / "jsonnetfile.json").write_text("{}\n")
    (root / VAULT).write_text(VAULT_SOURCE)
    (root / API_KEY_FILE).write_text(API_KEY)
    (root / PROD / "main.jsonnet").write_text(PROD_MAIN)
    (root / PROD / "spec.json").write_text(spec(PROD, "prod"))
    git(root, "init", "-q", "-b", "main", ".")
    commit_all(root, "a Secret whose values an encoder escapes")
    return root


def leak_files() -> dict[str, str]:
    """What the agent writes: the environment copying the values out of the Secret."""
    return {
        f"{LEAK_ENV}/main.jsonnet": LEAK_MAIN % VISIBLE,
        f"{LEAK_ENV}/spec.json": spec(LEAK_ENV, "leak"),
    }


def forms(value: str) -> set[str]:
    """Every spelling of `value` this test knows to look for, made with the standard library."""
    as_json = json.dumps(value)[1:-1]
    go = as_json.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    spelled = " ".join(value)
    reversed_ = value[::-1]
    written = {
        value,
        as_json,
        go,
        value.replace("'", "''"),
        spelled,
        spelled.replace("'", "''"),
        json.dumps(spelled)[1:-1],
        reversed_,
        reversed_.replace("'", "''"),
        json.dumps(reversed_)[1:-1],
        value.upper(),
        value.upper().replace("'", "''"),
        json.dumps(value.upper())[1:-1],
        str(list(value.encode())),
        value[-14:],  # eight letters and digits at least, in each value
        value[-14:].replace("'", "''"),
        json.dumps(value[-14:])[1:-1],
        base64.b64encode(value.encode()).decode(),
        base64.b64encode(value.encode()).decode().rstrip("="),
    }
    written |= {w.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;") for w in written}
    return written


ALL_FORMS = {f"{name}: {form}": form for name, v in VALUES.items() for form in forms(v)}


def shown_forms(text: str) -> list[str]:
    """Which value's which form `text` holds (named by value), none if it holds none."""
    return sorted(name for name, form in ALL_FORMS.items() if form in text)
