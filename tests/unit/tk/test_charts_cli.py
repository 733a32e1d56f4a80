"""`tanka-bot tk tool charts status`: chartfile.yaml's charts against the vendored ones."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bot.cli import main

DEMO = Path(__file__).parents[2] / "fixtures" / "tanka_helm" / "charts" / "demo"


def status(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["tk", "tool", "charts", "status", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_status_lists_ok_missing_other_version_and_unrequired(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "chartfile.yaml").write_text(
        "requires:\n"
        "  - {chart: stable/demo, version: 0.1.0}\n"
        "  - {chart: stable/web, version: 1.0.0}\n"
        "  - {chart: stable/db, version: 3.0.0}\n"
    )
    shutil.copytree(DEMO, tmp_path / "charts" / "demo")
    (tmp_path / "charts" / "db").mkdir()
    (tmp_path / "charts" / "db" / "Chart.yaml").write_text("name: db\nversion: 2.9.0\n")
    (tmp_path / "charts" / "leftover").mkdir()
    code, out, _ = status(capsys, str(tmp_path))
    assert code == 1
    lines = [line.split() for line in out.splitlines()]
    assert out.startswith(f"{tmp_path}/chartfile.yaml: 3 chart(s) required into charts/\n")
    assert ["ok", "stable/demo@0.1.0", "charts/demo"] in lines
    assert ["missing", "stable/web@1.0.0", "charts/web"] in lines
    assert ["vendored", "2.9.0", "stable/db@3.0.0", "charts/db"] in lines
    assert ["not", "required", "charts/leftover"] in lines
    assert out.endswith(
        f"2 chart(s) not as required: run `tk tool charts vendor` in {tmp_path} "
        "(it downloads them; tanka-bot does not)\n"
    )


def test_status_is_zero_when_all_are_vendored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "chartfile.yaml").write_text("requires:\n  - {chart: s/demo, version: 0.1.0}\n")
    shutil.copytree(DEMO, tmp_path / "charts" / "demo")
    monkeypatch.chdir(tmp_path)
    code, out, _ = status(capsys)
    assert code == 0
    assert out.startswith("chartfile.yaml: 1 chart(s) required into charts/\n")


def test_status_without_or_with_a_bad_chartfile(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = status(capsys, str(tmp_path))
    assert code == 1
    assert f"{tmp_path}/chartfile.yaml: no such file; `tk tool charts init` creates one" in err
    (tmp_path / "chartfile.yaml").write_text("requires:\n  - {chart: demo}\n")
    code, _, err = status(capsys, str(tmp_path))
    assert code == 1
    assert "Chart name 'demo' is not valid. Expecting a repo/name format." in err
