"""`tanka-bot tk export`'s -p/--parallel, cache and ballast flags and --jsonnet-implementation.

The flag names, short forms and defaults are tk's (cmd/tk/export.go and flags.go of
grafana/tanka at commit 9cbf25174556cdd5c1471ee2bd15463a5576fef2): -p/--parallel 8,
-c/--cache-path, -e/--cache-envs, --mem-ballast-size-bytes, --jsonnet-implementation go.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from tools.tanka.evaluation import pool as eval_pool


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Six static environments sharing a library, and one file of two inline environments."""
    root = tmp_path / "project"
    (root / "lib").mkdir(parents=True)
    (root / "jsonnetfile.json").write_text("{}")
    (root / "lib" / "app.libsonnet").write_text(
        "function(name, replicas) { apiVersion: 'apps/v1', kind: 'Deployment',\n"
        "  metadata: { name: name, namespace: 'ns' }, spec: { replicas: replicas } }\n"
    )
    for i in range(6):
        env = root / "environments" / f"env{i}"
        env.mkdir(parents=True)
        spec = {"apiVersion": "tanka.dev/v1alpha1", "kind": "Environment",
                "metadata": {"name": f"environments/env{i}"},
                "spec": {"namespace": f"ns{i}"}}  # fmt: skip
        (env / "spec.json").write_text(json.dumps(spec))
        (env / "main.jsonnet").write_text(
            f"local app = import 'app.libsonnet';\n{{ a: app('a{i}', {i}), "
            f"b: app('b{i}', std.extVar('n')) }}\n"
        )
    inline = root / "environments" / "inline"
    inline.mkdir()
    (inline / "main.jsonnet").write_text(
        "[{ apiVersion: 'tanka.dev/v1alpha1', kind: 'Environment', metadata: { name: n },\n"
        "   spec: { namespace: n }, data: (import 'app.libsonnet')(n, 1) }\n"
        " for n in ['in-one', 'in-two']]\n"
    )
    monkeypatch.chdir(root)
    return root


def _tree(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def test_parallel_export_writes_the_serial_runs_files(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    on_workers: list[tuple[str, int]] = []
    for cls in (eval_pool.EvalPool, eval_pool.InProcessPool):

        def counting(self: Any, *args: Any, _run: Any = cls.run, **kw: Any) -> Any:
            on_workers.append((type(self).__name__, self.size))
            return _run(self, *args, **kw)

        monkeypatch.setattr(cls, "run", counting)
    monkeypatch.setattr("os.cpu_count", lambda: 3)
    common = ["environments", "-r", "--ext-code", "n=3"]
    assert main(["tk", "export", str(tmp_path / "serial"), *common, "-p", "1"]) == 0
    assert set(on_workers) == {("InProcessPool", 1)}
    on_workers.clear()
    assert main(["tk", "export", str(tmp_path / "par"), *common, "--parallel", "4"]) == 0
    # Worker processes, not this one; no more than the CPUs.
    assert set(on_workers) == {("EvalPool", 3)}
    serial = _tree(tmp_path / "serial")
    assert len(serial) == 6 * 2 + 2 + 1  # two per static env, one per inline, manifest.json
    assert _tree(tmp_path / "par") == serial


def test_non_positive_parallelism_means_tks_default(project: Path, tmp_path: Path) -> None:
    assert main(["tk", "export", str(tmp_path / "a"), "environments", "-r", "-p", "0",
                 "--ext-code", "n=1"]) == 0  # fmt: skip
    assert main(["tk", "export", str(tmp_path / "b"), "environments", "-r", "-p", "1",
                 "--ext-code", "n=1"]) == 0  # fmt: skip
    assert _tree(tmp_path / "a") == _tree(tmp_path / "b")


def test_cache_path_is_refused_saying_why(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    args = ["tk", "export", str(out), "environments", "-r", "--ext-code", "n=1"]
    assert main([*args, "-c", str(tmp_path / "cache")]) == 1
    err = capsys.readouterr().err
    assert "--cache-path is not supported" in err
    assert "--ext-*/--tla-* values" in err
    assert not out.exists()
    assert not (tmp_path / "cache").exists()
    assert main([*args, "-e", "env[0-9]", "-e", "("]) == 1
    assert "--cache-envs '('" in capsys.readouterr().err
    # Without a cache, --cache-envs selects nothing to cache: the export runs.
    assert main([*args, "--cache-envs", "env1"]) == 0


def test_ballast_is_accepted_and_changes_nothing(project: Path, tmp_path: Path) -> None:
    base = ["environments/env1", "--ext-code", "n=2"]
    assert main(["tk", "export", str(tmp_path / "a"), *base]) == 0
    assert main(["tk", "export", str(tmp_path / "b"), *base,
                 "--mem-ballast-size-bytes", "1000000"]) == 0  # fmt: skip
    assert _tree(tmp_path / "a") == _tree(tmp_path / "b")


def test_jsonnet_implementation(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["environments/env1", "--ext-code", "n=2"]
    assert main(["tk", "export", str(tmp_path / "a"), *base, "--jsonnet-implementation", "go"]) == 0
    capsys.readouterr()
    # tk's env list (alias ls) and eval take the flag too.
    assert main(["tk", "env", "ls", "--names", "--jsonnet-implementation", "go", "."]) == 0
    assert capsys.readouterr().out.splitlines()[:2] == ["environments/env0", "environments/env1"]
    with pytest.raises(SystemExit) as info:
        main(["tk", "show", "environments/env1", "--jsonnet-implementation", "binary:/bin/sh"])
    assert info.value.code == 2
    assert "'binary:/bin/sh' is not supported" in capsys.readouterr().err


@pytest.mark.parametrize(
    "command",
    [["export", "OUT", "environments/env1", "--ext-code", "n=1"], ["env", "ls"],
     ["tool", "jpath", "environments/env1"], ["status", "environments/env1", "-V", "n=1"]],
)  # fmt: skip
def test_log_level_is_taken_by_every_command(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    # tk's --log-level (cmd/tk/main.go): zerolog's level names; our commands log nothing of tk's.
    command = [str(tmp_path / "o") if c == "OUT" else c for c in command]
    assert main(["tk", *command, "--log-level", "debug"]) == 0
    with pytest.raises(SystemExit):
        main(["tk", *command, "--log-level", "loud"])
    assert "argument --log-level: invalid choice: 'loud'" in capsys.readouterr().err
