"""A small Tanka project in a temporary git repository, as the scenarios' model works on it.

`make_project(root)` writes the files below, commits them with a fixed identity and date, and
returns the checkout. `with_jsonnetfile=False` leaves jsonnetfile.json out (tkrc.yaml alone marks
the project root), so a scenario can let the model run jb_init.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path

APP_LIB = """\
{
  deployment(name, replicas=1):: {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: name },
    spec: { replicas: replicas },
  },
}
"""

DEV_MAIN = """\
local app = import 'app.libsonnet';

{
  grafana: app.deployment('grafana', replicas=1),
}
"""

PROD_MAIN = """\
local app = import 'app.libsonnet';

{
  grafana: app.deployment('grafana', replicas=2),
}
"""

OBSOLETE_LIB = "// no longer imported by any environment\n{}\n"


def spec_json(env: str, namespace: str) -> str:
    return f"""\
{{
  "apiVersion": "tanka.dev/v1alpha1",
  "kind": "Environment",
  "metadata": {{ "name": "environments/{env}" }},
  "spec": {{ "apiServer": "https://127.0.0.1:6443", "namespace": "{namespace}" }}
}}
"""


FILES: Mapping[str, str] = {
    "tkrc.yaml": "# marks the root of the Tanka project\n",
    "lib/app.libsonnet": APP_LIB,
    "lib/obsolete.libsonnet": OBSOLETE_LIB,
    "environments/dev/main.jsonnet": DEV_MAIN,
    "environments/dev/spec.json": spec_json("dev", "dev"),
    "environments/prod/main.jsonnet": PROD_MAIN,
    "environments/prod/spec.json": spec_json("prod", "prod"),
}
JSONNETFILE = '{\n  "version": 1,\n  "dependencies": [],\n  "legacyImports": true\n}\n'

# Fixed identity and dates, and no user or system git config: the same commits on every run.
GIT_ENV = {
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "Scenario",
    "GIT_AUTHOR_EMAIL": "scenario@example.com",
    "GIT_COMMITTER_NAME": "Scenario",
    "GIT_COMMITTER_EMAIL": "scenario@example.com",
    "GIT_AUTHOR_DATE": "2024-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2024-01-01T00:00:00Z",
    "PATH": os.environ.get("PATH", os.defpath),
}


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=GIT_ENV, capture_output=True, text=True, check=True, timeout=30
    )
    return done.stdout


def write_files(root: Path, files: Mapping[str, str]) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)


def make_project(root: Path, *, with_jsonnetfile: bool = True) -> Path:
    """A committed Tanka project at `root` (created), on branch main."""
    root.mkdir(parents=True)
    files = dict(FILES)
    if with_jsonnetfile:
        files["jsonnetfile.json"] = JSONNETFILE
    write_files(root, files)
    git(root, "init", "-q", "-b", "main", ".")
    git(root, "add", "--all", ".")
    git(root, "commit", "-q", "-m", "initial Tanka project")
    return root


def commit_all(root: Path, message: str) -> None:
    git(root, "add", "--all", ".")
    git(root, "commit", "-q", "-m", message)


def replicas_policy(rule: str) -> str:
    """A Rego policy whose `rule` denies a Deployment of more than 5 replicas."""
    return f"""\
package main

import rego.v1

{rule} contains msg if {{
  input.kind == "Deployment"
  input.spec.replicas > 5
  msg := sprintf("%s: more than 5 replicas needs a capacity review", [input.metadata.name])
}}
"""


def make_project_with_policy(root: Path, rule: str = "deny") -> Path:
    """make_project, plus policy/replicas.rego (replicas_policy(rule)) committed."""
    make_project(root)
    (root / "policy").mkdir()
    (root / "policy" / "replicas.rego").write_text(replicas_policy(rule))
    commit_all(root, "a replicas policy")
    return root
