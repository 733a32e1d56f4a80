"""helmTemplate reads a chart only inside the project: links out of it are refused, by name.

A chart whose templates do `.Files.Get "env"` and `.Files.Glob "linked/*"` is rendered with
`env` and `linked` as committed symlinks: to a file and a directory outside the project, through
two hops, to /proc, and to places inside the project (which must keep working). Both Helm's
library and the `helm` binary fallback (a stand-in script here) get the same confined copy.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tools.tanka.errors import NativeError
from tools.tanka.evaluation.evaluate import evaluate_file
from tools.tanka.evaluation.pool import EvalPool
from tools.tanka.natives import helm_lib
from tools.tanka.natives.exec import helm_template

DEMO = Path(__file__).parents[2] / "fixtures" / "tanka_helm" / "charts" / "demo"
OUTSIDE = "outside-the-project: must never be rendered"
INSIDE = "inside-the-project: fine to render"
LEAK_TEMPLATE = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: leak
data:
  env: {{ .Files.Get "env" | quote }}
  glob: {{ range $p, $_ := .Files.Glob "linked/*" }}{{ $.Files.Get $p | quote }}{{ end }}
"""
CREDENTIALS = {
    "SLACK_BOT_TOKEN": "xoxb-" + "planted-bot-token",
    "SLACK_APP_TOKEN": "xapp-planted-app-token",
    "SLACK_SIGNING_SECRET": "planted-signing-secret",
    "GITHUB_TOKEN": "ghp_plantedGithubToken",
    "GITHUB_WEBHOOK_SECRET": "planted-webhook-secret",
    "GITHUB_APP_PRIVATE_KEY": "planted-private-key",
    "ANTHROPIC_API_KEY": "sk-ant-planted-key",
    "OPENAI_API_KEY": "sk-planted-openai-key",
    "GEMINI_API_KEY": "planted-gemini-key",
    "REDIS_URL": "redis://:planted-password@127.0.0.1:1/0",
    "AWS_SECRET_ACCESS_KEY": "planted-aws-secret",
}

pytestmark = pytest.mark.skipif(not helm_lib.available(), reason="Helm's library is not loadable")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """tmp/outside/{secret,dir/secret} beside tmp/project, whose charts/demo reads env and
    linked/* (no links yet: each test makes them)."""
    (tmp_path / "outside" / "dir").mkdir(parents=True)
    (tmp_path / "outside" / "secret").write_text(OUTSIDE)
    (tmp_path / "outside" / "dir" / "secret").write_text(OUTSIDE)
    root = tmp_path / "project"
    shutil.copytree(DEMO, root / "charts" / "demo")
    (root / "charts" / "demo" / "templates" / "leak.yaml").write_text(LEAK_TEMPLATE)
    (root / "shared" / "dir").mkdir(parents=True)
    (root / "shared" / "env").write_text(INSIDE)
    (root / "shared" / "dir" / "file").write_text(INSIDE)
    shutil.copytree(DEMO.parents[1] / "environments", root / "environments")
    (root / "jsonnetfile.json").write_text("{}")
    return root


def link(path: Path, target: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(target)


def render(root: Path, *, use_library: bool = True) -> dict[str, Any]:
    opts = json.dumps({"calledFrom": str(root / "environments" / "default" / "main.jsonnet")})
    chart = "../../charts/demo"
    return helm_template("web", chart, opts, confine=str(root), use_library=use_library)


def refusal(root: Path, *, use_library: bool = True) -> str:
    with pytest.raises(NativeError) as caught:
        render(root, use_library=use_library)
    message = str(caught.value)
    assert OUTSIDE not in message
    return message


def test_a_file_link_out_of_the_project_is_refused_naming_it(project: Path) -> None:
    link(project / "charts" / "demo" / "env", str(project.parent / "outside" / "secret"))
    message = refusal(project)
    assert message.startswith(
        "helmTemplate: the chart charts/demo cannot be rendered: charts/demo/env leads outside "
        f"the project directory, to {project.parent}/outside/secret; refused"
    )
    assert "Fix: replace the link with a copy of what it points to" in message


def test_a_directory_link_out_of_the_project_is_refused(project: Path) -> None:
    link(project / "charts" / "demo" / "linked", "../../../outside/dir")
    assert "charts/demo/linked leads outside the project directory" in refusal(project)


def test_a_two_hop_chain_out_through_the_project_is_refused(project: Path) -> None:
    # charts/demo/env -> lib/hop (inside) -> the outside file: each hop is followed in turn.
    link(project / "lib" / "hop", "../../outside/secret")
    link(project / "charts" / "demo" / "env", "../../lib/hop")
    message = refusal(project)
    assert f"charts/demo/env leads outside the project directory, to {project.parent}" in message


def test_proc_is_refused(project: Path) -> None:
    link(project / "charts" / "demo" / "env", f"/proc/{os.getpid()}/environ")
    assert f"charts/demo/env leads outside the project directory, to /proc/{os.getpid()}" in (
        refusal(project)
    )


def test_a_link_into_git_is_refused(project: Path) -> None:
    (project / ".git").mkdir()
    (project / ".git" / "config").write_text("[remote]\n")
    link(project / "charts" / "demo" / "env", "../../.git/config")
    assert "charts/demo/env leads into .git/, which is never read" in refusal(project)


def test_links_inside_the_project_still_render(project: Path) -> None:
    link(project / "charts" / "demo" / "env", "../../shared/env")
    link(project / "charts" / "demo" / "linked", "../../shared/dir")
    data = render(project)["config_map_leak"]["data"]
    assert data == {"env": INSIDE, "glob": INSIDE}


def test_a_link_loop_is_refused_not_followed_forever(project: Path) -> None:
    link(project / "charts" / "demo" / "linked", "..")
    assert "leads back to a directory above it (a symbolic link loop)" in refusal(project)


FAKE_HELM = """\
#!/bin/sh
# `helm template NAME CHART --values - ...`: a ConfigMap holding CHART/env.
printf 'apiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: leak\\ndata:\\n  env: "%s"\\n' \
  "$(cat "$3/env")"
"""


@pytest.fixture
def fake_helm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    helm = tmp_path / "bin" / "helm"
    helm.parent.mkdir()
    helm.write_text(FAKE_HELM)
    helm.chmod(helm.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("TANKA_HELM_PATH", str(helm))


@pytest.mark.usefixtures("fake_helm")
def test_the_helm_binary_gets_the_same_confined_copy(project: Path) -> None:
    link(project / "charts" / "demo" / "env", "../../shared/env")
    assert render(project, use_library=False)["config_map_leak"]["data"] == {"env": INSIDE}
    (project / "charts" / "demo" / "env").unlink()
    link(project / "charts" / "demo" / "env", str(project.parent / "outside" / "secret"))
    assert "charts/demo/env leads outside the project directory" in refusal(
        project, use_library=False
    )


def test_evaluation_workers_hold_no_credential(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Planted in the caller's environment; a worker (and the Helm it runs) must see none of it.
    for name, value in CREDENTIALS.items():
        monkeypatch.setenv(name, value)
    main = project / "environments" / "default" / "main.jsonnet"
    main.write_text("{ pid: std.length('x') }")
    pool = EvalPool(size=1)
    try:
        assert evaluate_file(main, pool=pool) == {"pid": 1.0}
        (worker,) = [w.process.pid for w in pool._workers]  # the one worker
        raw = Path(f"/proc/{worker}/environ").read_bytes()
    finally:
        pool.close()
    names = {item.split(b"=", 1)[0].decode() for item in raw.split(b"\0") if item}
    assert not names & set(CREDENTIALS)
    assert not [value for value in CREDENTIALS.values() if value.encode() in raw]


TANKA_BOT = Path(sys.executable).parent / "tanka-bot"
SHOW_MAIN = """\
{
  demo: std.native('helmTemplate')('web', '../../charts/demo', { calledFrom: std.thisFile }),
}
"""


def tk_show(root: Path) -> subprocess.CompletedProcess[str]:
    (root / "environments" / "default" / "main.jsonnet").write_text(SHOW_MAIN)
    return subprocess.run(
        [str(TANKA_BOT), "tk", "show", "environments/default"],
        cwd=root, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def test_tk_show_refuses_a_chart_reading_outside_and_renders_one_reading_inside(
    project: Path,
) -> None:
    link(project / "charts" / "demo" / "env", str(project.parent / "outside" / "secret"))
    link(project / "charts" / "demo" / "linked", "../../../outside/dir")
    refused = tk_show(project)
    assert refused.returncode == 1
    assert OUTSIDE not in refused.stdout + refused.stderr
    assert "charts/demo/env leads outside the project directory" in refused.stderr
    for name in ("env", "linked"):
        (project / "charts" / "demo" / name).unlink()
    link(project / "charts" / "demo" / "env", "../../shared/env")
    link(project / "charts" / "demo" / "linked", "../../shared/dir")
    shown = tk_show(project)
    assert shown.returncode == 0, shown.stderr
    assert f"env: '{INSIDE}'" in shown.stdout
