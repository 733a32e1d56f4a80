"""Read-only copies of a commit's files, cached by commit id: the "before" side of a rendered diff.

A commit is materialised with a throwaway index (`git read-tree` + `git checkout-index
--prefix`), so the repository's own index, HEAD and worktree list are never touched, symlinks stay
symlinks, and `export-ignore` attributes (which `git archive` would honour) cannot drop files an
environment imports. A tree is built in a temporary directory and renamed into place, so a reader
never sees half a tree; the least recently used trees beyond `keep` are deleted.

Many Tanka repositories do not commit `vendor/` (jb installs it; .gitignore lists it). A commit's
files alone would then fail to render, so when the working tree has an ignored `vendor/` next to a
`jsonnetfile.json` that the commit also has, it is copied into the tree (symlinks kept). The copy
is what `jb install` produced in the checkout: the right content as long as the change does not
update dependencies - a diff of a dependency update shows both sides with the new vendor/.

A commit may also be *viewed* through another commit's tree instead of getting its own (`view`,
`add_view`): when the two hold the same paths, of the same types, and every file that differs
either is read by no environment's import resolution or imports the same paths in both (a base
move touching Go code, docs, a library's code), the other tree answers where environments are
and what they import alike. Evaluations and read sets need the contents: an evaluation always
gets the commit's own tree (`tree`), and a read set is asked of the view only when it read no
file that differs. Building a tree links every file of the repository (Tempo: 15k, most of a
second); a view is one small file.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path

from tools.gitrun import Git, GitError
from tools.tanka.errors import TankaError

GIT_TIMEOUT = 120.0
DEFAULT_KEEP = 4
_EVICTED = ".evicted-"  # an evicted tree on its way out (hidden: never taken for a commit's)
VIEW = "view"  # the sidecar naming the commit whose tree a commit is viewed through


class RevisionError(TankaError):
    """A revision that cannot be resolved or read (bad name, not a git repository)."""


def git(repo: Path, *args: str, env: dict[str, str] | None = None) -> str:
    """stdout of `git <args>` in `repo` (tools.gitrun's isolation); RevisionError on failure."""
    try:
        result = Git(repo, GIT_TIMEOUT, env=env or {}).result(*args)
    except GitError as exc:
        raise RevisionError(f"git {args[0]} failed: {exc.reason}") from None
    if not result.ok:
        reason = result.error_text() or f"exit status {result.returncode}"
        raise RevisionError(f"git {args[0]} failed in {repo}: {reason}")
    return result.stdout.decode("utf-8", errors="surrogateescape")


def resolve_commit(repo: Path, rev: str) -> str:
    """The full commit id `rev` names in `repo`."""
    if not rev or rev.startswith("-"):
        raise RevisionError(f"invalid revision {rev!r}; give a commit, branch or tag name")
    try:
        return git(repo, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}").strip()
    except RevisionError:
        raise RevisionError(
            f"unknown revision {rev!r} in {repo}; give a commit, branch or tag that exists there "
            "(fetch it first if it is remote)"
        ) from None


def default_cache_dir() -> Path:
    return Path(tempfile.gettempdir()) / f"tanka-bot-base-trees-{os.getuid()}"


class BaseTrees:
    """Materialised commits under `cache_dir/<commit id>`, at most `keep` of them."""

    def __init__(self, cache_dir: Path | None = None, *, keep: int = DEFAULT_KEEP) -> None:
        # Absolute: git runs inside the repository, where a relative path would land in the repo.
        self.cache_dir = Path(os.path.abspath(cache_dir or default_cache_dir()))
        self.keep = max(1, keep)
        self._lock = threading.Lock()
        self.materialised = 0  # how many trees this object built (observability, tests)
        self.linked = 0  # how many of those were made from another commit's tree

    def tree(self, repo: Path, commit: str) -> Path:
        """The directory holding `commit`'s files (a full commit id from resolve_commit), plus
        the ignored vendor/ directories of `repo`'s working tree that the commit lacks."""
        target = self.cache_dir / commit
        with self._lock:
            if target.is_dir():
                os.utime(target)  # mark as recently used
                return target
            self.cache_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
            self._build(repo, commit, target)
            os.utime(target)  # a linked copy kept its source's time: it is the newest now
            self.materialised += 1
            self._evict(keep=target)
            return target

    def view(self, commit: str) -> Path | None:
        """The tree `commit` is viewed through (module docstring), if it has one and that tree
        is still there; marked as recently used, as `tree` marks the trees it returns."""
        target = self._viewed_through(commit)
        if target is not None:
            with contextlib.suppress(OSError):
                os.utime(target)
        return target

    def _viewed_through(self, commit: str) -> Path | None:
        try:
            through = self.sidecar(commit, VIEW).read_text("utf-8").strip()
        except OSError:
            return None
        target = self.cache_dir / through
        return target if through and not through.startswith(".") and target.is_dir() else None

    def add_view(self, commit: str, through: Path) -> None:
        """Record that `commit` is viewed through `through`, a tree of this cache whose files
        differ from the commit's only in ways no import resolution sees (module docstring)."""
        write_atomically(self.sidecar(commit, VIEW), through.name)

    def existing(self, commit: str) -> Path | None:
        """The tree standing for `commit` here, if any, without building one: its own, else
        the one it is viewed through."""
        own = self.cache_dir / commit
        return own if own.is_dir() else self.view(commit)

    def sidecar(self, commit: str, name: str) -> Path:
        """A file that belongs to `commit`'s tree (e.g. its import index): deleted when the tree
        is rebuilt or evicted, so it can never describe other content than the tree's."""
        return self.cache_dir / f"{commit}.{name}"

    def _sidecars(self, commit: str) -> list[Path]:
        return [p for p in self.cache_dir.glob(f"{commit}.*") if p.is_file()]

    def _drop_sidecars(self, commit: str) -> None:
        for sidecar in self._sidecars(commit):
            sidecar.unlink(missing_ok=True)

    def _build(self, repo: Path, commit: str, target: Path) -> None:
        # A viewed commit's sidecars describe the commit's files alone, as this tree will,
        # unless an ignored vendor/ is copied in (below); any other's were left by an evicted
        # or half-deleted tree.
        viewed = self.sidecar(commit, VIEW).is_file()
        if not viewed:
            self._drop_sidecars(commit)
        staging = Path(tempfile.mkdtemp(prefix=f".{commit[:12]}-", dir=self.cache_dir))
        try:
            env = {"GIT_INDEX_FILE": str(staging / ".index")}
            # A bare repository (the service's repo cache) has no working tree, hence no
            # ignored vendor/ either; git only needs to be told where files may be written.
            bare = git(repo, "rev-parse", "--is-bare-repository").strip() == "true"
            if bare:
                env["GIT_WORK_TREE"] = str(staging)
            tree = staging / "tree"
            git(repo, "read-tree", commit, env=env)
            # An ignored vendor/ may be copied in below: then the tree is not the commit's files
            # alone, and is made (and later copied from) only in full.
            vendors = [] if bare else ignored_vendors(repo)
            if vendors or not self._from_previous(repo, commit, tree, env):
                git(repo, "checkout-index", "--all", "--force", f"--prefix={tree}/", env=env)
            tree.mkdir(exist_ok=True)  # an empty commit has no files at all
            if _copy_ignored_vendor(repo, tree, vendors):
                self._drop_sidecars(commit)
                self.sidecar(commit, "vendored").write_bytes(b"")
            try:
                tree.rename(target)
            except OSError:
                if not target.is_dir():  # not a concurrent build of the same commit: a real error
                    raise
            self.sidecar(commit, VIEW).unlink(missing_ok=True)  # it has its own tree now
        finally:
            shutil.rmtree(staging, ignore_errors=True)

    def _from_previous(self, repo: Path, commit: str, tree: Path, env: dict[str, str]) -> bool:
        """Make `tree` from the most recently used tree of another commit: hard links to its
        files (trees are never written to), then only the files that differ between the two
        commits checked out again. From one base commit to the next most files of a big
        repository stay as they were, and linking them is several times faster than writing
        them. False, with nothing left behind, when there is no such tree or it fails."""
        previous = self._latest(but=commit)
        if previous is None:
            return False
        try:
            listed = git(repo, "diff", "--name-status", "--no-renames", "-z", previous.name,
                         commit, "--")  # fmt: skip
            copied = subprocess.run(["cp", "-a", "-l", "--", str(previous), str(tree)],
                                    capture_output=True, check=False)  # fmt: skip
        except (RevisionError, OSError):
            return False
        fields = listed.split("\0")
        changes = [(status, path) for status, path in zip(fields[0::2], fields[1::2], strict=False)
                   if path]  # fmt: skip
        written = [path for status, path in changes if status != "D"]
        ok = copied.returncode == 0
        try:
            # Deletions first: a directory that becomes a file (or a symlink) must be gone.
            for path in [path for status, path in changes if status == "D"] + written:
                _unlink(tree, path, prune=path not in written)
        except OSError:
            ok = False
        if ok and written:
            ok = Git(repo, GIT_TIMEOUT, env=env).result(
                "checkout-index", "--force", f"--prefix={tree}/", "-z", "--stdin",
                input_bytes="\0".join(written).encode("utf-8", errors="surrogateescape"),
            ).ok  # fmt: skip
        if not ok:
            shutil.rmtree(tree, ignore_errors=True)
            return False
        self.linked += 1
        return True

    def _latest(self, but: str) -> Path | None:
        """The most recently used complete tree of a commit other than `but`, made from the
        commit's files alone."""
        trees = [
            p
            for p in self.cache_dir.iterdir()
            if p.is_dir() and not p.name.startswith(".") and p.name != but
            and not self.sidecar(p.name, "vendored").exists()
        ]  # fmt: skip
        return max(trees, key=lambda p: p.stat().st_mtime, default=None)

    def _evict(self, keep: Path) -> None:
        """Drop the least recently used trees beyond `keep`: each is renamed out of the way at
        once (so no reader finds it under its commit) and deleted by a detached `rm`, since
        unlinking a big repository's files (Tempo: 15k, ~2 s) would hold up the diff that made
        the new tree. A removal cut short is finished by the next eviction."""
        trees = [p for p in self.cache_dir.iterdir() if p.is_dir() and not p.name.startswith(".")]
        trees.sort(key=lambda p: p.stat().st_mtime, reverse=True)
        doomed = [p for p in self.cache_dir.iterdir() if p.name.startswith(_EVICTED)]
        for old in trees[self.keep :]:
            if old != keep:
                self._drop_sidecars(old.name)
                moved = self.cache_dir / f"{_EVICTED}{old.name}-{os.getpid()}-{id(old):x}"
                try:
                    old.rename(moved)
                except OSError:  # renamed or deleted by a concurrent eviction, or not movable
                    shutil.rmtree(old, ignore_errors=True)
                    continue
                doomed.append(moved)
        # A commit viewed through a tree that is gone goes with it (or its files would pile up).
        for view in self.cache_dir.glob(f"*.{VIEW}"):
            commit = view.name.removesuffix(f".{VIEW}")
            if not (self.cache_dir / commit).is_dir() and self._viewed_through(commit) is None:
                self._drop_sidecars(commit)
        if doomed:
            _remove_detached(doomed)


class LazyTree:
    """A commit's files for one diff. `root` answers where environments are and what they
    import: the commit's own tree, or the one it is viewed through. `tree()` is its own tree,
    built on the first call: only an evaluation needs it."""

    def __init__(self, trees: BaseTrees, repo: Path, commit: str, view: Path | None = None):
        self._trees, self._repo, self.commit = trees, repo, commit
        self.root = view if view is not None else trees.tree(repo, commit)
        self.viewed = view is not None  # its own tree not built yet (when this was made)

    def tree(self) -> Path:
        return self._trees.tree(self._repo, self.commit)


def _remove_detached(paths: list[Path]) -> None:
    """Delete `paths` in the background, in an `rm -rf` that outlives this process (a `tk diff`
    ends long before a big tree is unlinked); in this process when no shell can start one."""
    script = 'rm -rf -- "$@" </dev/null >/dev/null 2>&1 &'
    try:
        subprocess.run(
            ["sh", "-c", script, "sh", *map(str, paths)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            check=True, timeout=GIT_TIMEOUT,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        for path in paths:
            shutil.rmtree(path, ignore_errors=True)


def ignored_vendors(repo: Path) -> list[str]:
    """The working tree's ignored vendor/ directories (repository-relative): copied into the
    trees made from this checkout, which are then not the commits' files alone."""
    listed = git(repo, "ls-files", "--others", "--ignored", "--exclude-standard", "--directory")
    found = []
    for entry in listed.splitlines():
        rel = entry.rstrip("/")
        if Path(rel).name == "vendor" and ".." not in Path(rel).parts and (repo / rel).is_dir():
            found.append(rel)
    return found


def _copy_ignored_vendor(repo: Path, tree: Path, vendors: list[str]) -> bool:
    """Copy each of `vendors` the tree lacks beside a jsonnetfile.json it has; whether any was."""
    copied = False
    for rel in vendors:
        target = tree / rel
        if not target.exists() and (target.parent / "jsonnetfile.json").is_file():
            shutil.copytree(repo / rel, target, symlinks=True)
            copied = True
    return copied


def _unlink(tree: Path, rel: str, *, prune: bool) -> None:
    """Remove a linked file before it is written again (so the other tree keeps its copy), and,
    for a deleted file, the directories it leaves empty (a fresh checkout has none)."""
    path = tree / rel
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    if not prune:
        return
    parent = path.parent
    while parent != tree:
        try:
            parent.rmdir()
        except OSError:
            return
        parent = parent.parent


def write_atomically(file: Path, text: str) -> None:
    """Write a sidecar: readers see no file or a whole one; a failed write only loses a cache."""
    try:
        handle, staging = tempfile.mkstemp(prefix=f".{file.name}-", dir=file.parent)
    except OSError:
        return
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(staging, file)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(staging)
