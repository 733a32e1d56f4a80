"""helmTemplate rendered in-process by Helm's library, with tk's options, order and errors.

The chart is tests/fixtures/tanka_helm/charts/demo (written for these tests): CRDs, a partial,
NOTES.txt, several documents in one file (one only a comment), a kind Helm does not know, a
template gated on `.Capabilities.APIVersions`, a pre-install hook and a test hook.
test_helm_parity.py compares this path with the real `helm template` on more charts.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tools.tanka.errors import NativeError
from tools.tanka.natives import helm_lib
from tools.tanka.natives.exec import DEFAULT_NAME_FORMAT, helm_template, keyed_manifests
from tools.tanka.natives.parse_yaml import parse_yaml

# Every test here runs on go-jsonnet and on jrsonnet (conftest.py).
pytestmark = pytest.mark.usefixtures("evaluator")

ROOT = Path(__file__).parents[3]
FIXTURE = ROOT / "tests" / "fixtures" / "tanka_helm"
CHART = FIXTURE / "charts" / "demo"
CALLED_FROM = str(FIXTURE / "environments" / "default" / "main.jsonnet")
WEB_OPTS: dict[str, Any] = {
    "namespace": "apps",
    "values": {"replicas": 3, "config": {"greeting": "hello"}},
    "kubeVersion": "1.29.0",
    "apiVersions": ["demo.example.com/v1"],
}

pytestmark = pytest.mark.skipif(not helm_lib.available(), reason="Helm's library is not loadable")


def sources_and_kinds(stream: str) -> list[tuple[str, str]]:
    """(# Source path, kind) per document of a `helm template` stream, in order."""
    out = []
    for chunk in stream.split("---\n# Source: ")[1:]:
        path, _, body = chunk.partition("\n")
        docs = [d for d in parse_yaml(body) if d]
        out.append((path, docs[0]["kind"] if docs else ""))
    return out


def lower(opts: dict[str, Any]) -> dict[str, Any]:
    return {k.lower(): v for k, v in opts.items()}


def render(**opts: Any) -> dict[str, Any]:
    options = json.dumps({"calledFrom": CALLED_FROM, **opts})
    return helm_template("web", "../../charts/demo", options, confine=str(FIXTURE))


def test_stream_follows_helm_template_order() -> None:
    # helm template: CRDs, then manifests by install order (unknown kinds last, by kind; the
    # comment-only document has kind ""), then hooks by install order. NOTES.txt and partials
    # are never output.
    stream = helm_lib.template("web", str(CHART), lower(WEB_OPTS))
    assert sources_and_kinds(stream) == [
        ("demo/crds/widget.yaml", "CustomResourceDefinition"),
        ("demo/templates/rbac.yaml", "ServiceAccount"),
        ("demo/templates/rbac.yaml", "ConfigMap"),
        ("demo/templates/service.yaml", "Service"),
        ("demo/templates/deployment.yaml", "Deployment"),
        ("demo/templates/service.yaml", ""),
        ("demo/templates/widget.yaml", "Widget"),
        ("demo/templates/tests/test-connection.yaml", "Pod"),
        ("demo/templates/migrate-job.yaml", "Job"),
    ]
    assert "is installed" not in stream
    assert "define" not in stream


def kinds(**opts: Any) -> list[str]:
    return [kind for _, kind in sources_and_kinds(helm_lib.template("w", str(CHART), opts))]


def test_include_crds_skip_tests_and_no_hooks() -> None:
    assert kinds(includecrds=False, skiptests=True) == [
        "ServiceAccount", "ConfigMap", "Service", "Deployment", "", "Job",
    ]  # fmt: skip
    assert kinds(nohooks=True) == [
        "CustomResourceDefinition", "ServiceAccount", "ConfigMap", "Service", "Deployment", "",
    ]  # fmt: skip


def test_keyed_by_tk_default_name_format_with_values_and_capabilities() -> None:
    out = render(**WEB_OPTS, skipTests=True)
    assert sorted(out) == [
        "config_map_web_demo_config",
        "custom_resource_definition_widgets.demo.example.com",
        "deployment_web_demo",
        "job_web_demo_migrate",
        "service_account_web_demo",
        "service_web_demo",
        "widget_web_demo",
    ]
    assert out["config_map_web_demo_config"]["data"] == {
        "kubeVersion": "v1.29.0",
        "hasWidgets": "true",
        "greeting": "hello",
    }
    deployment = out["deployment_web_demo"]
    assert deployment["spec"]["replicas"] == 3.0  # yaml.v3 then JSON: a float, as in tk
    assert deployment["metadata"]["namespace"] == "apps"
    # Labels and annotations exactly as the chart renders them: tk's helmTemplate adds none.
    assert deployment["metadata"]["labels"] == {
        "app.kubernetes.io/name": "demo",
        "app.kubernetes.io/instance": "web",
        "app.kubernetes.io/managed-by": "Helm",
        "helm.sh/chart": "demo-0.1.0",
    }
    assert out["job_web_demo_migrate"]["metadata"]["annotations"] == {
        "helm.sh/hook": "pre-install,pre-upgrade"
    }


def test_defaults_are_helm_templates() -> None:
    out = render()
    config = out["config_map_web_demo_config"]
    assert config["metadata"]["namespace"] == "default"
    assert config["data"]["hasWidgets"] == "false"
    assert "widget_web_demo" not in out
    assert "pod_web_demo_test" in out  # tests are kept unless skipTests
    assert "custom_resource_definition_widgets.demo.example.com" in out  # includeCrds: true


def test_template_errors_and_tk_texts(tmp_path: Path) -> None:
    with pytest.raises(NativeError, match=r"^helmTemplate: 'opts.calledFrom' is unset or empty"):
        helm_template("x", "c", "{}", confine=str(tmp_path))
    with pytest.raises(NativeError, match=r"Failed to find a chart at .*failed-to-find-chart"):
        render_in(tmp_path, "missing")
    bad = tmp_path / "bad"
    shutil.copytree(CHART, bad)
    (bad / "templates" / "boom.yaml").write_text('{{ required "boom is required" .Values.boom }}')
    with pytest.raises(NativeError, match=r"^helmTemplate: `helm template x bad` failed: .*boom"):
        render_in(tmp_path, "bad")
    with pytest.raises(NativeError, match="is outside the project directory"):
        helm_template("x", "../../charts/demo", json.dumps({"calledFrom": CALLED_FROM}),
                      confine=str(tmp_path))  # fmt: skip


def render_in(root: Path, chart: str) -> dict[str, Any]:
    opts = json.dumps({"calledFrom": str(root / "main.jsonnet")})
    return helm_template("x", chart, opts, confine=str(root))


def test_binary_path_names_a_missing_binary(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TANKA_HELM_PATH", "tanka-bot-no-such-helm")
    options = json.dumps({"calledFrom": CALLED_FROM})
    with pytest.raises(NativeError, match="the `helm` binary was not found on PATH"):
        helm_template("web", "../../charts/demo", options, confine=str(FIXTURE), use_library=False)


def secret(name: str, ident: int) -> str:
    return f"---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: {name}\ndata:\n  id: {ident}\n"


def test_list_as_map_cases_of_tk() -> None:
    # Expected values from tk's pkg/kubernetes/manifest/manifest_test.go TestListAsMap
    # (grafana/tanka 9cbf25174556cdd5c1471ee2bd15463a5576fef2).
    two = secret("foo", 1) + secret("foo", 2)
    with pytest.raises(NativeError) as caught:
        keyed_manifests(two, "helmTemplate")
    assert str(caught.value) == (
        "Two resources share the same name 'secret_foo'. Please adapt the name template "
        f"'{DEFAULT_NAME_FORMAT}'."
    )
    custom = keyed_manifests(two, "helmTemplate", '{{ print .metadata.name "_" .data.id }}')
    assert sorted(custom) == ["foo_1", "foo_2"]
    assert custom["foo_2"]["data"] == {"id": 2.0}
    with pytest.raises(NativeError, match="Two resources share the same name 'foo'. Please "
                       r"adapt the name template '\{\{ \.metadata\.name \}\}'\."):  # fmt: skip
        keyed_manifests(two, "helmTemplate", "{{ .metadata.name }}")


def test_custom_name_format_is_go_template_with_sprig_and_dollar_is_the_manifest() -> None:
    out = render(**WEB_OPTS, nameFormat="{{ $.kind | lower }}/{{ .metadata.name | upper }}")
    assert "deployment/WEB-DEMO" in out
    assert "configmap/WEB-DEMO-CONFIG" in out
    assert out["deployment/WEB-DEMO"]["kind"] == "Deployment"
    with pytest.raises(NativeError, match=r"^helmTemplate: name format '\{\{ \.kind ': .*"):
        render(nameFormat="{{ .kind ")


AGENT_SHOW = """
import sys
from pathlib import Path
from tools.engine_tools.tanka_render import TOOLS
from tools.context import ToolContext
from tools.registry import ToolRegistry

root = Path(sys.argv[1])
out = ToolRegistry(TOOLS).execute(ToolContext(root=root), "tanka_show",
                                  {"env_path": "environments/default"})
print(out.content)
sys.exit(1 if out.is_error else 0)
"""


def test_agent_renders_helm_chart_with_no_helm_binary(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    shutil.copytree(FIXTURE, root)
    path = [d for d in os.environ.get("PATH", "").split(os.pathsep) if d]
    no_helm = [d for d in path if not (Path(d) / "helm").exists()]
    env = {k: v for k, v in os.environ.items() if k != "TANKA_HELM_PATH"}
    env |= {"PATH": os.pathsep.join(no_helm), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", AGENT_SHOW, str(root)],
        env=env, cwd=ROOT, capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    assert "kind: Deployment\nmetadata:\n  labels:" in done.stdout
    assert "replicas: 3" in done.stdout
    assert "kind: Widget" in done.stdout
    assert "kind: Pod" not in done.stdout  # skipTests in main.jsonnet
