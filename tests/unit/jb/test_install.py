"""install / update against local bare repositories served as https://github.com/..."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.tree import digest_tree as snapshot
from tests.unit.jb.conftest import Server, Upstream
from tools.jb import spec
from tools.jb.deps import Dependency, parse_git
from tools.jb.errors import JbError
from tools.jb.install import Bundler
from tools.jb.sum import hash_dir

LIB = "github.com/acme/libs"


def _lock(project: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((project / spec.LOCKFILE).read_text())
    return data


def _libs(server: Server) -> Upstream:
    repo = server.repo(LIB)
    repo.commit({"util/main.libsonnet": "{ v: 1 }\n", "README.md": "libs\n"})
    return repo


def test_init_writes_jbs_file_and_refuses_twice(bundler: Bundler, project: Path) -> None:
    bundler.init()
    assert (project / spec.JSONNETFILE).read_bytes() == spec.init_content()
    with pytest.raises(JbError, match="already exists"):
        bundler.init()


def test_install_needs_a_jsonnetfile(bundler: Bundler) -> None:
    with pytest.raises(JbError, match=r"no jsonnetfile.json .* run jb_init"):
        bundler.install([f"{LIB}/util@master"])


def test_install_subdir_package_at_version(server: Server, bundler: Bundler, project: Path) -> None:
    repo = _libs(server)
    repo.tag("v1.0")
    head = repo.commit({"util/main.libsonnet": "{ v: 2 }\n"})
    bundler.init()

    outcome = bundler.install([f"{LIB}/util@v1.0"])

    vendored = project / "vendor" / LIB / "util"
    assert (vendored / "main.libsonnet").read_text() == "{ v: 1 }\n"
    assert not (vendored / "README.md").exists()  # only the subdir is vendored
    [entry] = _lock(project)["dependencies"]
    assert entry["source"] == {"git": {"remote": f"https://{LIB}.git", "subdir": "util"}}
    assert len(entry["version"]) == 40
    assert entry["version"] != head
    assert entry["sum"] == hash_dir(vendored)
    declared = json.loads((project / spec.JSONNETFILE).read_text())
    assert declared["dependencies"][0]["version"] == "v1.0"
    assert [d.locked for d in outcome.downloads] == [entry["version"]]
    assert os.readlink(project / "vendor" / "util") == f"{LIB}/util"  # legacy link


def test_install_from_lock_reproduces_exactly(
    server: Server, bundler: Bundler, project: Path
) -> None:
    repo = _libs(server)
    bundler.init()
    bundler.install([f"{LIB}/util"])  # jb's default version: master
    before = snapshot(project)
    repo.commit({"util/main.libsonnet": "{ v: 99 }\n"})  # upstream moves on
    shutil.rmtree(project / "vendor")

    outcome = bundler.install()

    assert snapshot(project) == before  # same files, same lock, the locked commit
    assert outcome.files_written == []


def test_installing_a_present_package_is_a_no_op(
    server: Server, bundler: Bundler, project: Path
) -> None:
    _libs(server)
    bundler.init()
    bundler.install([f"{LIB}/util@master"])
    before = snapshot(project)
    stamps = {p: os.stat(project / p).st_mtime_ns for p in (spec.JSONNETFILE, spec.LOCKFILE)}

    outcome = bundler.install([f"{LIB}/util@master"])

    assert outcome.downloads == []
    assert outcome.files_written == []
    assert snapshot(project) == before
    assert stamps == {p: os.stat(project / p).st_mtime_ns for p in stamps}


def test_tampered_vendor_file_is_restored(server: Server, bundler: Bundler, project: Path) -> None:
    _libs(server)
    bundler.init()
    bundler.install([f"{LIB}/util"])
    before = snapshot(project)
    (project / "vendor" / LIB / "util" / "main.libsonnet").write_text("tampered")

    outcome = bundler.install()

    assert len(outcome.downloads) == 1
    assert snapshot(project) == before


def test_lock_sum_mismatch_is_an_error(server: Server, bundler: Bundler, project: Path) -> None:
    _libs(server)
    bundler.init()
    bundler.install([f"{LIB}/util"])
    lock = _lock(project)
    lock["dependencies"][0]["sum"] = "AAAA" + lock["dependencies"][0]["sum"][4:]
    (project / spec.LOCKFILE).write_text(json.dumps(lock))
    before = snapshot(project)

    with pytest.raises(JbError, match=r"checksum mismatch for github.com/acme/libs/util"):
        bundler.install()
    assert snapshot(project) == before


def test_declared_version_edit_waits_for_update(
    server: Server, bundler: Bundler, project: Path
) -> None:
    repo = _libs(server)
    first = repo.commit({"util/x.libsonnet": "1\n"})
    second = repo.commit({"util/x.libsonnet": "2\n"}, branch="dev")
    bundler.init()
    bundler.install([f"{LIB}/util@master"])
    declared = (project / spec.JSONNETFILE).read_text().replace('"master"', '"dev"')
    (project / spec.JSONNETFILE).write_text(declared)

    bundler.install()
    assert _lock(project)["dependencies"][0]["version"] == first  # the lock wins
    bundler.update()
    assert _lock(project)["dependencies"][0]["version"] == second


def test_install_with_new_version_replaces_lock_entry(
    server: Server, bundler: Bundler, project: Path
) -> None:
    repo = _libs(server)
    old = repo.commit({"util/x.libsonnet": "1\n"})
    repo.tag("v1")
    new = repo.commit({"util/x.libsonnet": "2\n"})
    repo.tag("v2", annotated=True)
    bundler.init()
    bundler.install([f"{LIB}/util@v1"])
    assert _lock(project)["dependencies"][0]["version"] == old

    outcome = bundler.install([f"{LIB}/util@v2"])

    assert _lock(project)["dependencies"][0]["version"] == new  # the commit, not the tag object
    assert outcome.old_locks[f"{LIB}/util"].version == old
    assert (project / "vendor" / LIB / "util" / "x.libsonnet").read_text() == "2\n"


def test_install_by_commit_sha_full_and_short(
    server: Server, bundler: Bundler, project: Path
) -> None:
    repo = _libs(server)
    pinned = repo.commit({"util/x.libsonnet": "pinned\n"})
    repo.commit({"util/x.libsonnet": "later\n"})
    bundler.init()
    bundler.install([f"{LIB}/util@{pinned[:10]}"])  # short SHAs need the full-fetch fallback
    assert _lock(project)["dependencies"][0]["version"] == pinned
    bundler.install([f"{LIB}/util@{pinned}"])
    assert _lock(project)["dependencies"][0]["version"] == pinned


def test_update_moves_branches_to_their_tip(
    server: Server, bundler: Bundler, project: Path
) -> None:
    libs = _libs(server)
    other = server.repo("github.com/acme/other")
    other_first = other.commit({"o.libsonnet": "1\n"})
    bundler.init()
    bundler.install([f"{LIB}/util", "github.com/acme/other"])
    declared_before = (project / spec.JSONNETFILE).read_bytes()
    tip = libs.commit({"util/main.libsonnet": "{ v: 3 }\n"})
    other.commit({"o.libsonnet": "2\n"})

    outcome = bundler.update([f"{LIB}/util"])  # only the named package moves

    locks = {d["source"]["git"]["remote"]: d["version"] for d in _lock(project)["dependencies"]}
    assert locks == {f"https://{LIB}.git": tip, "https://github.com/acme/other.git": other_first}
    assert (project / "vendor" / LIB / "util" / "main.libsonnet").read_text() == "{ v: 3 }\n"
    assert (project / spec.JSONNETFILE).read_bytes() == declared_before
    assert [d.name for d in outcome.downloads] == [f"{LIB}/util"]


def test_update_requires_a_lock_and_reports_unknown_names(server: Server, bundler: Bundler) -> None:
    _libs(server)
    bundler.init()
    with pytest.raises(JbError, match=r"no jsonnetfile.lock.json .* run jb_install first"):
        bundler.update()
    bundler.install([f"{LIB}/util"])
    outcome = bundler.update(["github.com/acme/unknown"])
    assert outcome.downloads == []
    assert "not installed" in outcome.notes[0]


def test_transitive_dependencies_flat_lock_first_wins(
    server: Server, bundler: Bundler, project: Path
) -> None:
    base = server.repo("github.com/acme/base")
    base_v1 = base.commit({"base.libsonnet": "1\n"})
    base.tag("v1")
    base_v2 = base.commit({"base.libsonnet": "2\n"})
    base.tag("v2")

    def dependent(slug: str, base_version: str) -> None:
        repo = server.repo(slug)
        jf = spec.JsonnetFile()
        jf.add(_git_dep(f"github.com/acme/base@{base_version}"))
        repo.commit({"jsonnetfile.json": spec.dump(jf).decode(), "x.libsonnet": slug + "\n"})

    dependent("github.com/acme/one", "v1")
    dependent("github.com/acme/two", "v2")
    bundler.init()
    bundler.install(["github.com/acme/one", "github.com/acme/two"])

    locks = {d["source"]["git"]["remote"]: d["version"] for d in _lock(project)["dependencies"]}
    assert locks["https://github.com/acme/base.git"] == base_v1  # one is listed first
    assert len(locks) == 3
    assert (project / "vendor/github.com/acme/base/base.libsonnet").read_text() == "1\n"
    declared = json.loads((project / spec.JSONNETFILE).read_text())
    assert len(declared["dependencies"]) == 2  # transitive ones live in the lock only
    assert base_v2 != base_v1


def test_dependency_cycle_terminates(server: Server, bundler: Bundler, project: Path) -> None:
    for me, other in (("a", "b"), ("b", "a")):
        jf = spec.JsonnetFile()
        jf.add(_git_dep(f"github.com/cyc/{other}"))
        server.repo(f"github.com/cyc/{me}").commit({"jsonnetfile.json": spec.dump(jf).decode()})
    bundler.init()
    outcome = bundler.install(["github.com/cyc/a"])
    assert sorted(d.name for d in outcome.downloads) == ["github.com/cyc/a", "github.com/cyc/b"]


def test_single_skips_nested_dependencies(server: Server, bundler: Bundler, project: Path) -> None:
    server.repo("github.com/acme/base").commit({"b.libsonnet": "1\n"})
    jf = spec.JsonnetFile()
    jf.add(_git_dep("github.com/acme/base"))
    server.repo("github.com/acme/top").commit({"jsonnetfile.json": spec.dump(jf).decode()})
    (project / spec.JSONNETFILE).write_text(
        '{"version": 1, "dependencies": [{"source": {"git": {"remote": '
        '"https://github.com/acme/top.git", "subdir": ""}}, "version": "master", "single": true}]}'
    )
    bundler.install()
    assert [d["source"]["git"]["remote"] for d in _lock(project)["dependencies"]] == [
        "https://github.com/acme/top.git"
    ]
    assert _lock(project)["dependencies"][0]["single"] is True


def test_stale_vendor_entries_are_removed(server: Server, bundler: Bundler, project: Path) -> None:
    _libs(server)
    bundler.init()
    (project / "vendor/github.com/gone/pkg").mkdir(parents=True)
    (project / "vendor/github.com/gone/pkg/f").write_text("x")
    outcome = bundler.install([f"{LIB}/util"])
    assert not (project / "vendor/github.com/gone").exists()
    assert outcome.housekeeping.cleaned == ["github.com/gone"]


def test_legacy_links_off_and_collisions(server: Server, bundler: Bundler, project: Path) -> None:
    _libs(server)
    server.repo("github.com/other/util").commit({"u.libsonnet": "other\n"})
    bundler.init()
    outcome = bundler.install([f"{LIB}/util", "github.com/other/util"])
    assert os.readlink(project / "vendor/util") == f"{LIB}/util"  # first come wins
    assert len(outcome.housekeeping.warnings) == 1
    assert "already uses that name" in outcome.housekeeping.warnings[0]

    declared = json.loads((project / spec.JSONNETFILE).read_text())
    declared["legacyImports"] = False
    (project / spec.JSONNETFILE).write_text(json.dumps(declared))
    bundler.install()
    assert not (project / "vendor/util").is_symlink()


def test_local_package_is_linked(server: Server, bundler: Bundler, project: Path) -> None:
    (project / "lib" / "mine").mkdir(parents=True)
    (project / "lib" / "mine" / "m.libsonnet").write_text("{}\n")
    bundler.init()
    bundler.install(["lib/mine"])
    assert os.readlink(project / "vendor" / "mine") == "../lib/mine"
    assert (project / "vendor" / "mine" / "m.libsonnet").read_text() == "{}\n"
    [entry] = _lock(project)["dependencies"]
    assert entry == {"source": {"local": {"directory": "lib/mine"}}, "version": ""}


def _git_dep(uri: str) -> Dependency:
    dep = parse_git(uri)
    assert dep is not None
    return dep
