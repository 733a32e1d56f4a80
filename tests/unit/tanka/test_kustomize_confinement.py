"""kustomizeBuild renders only what the project holds: no remote target, no URL, no path out.

kustomize itself is a stand-in script here (TANKA_KUSTOMIZE_PATH): it records that it ran and
the network settings it got, and prints a ConfigMap. A kustomization that would make kustomize
fetch something (a git remote, an http URL, a file:// clone of a repository elsewhere) or read a
file outside the project is refused before kustomize runs, naming the file and the entry;
kustomizations that stay inside, nested bases and components included, still build.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tools.tanka.errors import NativeError
from tools.tanka.natives.exec import kustomize_build

FAKE_KUSTOMIZE = """#!/bin/sh
{
  echo "ran $*"
  echo "GIT_ALLOW_PROTOCOL=$GIT_ALLOW_PROTOCOL HTTPS_PROXY=$HTTPS_PROXY https_proxy=$https_proxy"
} >> "$(dirname "$0")/kustomize.log"
cat <<'YAML'
apiVersion: v1
kind: ConfigMap
metadata:
  name: built
data:
  from: kustomize
YAML
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """tmp/project with environments/default/main.jsonnet and kustomize/ (its kustomization is
    written by each test), tmp/outside/secret.yaml beside it, and the stand-in kustomize."""
    root = tmp_path / "project"
    (root / "environments" / "default").mkdir(parents=True)
    (root / "environments" / "default" / "main.jsonnet").write_text("{}")
    (root / "jsonnetfile.json").write_text("{}")
    (root / "kustomize" / "base").mkdir(parents=True)
    (root / "kustomize" / "base" / "cm.yaml").write_text("kind: ConfigMap\n")
    (root / "kustomize" / "base" / "kustomization.yaml").write_text("resources: [cm.yaml]\n")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.yaml").write_text("outside the project\n")
    binary = tmp_path / "bin" / "kustomize"
    binary.parent.mkdir()
    binary.write_text(FAKE_KUSTOMIZE)
    binary.chmod(binary.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("TANKA_KUSTOMIZE_PATH", str(binary))
    return root


def kustomization(project: Path, text: str) -> None:
    (project / "kustomize" / "kustomization.yaml").write_text(text)


def build(project: Path) -> dict[str, object]:
    opts = json.dumps({"calledFrom": str(project / "environments" / "default" / "main.jsonnet")})
    return kustomize_build("../../kustomize", opts, confine=str(project))


def refusal(project: Path) -> str:
    with pytest.raises(NativeError) as caught:
        build(project)
    assert not ran(project), "kustomize ran for a refused kustomization"
    return str(caught.value)


def ran(project: Path) -> list[str]:
    log = project.parent / "bin" / "kustomize.log"
    return log.read_text().splitlines() if log.exists() else []


@pytest.mark.parametrize(
    "entry",
    [
        "https://raw.githubusercontent.com/acme/deploy/main/cm.yaml",
        "http://169.254.169.254/latest/meta-data/",
        "github.com/acme/deploy//base?ref=v1.2.0",
        "git@github.com:acme/deploy.git//base",
        "ssh://git@github.com/acme/deploy//base",
        "file:///srv/other-repository//base",
    ],
)
def test_a_remote_resource_is_refused_before_kustomize_runs(project: Path, entry: str) -> None:
    kustomization(project, f"resources:\n- base\n- {entry}\n")
    message = refusal(project)
    assert message.startswith("kustomizeBuild: ")
    assert "kustomize/kustomization.yaml: resources entry" in message
    assert repr(entry) in message


def test_a_remote_target_deep_in_a_base_is_refused_naming_its_file(project: Path) -> None:
    kustomization(project, "resources: [base]\n")
    (project / "kustomize" / "base" / "kustomization.yaml").write_text(
        "resources: [cm.yaml]\ncomponents: [github.com/acme/components//probes]\n"
    )
    message = refusal(project)
    assert "kustomize/base/kustomization.yaml: components entry" in message
    assert "github.com/acme/components//probes" in message


@pytest.mark.parametrize(
    "text",
    [
        "resources: [../../outside/secret.yaml]\n",
        "configMapGenerator:\n- name: leak\n  files: [key=../../outside/secret.yaml]\n",
        "patches:\n- path: ../../outside/secret.yaml\n",
        "patches:\n- path: https://example.com/patch.yaml\n",
        "secretGenerator:\n- name: leak\n  envs: [linked/secret.yaml]\n",
    ],
)
def test_a_path_out_of_the_project_is_refused(project: Path, text: str) -> None:
    (project / "kustomize" / "linked").symlink_to(project.parent / "outside")
    kustomization(project, text)
    message = refusal(project)
    assert "outside the project directory" in message or "is remote" in message


def test_a_symlinked_base_out_of_the_project_is_refused(project: Path) -> None:
    (project / "kustomize" / "elsewhere").symlink_to(project.parent / "outside")
    kustomization(project, "resources: [elsewhere]\n")
    assert "leads to" in refusal(project)


def test_a_local_resource_that_is_missing_is_refused_as_a_would_be_download(
    project: Path,
) -> None:
    kustomization(project, "resources: [base, overlays/missing]\n")
    message = refusal(project)
    assert "'overlays/missing' is no file or directory of the project" in message


def test_a_kustomization_inside_the_project_builds_without_network(project: Path) -> None:
    (project / "kustomize" / "extra.env").write_text("A=1\n")
    (project / "shared").mkdir()
    (project / "shared" / "cm.yaml").write_text("kind: ConfigMap\n")
    (project / "kustomize" / "inside").symlink_to("../shared")
    kustomization(project, """\
resources: [base, inside/cm.yaml]
configMapGenerator:
- name: settings
  envs: [extra.env]
  files: [renamed=inside/cm.yaml]
patches:
- patch: |-
    - op: add
      path: /metadata/labels
      value: {}
  target: {kind: ConfigMap}
patchesStrategicMerge:
- |-
  apiVersion: v1
  kind: ConfigMap
  metadata: {name: x}
""")  # fmt: skip
    assert build(project) == {
        "config_map_built": {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "built"},
            "data": {"from": "kustomize"},
        }
    }
    (started, network) = ran(project)
    assert started == f"ran build {project / 'kustomize'}"
    assert network == (
        "GIT_ALLOW_PROTOCOL=none HTTPS_PROXY=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9"
    )


def test_a_kustomization_cycle_is_walked_once(project: Path) -> None:
    kustomization(project, "resources: [base]\n")
    (project / "kustomize" / "base" / "kustomization.yaml").write_text("resources: [cm.yaml, ..]\n")
    assert "config_map_built" in build(project)


TANKA_BOT = Path(sys.executable).parent / "tanka-bot"


def test_tk_show_refuses_a_remote_kustomization(project: Path) -> None:
    kustomization(project, "resources:\n- https://example.com/deploy.yaml\n")
    (project / "environments" / "default" / "main.jsonnet").write_text(
        "std.native('kustomizeBuild')('../../kustomize', { calledFrom: std.thisFile })\n"
    )
    shown = subprocess.run(
        [str(TANKA_BOT), "tk", "show", "environments/default"],
        cwd=project, capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ},
    )  # fmt: skip
    assert shown.returncode == 1
    assert "'https://example.com/deploy.yaml' is remote" in shown.stderr
    assert not ran(project)


def test_dot_dot_climbs_from_where_a_linked_base_really_is(project: Path) -> None:
    # kustomize/deep/er/up leads to the project's root; from there `../outside` is outside,
    # though from the link's own place it would be kustomize/deep/outside (a decoy, inside).
    (project / "kustomize" / "deep" / "er").mkdir(parents=True)
    (project / "kustomize" / "deep" / "er" / "up").symlink_to("../../..")
    decoy = project / "kustomize" / "deep" / "outside"
    decoy.mkdir()
    (decoy / "kustomization.yaml").write_text("resources: []\n")
    (project.parent / "outside" / "kustomization.yaml").write_text("resources: [secret.yaml]\n")
    (project / "kustomization.yaml").write_text("resources: [../outside]\n")
    kustomization(project, "resources: [deep/er/up]\n")
    message = refusal(project)
    assert f"{project}/kustomization.yaml: resources entry '../outside'" in message
    assert "outside the project directory" in message


# -- generator, transformer and validator configs, inline and in files -----------------------

INLINE_GENERATOR = """\
generators:
- |-
  apiVersion: builtin
  kind: ConfigMapGenerator
  metadata: {name: leak}
  files: [key=../../outside/secret.yaml]
"""
INLINE_OBJECT = """\
transformers:
- apiVersion: builtin
  kind: PatchTransformer
  metadata: {name: leak}
  path: linked/secret.yaml
"""
HELM_INLINE = """\
generators:
- |-
  apiVersion: builtin
  kind: HelmChartInflationGenerator
  metadata: {name: chart}
  chartName: metadata
  repo: http://169.254.169.254/latest
"""
STRATEGIC = """\
transformers:
- |
  apiVersion: builtin
  kind: PatchStrategicMergeTransformer
  metadata: {name: remote}
  paths: [https://example.com/patch.yaml]
"""
REPLACEMENT = """\
validators:
- |-
  apiVersion: builtin
  kind: ReplacementTransformer
  metadata: {name: leak}
  replacements:
  - path: ../../outside/secret.yaml
"""
SECOND_DOCUMENT = """\
transformers:
- |-
  apiVersion: builtin
  kind: LabelTransformer
  metadata: {name: harmless}
  labels: {team: a}
  ---
  apiVersion: builtin
  kind: SecretGenerator
  metadata: {name: leak}
  envs: [/etc/passwd]
"""
FUNCTION = """\
generators:
- |-
  apiVersion: example.com/v1
  kind: Anything
  metadata:
    name: run
    annotations:
      config.kubernetes.io/function: |
        exec:
          path: ./plugin.sh
"""
HELM_CHARTS = "helmCharts:\n- name: app\n  repo: oci://registry.example.com/charts\n"
HELM_GLOBALS = "helmGlobals:\n  chartHome: ../../outside\n"


@pytest.mark.parametrize(
    ("text", "why"),
    [
        (INLINE_GENERATOR, "inline generators entry (ConfigMapGenerator 'leak'): files entry "
                           "'../../outside/secret.yaml' leads to"),
        (INLINE_OBJECT, "inline transformers entry (PatchTransformer 'leak'): path entry "
                        "'linked/secret.yaml' leads to"),
        (HELM_INLINE, "(HelmChartInflationGenerator 'chart'): repo entry "
                      "'http://169.254.169.254/latest' is remote"),
        (STRATEGIC, "paths entry 'https://example.com/patch.yaml' is remote"),
        (REPLACEMENT, "inline validators entry (ReplacementTransformer 'leak'): replacements "
                      "entry '../../outside/secret.yaml' leads to"),
        (SECOND_DOCUMENT, "(SecretGenerator 'leak'): envs entry '/etc/passwd' leads to"),
        (FUNCTION, "(Anything 'run') is a KRM function (config.kubernetes.io/function)"),
        (HELM_CHARTS, "helmCharts entry (config 'app'): repo entry "
                      "'oci://registry.example.com/charts' is remote"),
        (HELM_GLOBALS, "helmGlobals entry (config): chartHome entry '../../outside' leads to"),
    ],
    ids=["text", "object", "helm-repo", "remote-patch", "validator", "second-document",
         "krm-function", "helm-charts", "helm-globals"],
)  # fmt: skip
def test_a_hostile_inline_config_is_refused_like_a_file(project: Path, text: str, why: str) -> None:
    (project / "kustomize" / "linked").symlink_to(project.parent / "outside")
    kustomization(project, "resources: [base]\n" + text)
    message = refusal(project)
    assert message.startswith("kustomizeBuild: ")
    assert f"{project}/kustomize/kustomization.yaml: " in message
    assert why in message


def test_a_config_file_is_read_and_refused_for_what_it_names(project: Path) -> None:
    (project / "kustomize" / "gen").mkdir()
    (project / "kustomize" / "gen" / "cm.yaml").write_text(
        "apiVersion: builtin\nkind: ConfigMapGenerator\nmetadata: {name: leak}\n"
        "files: [../../outside/secret.yaml]\n"
    )
    kustomization(project, "generators: [gen/cm.yaml]\n")
    message = refusal(project)
    # Paths in a config are the kustomization directory's, wherever the config is written.
    assert (
        f"{project}/kustomize/gen/cm.yaml (ConfigMapGenerator 'leak'): files entry "
        "'../../outside/secret.yaml' leads to"
    ) in message


def test_an_inline_config_that_is_not_yaml_is_refused_naming_the_entry(project: Path) -> None:
    kustomization(project, "generators:\n- |-\n  kind: [unclosed\n  a: b\n")
    message = refusal(project)
    assert "kustomization.yaml: inline generators entry 1 is not YAML" in message


def test_inline_configs_that_stay_inside_still_build(project: Path) -> None:
    (project / "kustomize" / "extra.env").write_text("A=1\n")
    (project / "kustomize" / "gen.yaml").write_text(
        "apiVersion: builtin\nkind: LabelTransformer\nmetadata: {name: l}\nlabels: {a: b}\n"
        "fieldSpecs: [{path: metadata/labels, create: true}]\n"
    )
    kustomization(project, """\
resources: [base]
generators:
- |-
  apiVersion: builtin
  kind: ConfigMapGenerator
  metadata: {name: settings}
  envs: [extra.env]
  literals: [URL=https://example.com]
transformers:
- gen.yaml
- apiVersion: builtin
  kind: PrefixSuffixTransformer
  metadata: {name: p}
  prefix: "http://"
  fieldSpecs: [{path: metadata/name}]
""")  # fmt: skip
    assert "config_map_built" in build(project)
    assert ran(project)
