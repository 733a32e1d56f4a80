"""Failed installs change nothing; hostile repositories cannot write outside vendor/."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from tests.tree import digest_tree as snapshot
from tests.unit.jb.conftest import Server
from tools.jb import spec
from tools.jb.deps import parse_git
from tools.jb.errors import JbError
from tools.jb.gitrun import GitRunner
from tools.jb.install import Bundler

LIB = "github.com/acme/libs"


@pytest.fixture
def installed(server: Server, bundler: Bundler, project: Path) -> dict[str, str]:
    """A project with one package installed; returns its snapshot."""
    server.repo(LIB).commit({"util/main.libsonnet": "{}\n"})
    bundler.init()
    bundler.install([f"{LIB}/util"])
    (project / "vendor" / "untracked-by-jb.txt").write_text("kept only if nothing changes\n")
    return snapshot(project)


@pytest.mark.parametrize(
    ("uri", "message"),
    [
        (f"{LIB}/util@nope", r"version 'nope' not found .* Available: master"),
        ("github.com/acme/missing", r"cannot fetch https://github.com/acme/missing.git: .*exists"),
        (f"{LIB}/nosuchdir", r"subdir 'nosuchdir' does not exist"),
    ],
)
def test_failed_install_leaves_everything_byte_identical(
    bundler: Bundler, project: Path, installed: dict[str, str], uri: str, message: str
) -> None:
    with pytest.raises(JbError, match=message):
        bundler.install([uri])
    assert snapshot(project) == installed  # vendor/, both files, no stage left behind


def test_failure_deep_in_transitive_deps_changes_nothing(
    server: Server, bundler: Bundler, project: Path, installed: dict[str, str]
) -> None:
    jf = spec.JsonnetFile()
    absent = parse_git("github.com/acme/absent@v9")
    assert absent is not None
    jf.add(absent)
    server.repo("github.com/acme/top").commit({"jsonnetfile.json": spec.dump(jf).decode()})
    with pytest.raises(JbError, match="absent"):
        bundler.install(["github.com/acme/top"])
    assert snapshot(project) == installed


def test_malformed_jsonnetfile_is_reported_with_position(
    bundler: Bundler, project: Path, installed: dict[str, str]
) -> None:
    (project / spec.JSONNETFILE).write_text('{\n  "version": 1,\n  "dependencies": [\n}')
    with pytest.raises(JbError, match=r"not valid JSON: .* line 4 column 1"):
        bundler.install()


def test_cancellation_before_swap_changes_nothing(
    server: Server, project: Path, installed: dict[str, str]
) -> None:
    server.repo("github.com/acme/other").commit({"o.libsonnet": "1\n"})
    cancelling = Bundler(project, git=server.runner, cancelled=lambda: True)
    with pytest.raises(JbError, match="cancelled"):
        cancelling.install(["github.com/acme/other"])
    assert snapshot(project) == installed


def test_symlinks_out_of_the_repository_never_reach_vendor(
    server: Server, bundler: Bundler, project: Path, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET")
    repo = server.repo("github.com/evil/lib")
    repo.commit({"main.libsonnet": "{}\n"})
    repo.symlink("passwd", "/etc/passwd")
    repo.symlink("secret", str(secret))
    repo.symlink("climb", "../../../../../../../../etc")
    repo.symlink("inner", "main.libsonnet")
    bundler.init()
    outcome = bundler.install(["github.com/evil/lib"])
    vendored = project / "vendor/github.com/evil/lib"
    assert sorted(os.listdir(vendored)) == ["main.libsonnet"]
    assert outcome.downloads[0].dropped_links == ("inner",)
    for dirpath, _dirs, files in os.walk(project / "vendor"):
        for name in files:
            assert "SECRET" not in Path(dirpath, name).read_text()


def test_subdir_that_is_a_symlink_is_refused(
    server: Server, bundler: Bundler, project: Path
) -> None:
    repo = server.repo("github.com/evil/sub")
    repo.commit({"real/a.libsonnet": "{}\n"})
    repo.symlink("link", "real")
    repo.symlink("out", "/etc")
    bundler.init()
    before = snapshot(project)
    for uri in ("github.com/evil/sub/link", "github.com/evil/sub/out"):
        with pytest.raises(JbError, match=r"not a directory|does not exist"):
            bundler.install([uri])
    assert snapshot(project) == before


def test_nested_jsonnetfile_with_climbing_subdir_is_refused(
    server: Server, bundler: Bundler, project: Path
) -> None:
    hostile = (
        '{"version": 1, "dependencies": [{"source": {"git": {"remote": '
        '"https://github.com/acme/x.git", "subdir": "../../../../outside"}}, "version": "master"}]}'
    )
    server.repo("github.com/evil/nest").commit({"jsonnetfile.json": hostile})
    bundler.init()
    before = snapshot(project)
    with pytest.raises(JbError, match="refused"):
        bundler.install(["github.com/evil/nest"])
    assert snapshot(project) == before
    assert not (project.parent / "outside").exists()


def test_local_package_outside_the_checkout_is_refused(
    server: Server, project: Path, tmp_path: Path
) -> None:
    (tmp_path / "elsewhere").mkdir()
    inner = project / "env"
    inner.mkdir()
    bundler = Bundler(inner, root=project, git=server.runner)
    bundler.init()
    (inner / spec.JSONNETFILE).write_text(
        '{"version": 1, "dependencies": [{"source": {"local": {"directory": "../../elsewhere"}},'
        ' "version": ""}]}'
    )
    with pytest.raises(JbError, match="inside the repository"):
        bundler.install()
    assert not (inner / "vendor").exists()


def test_hanging_remote_is_stopped_and_changes_nothing(
    project: Path, installed: dict[str, str]
) -> None:
    # A server that accepts connections and never answers: git must be stopped by the timeout.
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        port = silent.getsockname()[1]
        runner = GitRunner(
            config={f"url.http://127.0.0.1:{port}/.insteadOf": "https://"}, timeout=1.0
        )
        with pytest.raises(JbError, match=r"git fetch did not finish within 1 s"):
            Bundler(project, git=runner).install(["github.com/acme/slow"])
    assert snapshot(project) == installed


def test_a_git_that_cannot_start_is_not_reported_as_a_timeout(tmp_path: Path) -> None:
    with pytest.raises(JbError) as caught:
        GitRunner()(["version"], cwd=tmp_path / "gone")
    assert "did not finish" not in str(caught.value)
    assert "does not exist" in str(caught.value)
