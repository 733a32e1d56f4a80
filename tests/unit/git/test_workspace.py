"""RepoCache and Checkout against a real bare origin: clone, fetch, checkouts, patches."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from freezegun import freeze_time

from bot.workspace.repo_cache import GitError, RepoCache
from tests.unit.git.conftest import commit_file, git


def tree_of(root: Path) -> dict[str, tuple[str, bytes]]:
    """Every entry below root except .git: kind/mode and content (symlink target for links)."""
    found: dict[str, tuple[str, bytes]] = {}
    for current, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in files + [d for d in dirs if (Path(current) / d).is_symlink()]:
            path = Path(current) / name
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                found[rel] = ("link", os.readlink(path).encode())
            else:
                mode = "exec" if path.stat().st_mode & stat.S_IXUSR else "file"
                found[rel] = (mode, path.read_bytes())
    return found


def test_start_clones_once_and_pins_the_base_commit(origin: Path, tmp_path: Path) -> None:
    cache = RepoCache(tmp_path / "work", str(origin))
    assert cache.problem() is not None
    checkout = cache.start("T1", base_branch="main", branch="tanka-bot/t1-scale")
    assert cache.problem() is None
    assert checkout.base_commit == git(origin, "rev-parse", "main")
    assert checkout.head() == checkout.base_commit
    assert git(checkout.root, "branch", "--show-current") == "tanka-bot/t1-scale"
    assert (checkout.root / "lib/app.libsonnet").read_text() == "{ image: 'app:1' }\n"
    # objects are borrowed from the cache, not copied
    alternates = checkout.root / ".git/objects/info/alternates"
    assert Path(alternates.read_text().strip()).resolve() == (cache.path / "objects").resolve()
    assert not checkout.has_changes()


def test_fetch_brings_new_commits_while_old_checkouts_stay_pinned(
    origin: Path, dev_clone: Path, tmp_path: Path
) -> None:
    cache = RepoCache(tmp_path / "work", str(origin))
    first = cache.start("a", base_branch="main", branch="s/a")
    newer = commit_file(dev_clone, "lib/new.libsonnet", "{}\n", "more")
    assert cache.refresh_if_older(3600) is False
    assert cache.commit_of("main") == first.base_commit
    cache.fetch()
    assert cache.commit_of("main") == newer
    second = cache.start("b", base_branch="main", branch="s/b")
    assert second.base_commit == newer
    assert (second.root / "lib/new.libsonnet").exists()
    assert not (first.root / "lib/new.libsonnet").exists()
    assert cache.refresh_if_older(3600) is False  # fetched just now
    with freeze_time(datetime.now(UTC) + timedelta(seconds=3601)):  # an hour after that fetch
        assert cache.refresh_if_older(3600) is True


def test_errors_name_the_git_command(origin: Path, tmp_path: Path) -> None:
    cache = RepoCache(tmp_path / "work", str(origin))
    with pytest.raises(GitError, match=r"git rev-parse failed: branch 'nope' does not exist"):
        cache.start("x", base_branch="nope", branch="s/x")
    with pytest.raises(GitError, match=r"git check-ref-format failed"):
        cache.start("x", base_branch="main", branch="bad..name")
    with pytest.raises(GitError, match="session name"):
        cache.session_path("../escape")
    missing = RepoCache(tmp_path / "other", str(tmp_path / "no-such-repo"))
    with pytest.raises(GitError, match=r"git clone failed \(exit 128\)"):
        missing.ensure()
    assert not list((tmp_path / "other" / "cache").glob("*.git"))


def test_patch_rebuilds_the_checkout_elsewhere(origin: Path, tmp_path: Path) -> None:
    cache = RepoCache(tmp_path / "machine-a", str(origin))
    work = cache.start("s", base_branch="main", branch="tanka-bot/s")
    root = work.root
    (root / "environments/prod/main.jsonnet").write_text("{ replicas: 5 }\n")
    (root / "environments/stg").mkdir()
    (root / "environments/stg/main.jsonnet").write_text("{ replicas: 1 }\n")
    (root / "lib/app.libsonnet").unlink()
    (root / "logo.png").write_bytes(bytes(range(256)) * 4)
    (root / "latin1.txt").write_bytes(b"caf\xe9\r\n")
    (root / "run.sh").write_text("#!/bin/sh\n")
    (root / "run.sh").chmod(0o755)
    (root / "current").symlink_to("environments/stg")
    patch = work.save_patch()
    expected = tree_of(root)

    other = RepoCache(tmp_path / "machine-b", str(origin))
    rebuilt = other.restore("s", base_commit=work.base_commit, branch="tanka-bot/s", patch=patch)
    assert tree_of(rebuilt.root) == expected
    assert rebuilt.save_patch() == patch
    assert rebuilt.diff("--stat") == work.diff("--stat")


def test_restore_of_an_empty_patch_is_the_base(origin: Path, tmp_path: Path) -> None:
    cache = RepoCache(tmp_path / "w", str(origin))
    base = cache.commit_of("main")
    checkout = cache.restore("e", base_commit=base, branch="b", patch=b"")
    assert not checkout.has_changes()


def test_a_bad_patch_fails_clearly_and_leaves_nothing(origin: Path, tmp_path: Path) -> None:
    cache = RepoCache(tmp_path / "w", str(origin))
    base = cache.commit_of("main")
    with pytest.raises(GitError, match="git apply failed"):
        cache.restore("p", base_commit=base, branch="b", patch=b"diff --git a/x b/x\ngarbage\n")
    assert not cache.session_path("p").exists()


def test_discard_removes_the_checkout(origin: Path, tmp_path: Path) -> None:
    cache = RepoCache(tmp_path / "w", str(origin))
    checkout = cache.start("d", base_branch="main", branch="b")
    cache.discard("d")
    assert not checkout.root.exists()
    cache.discard("d")  # idempotent


def test_concurrent_fetches_and_checkouts_keep_the_cache_sound(
    origin: Path, dev_clone: Path, tmp_path: Path
) -> None:
    workdir = tmp_path / "work"
    cache = RepoCache(workdir, str(origin))
    cache.ensure()
    commit_file(dev_clone, "lib/c.libsonnet", "{}\n", "concurrent")
    errors: list[BaseException] = []

    def worker(index: int) -> None:
        try:
            RepoCache(workdir, str(origin)).fetch()
            RepoCache(workdir, str(origin)).start(f"t{index}", base_branch="main", branch="b")
        except BaseException as exc:
            errors.append(exc)

    # other processes fetch at the same time (replicas sharing a volume)
    code = (
        "import sys; from pathlib import Path; from bot.workspace.repo_cache import RepoCache;"
        "[RepoCache(Path(sys.argv[1]), sys.argv[2]).fetch() for _ in range(3)]"
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", code, str(workdir), str(origin)]) for _ in range(2)
    ]
    threads = [threading.Thread(target=worker, args=(i,)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [proc.wait(timeout=120) for proc in procs] == [0, 0]
    assert errors == []
    git(cache.path, "fsck", "--strict")
    assert all((workdir / "sessions" / f"t{i}/lib/c.libsonnet").exists() for i in range(6))


def test_spares_are_claimed_and_moved_to_the_current_base(
    origin: Path, dev_clone: Path, tmp_path: Path
) -> None:
    cache = RepoCache(tmp_path / "work", str(origin))
    assert cache.replenish(2) == 2
    assert cache.replenish(2) == 0
    newer = commit_file(dev_clone, "lib/later.libsonnet", "{ later: true }\n", "later")
    cache.fetch()
    checkout = cache.start("sp", base_branch="main", branch="tanka-bot/sp")
    assert len(list(cache.spares_dir.iterdir())) == 1  # one spare was used
    assert checkout.head() == newer
    assert (checkout.root / "lib/later.libsonnet").read_text() == "{ later: true }\n"
    assert git(checkout.root, "status", "--porcelain") == ""
    assert git(checkout.root, "branch", "--show-current") == "tanka-bot/sp"


def test_a_spare_at_the_base_commit_only_gets_its_branch(origin: Path, tmp_path: Path) -> None:
    cache = RepoCache(tmp_path / "work", str(origin))
    assert cache.replenish(1) == 1
    spare = next(cache.spares_dir.iterdir())
    index = (spare / ".git" / "index").stat().st_mtime_ns
    checkout = cache.start("sp", base_branch="main", branch="tanka-bot/sp")
    # No checkout pass over the files: the spare's index is as replenish left it.
    assert (checkout.root / ".git" / "index").stat().st_mtime_ns == index
    assert checkout.head() == cache.commit_of("main")
    assert git(checkout.root, "branch", "--show-current") == "tanka-bot/sp"
    assert git(checkout.root, "status", "--porcelain") == ""


def test_a_session_takes_the_spare_being_made_rather_than_writing_its_own(
    origin: Path, tmp_path: Path
) -> None:
    """Right after start-up a session may come before the first spare is ready: it waits for
    that one rather than writing the repository's files a second time beside it."""
    cache = RepoCache(tmp_path / "work", str(origin))
    cache.ensure()
    entered, waiting = threading.Event(), threading.Event()

    class Watched(threading.Condition):
        def wait(self, timeout: float | None = None) -> bool:
            waiting.set()
            return super().wait(timeout)

    cache._spare_made = Watched()
    clones: list[Path] = []
    clone_into = cache._clone_into

    def observed(dest: Path) -> None:
        clones.append(dest.parent)
        if dest.parent == cache.spares_dir:
            entered.set()
            assert waiting.wait(30)  # the spare is finished once the session waits for it
        clone_into(dest)

    cache._clone_into = observed  # type: ignore[method-assign]
    making = threading.Thread(target=cache.replenish, args=(1,))
    making.start()
    assert entered.wait(30)
    checkout = cache.start("s1", base_branch="main", branch="tanka-bot/s1")
    making.join(30)
    assert clones == [cache.spares_dir]  # one checkout written: the spare the session took
    assert [p for p in cache.spares_dir.iterdir() if not p.name.startswith(".")] == []
    assert checkout.head() == cache.commit_of("main")
    assert git(checkout.root, "status", "--porcelain") == ""


def index_entry_mtimes(root: Path) -> list[int]:
    """The mtime (whole seconds) git cached for each file of the checkout's index."""
    out = git(root, "ls-files", "--debug")
    return [int(line.split()[1].split(":")[0]) for line in out.splitlines()
            if line.strip().startswith("mtime:")]  # fmt: skip


def test_a_spare_index_trusts_its_files_stat_data(origin: Path, tmp_path: Path) -> None:
    # git re-hashes every file modified in the same second as the index each time it compares
    # the working tree; a spare's index must be newer than every file it lists.
    cache = RepoCache(tmp_path / "work", str(origin))
    assert cache.replenish(1) == 1
    spare = next(cache.spares_dir.iterdir())
    written = int((spare / ".git" / "index").stat().st_mtime)
    mtimes = index_entry_mtimes(spare)
    assert mtimes
    assert max(mtimes) < written
    assert git(spare, "status", "--porcelain") == ""


def test_a_relative_workdir_works(
    origin: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # TANKA_BOT_WORKDIR=./work is a natural setting; git runs in other directories.
    monkeypatch.chdir(tmp_path)
    cache = RepoCache(Path("work"), str(origin))
    checkout = cache.start("s1", base_branch="main", branch="tanka-bot/s1")
    assert checkout.root.is_absolute()
    assert checkout.root.is_relative_to(tmp_path / "work")
    assert (checkout.root / ".git").exists()
