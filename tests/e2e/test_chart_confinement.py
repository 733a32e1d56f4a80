"""A repository whose chart links out of it: a Slack session never renders what the links name.

The committed chart reads `env` (a symlink to a file outside the repository) with `.Files.Get`
and `linked/*` (a symlink to an outside directory) with `.Files.Glob`. The model's `tanka_show`,
the proposal's rendered diff and everything posted must carry the refusal naming the link, never
the outside content.
"""

from __future__ import annotations

from pathlib import Path

from tests.e2e.harness import CHANNEL, Stack, stack
from tests.scenarios.models import Call
from tests.scenarios.project import commit_all, make_project

ENV = "environments/helm"
OUTSIDE = "outside-the-repository-e2e-Qm7w"
CHART_YAML = "apiVersion: v2\nname: leak\nversion: 0.1.0\n"
LEAK_TEMPLATE = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: leak
data:
  replicas: {{ .Values.replicas | quote }}
  env: {{ .Files.Get "env" | quote }}
  glob: {{ range $p, $_ := .Files.Glob "linked/*" }}{{ $.Files.Get $p | quote }}{{ end }}
"""
MAIN = """\
{
  leak: std.native('helmTemplate')('leak', '../../charts/leak', {
    calledFrom: std.thisFile,
    values: { replicas: 1 },
  }),
}
"""
SPEC = """\
{
  "apiVersion": "tanka.dev/v1alpha1",
  "kind": "Environment",
  "metadata": { "name": "environments/helm" },
  "spec": { "apiServer": "https://127.0.0.1:6443", "namespace": "helm" }
}
"""


def linked_chart_project(root: Path) -> Path:
    """The scenarios' project plus charts/leak, whose env and linked/ lead out of it."""
    outside = root.parent / "outside"
    (outside / "dir").mkdir(parents=True)
    (outside / "secret").write_text(OUTSIDE)
    (outside / "dir" / "secret").write_text(OUTSIDE)
    make_project(root)
    chart = root / "charts" / "leak"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text(CHART_YAML)
    (chart / "templates" / "leak.yaml").write_text(LEAK_TEMPLATE)
    (chart / "env").symlink_to(outside / "secret")
    (chart / "linked").symlink_to(outside / "dir")
    (root / ENV).mkdir(parents=True)
    (root / ENV / "main.jsonnet").write_text(MAIN)
    (root / ENV / "spec.json").write_text(SPEC)
    commit_all(root, "a chart whose links lead out of the repository")
    return root


def _everything(s: Stack) -> str:
    parts = [m.text + str(m.blocks or "") for m in s.slack.messages(CHANNEL)]
    for root in {m.thread_root for m in s.slack.messages(CHANNEL)}:
        parts += [m.text + str(m.blocks or "") for m in s.slack.thread(CHANNEL, root)]
    parts += [f"{u.title} {u.text}" for u in s.slack.uploads]
    parts += [str(s.model.bodies())]
    return "\n".join(parts)


def test_a_session_never_renders_a_chart_file_outside_the_repository(tmp_path: Path) -> None:
    with stack(tmp_path, project=linked_chart_project) as s:
        s.start_bot()
        s.model.calls(Call("show", "tanka_show", {"env_path": ENV}))
        s.model.calls(
            Call("edit", "file_edit", {"path": f"{ENV}/main.jsonnet",
                                       "old_text": "replicas: 1", "new_text": "replicas: 2"}),
        )  # fmt: skip
        s.model.answer("Set the replicas to 2.")
        root = s.mention("set the leak chart's replicas to 2")
        s.proposal(root.ts)
        s.wait_text(root.ts, "Set the replicas to 2")
        (shown,) = s.model.results(1)
        assert shown.is_error
        assert "charts/leak/env leads outside the project directory" in shown.content
        everything = _everything(s)
        assert OUTSIDE not in everything
        assert "leads outside the project directory" in everything.split("Proposal 1", 1)[1]
