"""chartfile.yaml as tk's `tool charts` reads it, and helmTemplate's hint for a chart not vendored.

The validation texts follow grafana/tanka pkg/helm/charts.go and spec.go at commit
9cbf25174556cdd5c1471ee2bd15463a5576fef2 (requirements[i] 'chart' must be set, repo/name, one
output directory per chart).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tools.tanka import chartfile as cf
from tools.tanka.errors import NativeError
from tools.tanka.natives import helm_lib
from tools.tanka.natives.exec import helm_template

DEMO = Path(__file__).parents[2] / "fixtures" / "tanka_helm" / "charts" / "demo"
CHARTFILE = """version: 1
repositories:
  - {name: stable, url: https://charts.example.test, password: dummy-password}
requires:
  - {chart: stable/demo, version: 0.1.0}
  - {chart: stable/other, version: 2.0.0, directory: other-v2}
"""


def write(root: Path, text: str) -> Path:
    (root / cf.FILENAME).write_text(text)
    return root / cf.FILENAME


def test_requirements_land_in_the_charts_directory(tmp_path: Path) -> None:
    chartfile = cf.load(write(tmp_path, CHARTFILE))
    assert [(str(r), r.directory) for r in chartfile.requires] == [
        ("stable/demo@0.1.0", "demo"),
        ("stable/other@2.0.0", "other-v2"),
    ]
    assert chartfile.destination(chartfile.requires[1]) == tmp_path / "charts" / "other-v2"
    custom = cf.load(write(tmp_path, "directory: vendor/helm\nrequires: []\n"))
    assert custom.charts_dir == tmp_path / "vendor" / "helm"


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("requires:\n  - {version: 1.0.0}\n", "requirements[0]: 'chart' must be set"),
        ("requires:\n  - {chart: demo, version: 1.0.0}\n",
         "validation errors:\n - Chart name 'demo' is not valid. Expecting a repo/name format."),
        ("requires:\n  - {chart: a/x, version: '1'}\n"
         "  - {chart: b/y, version: '2', directory: x}\n",
         "output directory 'x' is used twice, by charts \"a/x@1\" and \"b/y@2\""),
        ("require: []\n", "unknown field 'require' (known: directory, repositories, requires, "),
        ("requires:\n  - {chart: a/x, verison: '1'}\n", "unknown field requires[0].'verison'"),
        ("- a\n", "must be a mapping with `requires:`"),
    ],
)  # fmt: skip
def test_what_tk_refuses_is_refused_with_the_file_named(
    tmp_path: Path, text: str, error: str
) -> None:
    path = write(tmp_path, text)
    with pytest.raises(cf.ChartfileError) as caught:
        cf.load(path)
    assert str(caught.value).startswith(f"{path}: ")
    assert error in str(caught.value)


def test_vendored_versions_and_unrequired_entries(tmp_path: Path) -> None:
    chartfile = cf.load(write(tmp_path, CHARTFILE))
    shutil.copytree(DEMO, tmp_path / "charts" / "demo")
    (tmp_path / "charts" / "old").mkdir()
    rows = cf.vendored(chartfile)
    assert [(r.found, r.ok) for r in rows] == [("0.1.0", True), ("", False)]
    assert cf.unrequired(chartfile) == ["old"]
    (tmp_path / "charts" / "demo" / "Chart.yaml").write_text("name: demo\nversion: 0.0.9\n")
    assert cf.vendored(chartfile)[0].found == "0.0.9"


@pytest.mark.skipif(not helm_lib.available(), reason="Helm's library is not loadable")
def test_missing_chart_names_the_chartfile_and_tk_vendor(tmp_path: Path) -> None:
    path = write(tmp_path, CHARTFILE)
    env = tmp_path / "environments" / "default"
    env.mkdir(parents=True)
    opts = json.dumps({"calledFrom": str(env / "main.jsonnet")})
    with pytest.raises(NativeError) as caught:
        helm_template("x", "../../charts/other-v2", opts, confine=str(tmp_path))
    assert str(caught.value).endswith(
        f"See https://tanka.dev/helm#failed-to-find-chart ({path} requires stable/other@2.0.0 "
        "there: run `tk tool charts vendor` next to it to download it)"
    )
    with pytest.raises(NativeError) as caught:
        helm_template("x", "../../charts/nobody", opts, confine=str(tmp_path))
    assert str(caught.value).endswith("See https://tanka.dev/helm#failed-to-find-chart")
    shutil.copytree(DEMO, tmp_path / "charts" / "demo")
    assert "deployment_x_demo" in helm_template("x", "../../charts/demo", opts,
                                                confine=str(tmp_path))  # fmt: skip


def test_no_chartfile_above_the_project_is_read(tmp_path: Path) -> None:
    write(tmp_path, CHARTFILE)
    project = tmp_path / "project"
    (project / "charts").mkdir(parents=True)
    assert cf.missing_chart_hint(str(tmp_path / "charts" / "demo"), str(project)) == ""
    assert cf.missing_chart_hint(str(project / "charts" / "demo"), str(project)) == ""


# A file outside the project whose YAML error would quote it.
OUTSIDE_YAML = "outside-secret: [not closed\n"


def test_a_chartfile_linked_out_of_the_project_is_never_read(tmp_path: Path) -> None:
    (tmp_path / "outside.yaml").write_text(OUTSIDE_YAML)
    project = tmp_path / "project"
    (project / "charts").mkdir(parents=True)
    (project / cf.FILENAME).symlink_to(tmp_path / "outside.yaml")
    hint = cf.missing_chart_hint(str(project / "charts" / "demo"), str(project))
    assert "outside-secret" not in hint
    with pytest.raises(cf.ChartfileError) as caught:
        cf.load(project / cf.FILENAME, str(project))
    assert str(caught.value) == (
        f"{project}/chartfile.yaml: leads outside the project directory {project} (to "
        f"{tmp_path}/outside.yaml); refused: replace the symlink with the file or directory itself"
    )


def test_status_reads_no_chart_yaml_or_charts_directory_out_of_the_project(
    tmp_path: Path,
) -> None:
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "Chart.yaml").write_text("version: 9.9.9-outside\n")
    project = tmp_path / "project"
    (project / "charts" / "demo").mkdir(parents=True)
    (project / "jsonnetfile.json").write_text("{}")
    (project / "charts" / "demo" / "Chart.yaml").symlink_to(tmp_path / "outside" / "Chart.yaml")
    chartfile = cf.load(write(project, "requires:\n  - {chart: s/demo, version: 0.1.0}\n"))
    assert chartfile.confine == str(project)
    with pytest.raises(cf.ChartfileError, match=r"charts/demo/Chart.yaml: leads outside"):
        cf.vendored(chartfile)
    shutil.rmtree(project / "charts")
    (project / "charts").symlink_to(tmp_path / "outside")
    with pytest.raises(cf.ChartfileError, match=r"/charts: leads outside the project"):
        cf.unrequired(chartfile)
