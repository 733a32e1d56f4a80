"""Fetch one git package at one version into a private work directory.

Like jb's git package: a shallow fetch of the version first (branch, tag or full SHA),
the whole repository only when that fails (short SHAs, servers refusing SHA wants); the locked
version is the commit SHA. Unlike jb, the files come out of `git archive` through Python's
tarfile `data` filter rather than a checkout, so nothing the repository holds (absolute or
climbing symlinks, odd file types) can reach outside the work directory. Symlinks that stay
inside the tree count towards the sum as jb counts them, and are then removed, as jb's vendor
clean-up removes every symlink inside packages.
"""

from __future__ import annotations

import os
import tarfile
from dataclasses import dataclass, field
from pathlib import Path

from tools.jb.deps import GitSource
from tools.jb.errors import JbError
from tools.jb.gitrun import GitRunner, last_line
from tools.jb.sum import hash_dir

# Shown when a version is missing, so the fix is one call away.
_MAX_REFS_SHOWN = 12
# Our attributes beat the repository's: export-ignore/export-subst would make `git archive`
# differ from the checkout jb hashes.
_ATTRIBUTES = "* -export-ignore -export-subst\n"


@dataclass(frozen=True, slots=True)
class Fetched:
    commit: str
    path: Path  # the package's files (the subdir, if any), ready to move into vendor/
    sum: str
    dropped_links: tuple[str, ...] = field(default=())


def fetch_package(git: GitRunner, source: GitSource, version: str, workdir: Path) -> Fetched:
    """Download `source` at `version` below `workdir` (which the caller owns and removes)."""
    repo = workdir / "repo"
    repo.mkdir(parents=True)
    _git(git, ["init", "-q", "--template=", "."], repo, f"cannot create a git repository in {repo}")
    (repo / ".git" / "info").mkdir(exist_ok=True)
    (repo / ".git" / "info" / "attributes").write_text(_ATTRIBUTES)
    commit = _fetch_commit(git, source, version, repo)
    tree = workdir / "tree"
    _export(git, source, version, commit=commit, repo=repo, tree=tree)
    package = tree / source.subdir.lstrip("/") if source.subdir else tree
    _check_package_dir(package, tree, source, version)
    sum_ = hash_dir(package, confine=tree)
    dropped = _remove_symlinks(package)
    return Fetched(commit, package, sum_, dropped)


def _git(git: GitRunner, args: list[str], cwd: Path, failure: str) -> str:
    result = git(args, cwd=cwd)
    if not result.ok:
        raise JbError(f"{failure}: {last_line(result)}")
    return result.text().strip()


def _fetch_commit(git: GitRunner, source: GitSource, version: str, repo: Path) -> str:
    shallow = git(["fetch", "-q", "--no-tags", "--depth", "1", source.remote, version], cwd=repo)
    if shallow.ok:
        found = _rev_parse(git, repo, "FETCH_HEAD")
        if found:
            return found
    full = git(
        [
            "fetch",
            "-q",
            "--no-tags",
            source.remote,
            "+refs/heads/*:refs/remotes/origin/*",
            "+refs/tags/*:refs/tags/*",
        ],
        cwd=repo,
    )
    if not full.ok:
        raise JbError(
            f"cannot fetch {source.remote}: {last_line(full)}. Check that the repository exists, "
            "is spelled right and is reachable (private repositories are not supported)"
        )
    # The order `git checkout <version>` resolves in: tags and commits, then remote branches.
    for candidate in (version, f"refs/remotes/origin/{version}"):
        found = _rev_parse(git, repo, candidate)
        if found:
            return found
    raise JbError(_unknown_version(git, source, version, repo))


def _rev_parse(git: GitRunner, repo: Path, rev: str) -> str:
    result = git(
        ["rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"], cwd=repo
    )
    return result.text().strip() if result.ok else ""


def _unknown_version(git: GitRunner, source: GitSource, version: str, repo: Path) -> str:
    listed = git(
        ["for-each-ref", "--format=%(refname:lstrip=2)", "refs/remotes/origin", "refs/tags"],
        cwd=repo,
    )
    refs = [r.removeprefix("origin/") for r in listed.text().split() if r != "origin/HEAD"]
    shown = ", ".join(refs[:_MAX_REFS_SHOWN]) + (", ..." if len(refs) > _MAX_REFS_SHOWN else "")
    return (
        f"version {version!r} not found in {source.remote}: it is no branch, tag or commit "
        f"there. Available: {shown or 'no branches or tags'}. Install with an explicit version, "
        f"e.g. {source.name}@{refs[0] if refs else 'main'}"
    )


def _export(
    git: GitRunner, source: GitSource, version: str, *, commit: str, repo: Path, tree: Path
) -> None:
    archive = repo.parent / "package.tar"
    args = ["--literal-pathspecs", "archive", "--format=tar", "-o", str(archive), commit]
    if source.subdir:
        args += ["--", source.subdir.lstrip("/")]
    result = git(args, cwd=repo)
    if not result.ok:
        where = f"{source.remote} at {version} ({commit[:12]})"
        if source.subdir:
            raise JbError(
                f"subdir {source.subdir.lstrip('/')!r} does not exist in {where}; check the "
                "package path (host/user/repo/subdir)"
            )
        raise JbError(f"cannot export {where}: {last_line(result)}")
    tree.mkdir()
    with tarfile.open(archive, mode="r:") as tar:
        tar.extractall(tree, filter=_safe_member)  # noqa: S202 - the data filter guards it
    archive.unlink()


def _safe_member(member: tarfile.TarInfo, dest: str) -> tarfile.TarInfo | None:
    # The `data` filter refuses absolute names, '..', links leading out and special files;
    # such members are skipped (jb's clean-up would remove the links anyway).
    try:
        return tarfile.data_filter(member, dest)
    except tarfile.FilterError:
        return None


def _check_package_dir(package: Path, tree: Path, source: GitSource, version: str) -> None:
    real = package.resolve()
    if package.is_symlink() or not package.is_dir() or not real.is_relative_to(tree.resolve()):
        raise JbError(
            f"subdir {source.subdir.lstrip('/')!r} of {source.remote} at {version} is not a "
            "directory (a file or symlink?); name the real directory holding the package"
        )


def _remove_symlinks(package: Path) -> tuple[str, ...]:
    dropped: list[str] = []
    for dirpath, dirnames, filenames in os.walk(package):
        for name in (*dirnames, *filenames):
            path = Path(dirpath, name)
            if path.is_symlink():
                path.unlink()
                dropped.append(path.relative_to(package).as_posix())
    return tuple(sorted(dropped))
