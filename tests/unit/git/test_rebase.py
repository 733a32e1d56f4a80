"""A session's change moved to a newer base: the 3-way re-apply and Workspaces.rebase (real git)."""

from __future__ import annotations

from pathlib import Path

from bot.domain.sessions import Session
from bot.git.rebase import reapply
from bot.store.memory import MemoryStore
from bot.workspace.repo_cache import RepoCache
from bot.workspace.workspaces import Workspaces, patch_blob
from tests.unit.git.conftest import commit_file, git

PROD = "environments/prod/main.jsonnet"
LIB = "lib/app.libsonnet"


def _edit(root: Path, rel: str, content: str) -> None:
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text(content)


def test_reapply_merges_a_change_onto_a_base_that_moved_elsewhere(
    origin: Path, dev_clone: Path, tmp_path: Path
) -> None:
    cache = RepoCache(tmp_path / "work", str(origin))
    old = cache.start("S1", base_branch="main", branch="tanka-bot/s1")
    _edit(old.root, PROD, "{ replicas: 5 }\n")
    _edit(old.root, "environments/dev/main.jsonnet", "{ replicas: 1 }\n")  # a new file
    patch = old.save_patch()
    commit_file(dev_clone, LIB, "{ image: 'app:2' }\n", "bump image")
    cache.fetch()
    new = cache.restore("S2", base_commit=cache.commit_of("main"), branch="b", patch=b"")

    assert reapply(new, patch) == ()
    assert (new.root / PROD).read_text() == "{ replicas: 5 }\n"
    assert (new.root / LIB).read_text() == "{ image: 'app:2' }\n"
    assert (new.root / "environments/dev/main.jsonnet").exists()
    assert git(new.root, "diff", "--cached", "--name-only") == ""  # index left at HEAD
    assert sorted(new.diff("--name-only").split()) == ["environments/dev/main.jsonnet", PROD]


def test_reapply_names_the_files_changed_on_both_sides(
    origin: Path, dev_clone: Path, tmp_path: Path
) -> None:
    cache = RepoCache(tmp_path / "work", str(origin))
    old = cache.start("S1", base_branch="main", branch="tanka-bot/s1")
    _edit(old.root, PROD, "{ replicas: 5 }\n")
    _edit(old.root, LIB, "{ image: 'app:3' }\n")
    patch = old.save_patch()
    commit_file(dev_clone, PROD, "{ replicas: 4 }\n", "scale prod")
    cache.fetch()
    new = cache.restore("S2", base_commit=cache.commit_of("main"), branch="b", patch=b"")

    assert reapply(new, patch) == (PROD,)


def _session(workspaces: Workspaces) -> tuple[Session, Path]:
    session = Session(channel="C1", thread_ts="1.2", requester="U1", request="scale prod",
                      created=0, updated=0, base_branch="main", branch="tanka-bot/1-2")  # fmt: skip
    checkout = workspaces.open(session)
    _edit(checkout.root, PROD, "{ replicas: 5 }\n")
    workspaces.save(session, checkout)
    return session, checkout.root


def test_workspaces_rebase_moves_base_and_patch_when_clean(
    origin: Path, dev_clone: Path, tmp_path: Path
) -> None:
    store = MemoryStore()
    workspaces = Workspaces(RepoCache(tmp_path / "work", str(origin)), store,
                            base_branch="main", ttl=60)  # fmt: skip
    session, _ = _session(workspaces)
    old = session.base_commit
    assert workspaces.rebase(session).checkout is None  # main has not moved: nothing to do
    assert session.revision == 1

    new = commit_file(dev_clone, LIB, "{ image: 'app:2' }\n", "bump image")
    done = workspaces.rebase(session)

    assert (done.old_base, done.new_base, done.conflicts) == (old, new, ())
    assert done.checkout is not None
    assert session.base_commit == new
    assert session.revision == 2
    stored = store.get_blob(patch_blob(session)) or b""
    assert PROD.encode() in stored
    assert LIB.encode() not in stored  # the patch is relative to the new base
    reopened = workspaces.open(session)
    assert reopened.head() == new
    assert (reopened.root / LIB).read_text() == "{ image: 'app:2' }\n"


def test_workspaces_rebase_keeps_the_session_on_a_conflict(
    origin: Path, dev_clone: Path, tmp_path: Path
) -> None:
    store = MemoryStore()
    workspaces = Workspaces(RepoCache(tmp_path / "work", str(origin)), store,
                            base_branch="main", ttl=60)  # fmt: skip
    session, _ = _session(workspaces)
    old, patch = session.base_commit, store.get_blob(patch_blob(session))
    commit_file(dev_clone, PROD, "{ replicas: 4 }\n", "scale prod")

    done = workspaces.rebase(session)

    assert done.conflicts == (PROD,)
    assert done.checkout is None
    assert (session.base_commit, session.revision) == (old, 1)
    assert store.get_blob(patch_blob(session)) == patch
    reopened = workspaces.open(session)  # rebuilt from the stored patch on the old base
    assert reopened.head() == old
    assert (reopened.root / PROD).read_text() == "{ replicas: 5 }\n"
