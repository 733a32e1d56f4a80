"""Dependencies as jsonnet-bundler sees them: where they come from, their name and vendor path.

A package URI (`github.com/org/repo/subdir@version`, `https://...`, `ssh://git@...`,
`git@host:user/repo.git`, or a local directory) is parsed with the same patterns, in the same
order, as jb's dependency parser, so names, remotes and default versions agree with it.

Every dependency built here is safe to use as a path: its vendor name has no empty, `.`, `..`
or `.git` segment and its version cannot be read by git as an option. Files from the network
therefore cannot name a place outside vendor/.
"""

from __future__ import annotations

import functools
import posixpath
import re
from dataclasses import dataclass, replace
from pathlib import Path

from tools import linear_re
from tools.jb.errors import JbError

DEFAULT_VERSION = "master"  # jb's default, not the remote's default branch
SCHEME_SSH = "ssh://git@"
SCHEME_HTTPS = "https://"

# jb's patterns, tried in this order. All but SCP are unanchored searches, as in jb.
_HOST = r"(?P<host>[a-zA-Z0-9][a-zA-Z0-9-\.]{1,61}[a-zA-Z0-9]\.[a-zA-Z]{2,})"
_GIT_PATTERNS: tuple[tuple[str, str], ...] = (
    (r"ssh://git@(?P<host>.+)/(?P<user>.+)/(?P<repo>.+).git", SCHEME_SSH),
    (r"^git@(?P<host>.+):(?P<user>.+)/(?P<repo>.+).git", SCHEME_SSH),
    (_HOST + r"/(?P<user>[-_~a-zA-Z0-9/\.]+)/(?P<repo>[-_a-zA-Z0-9\.]+)\.git", SCHEME_HTTPS),
    (_HOST + r"/(?P<user>[-_~a-zA-Z0-9\.]+)/(?P<repo>[-_a-zA-Z0-9\.]+)", SCHEME_HTTPS),
)
# Longest form first: /subdir@version, /subdir, @version, bare.
_SUFFIXES = (r"/(?P<subdir>.*)@(?P<version>.*)", r"/(?P<subdir>.*)", r"@(?P<version>.*)", "")

# A version reaches git as a ref or commit argument: no option look-alikes, no refspec syntax.
_BAD_VERSION = re.compile(r"^-|[\x00-\x20\x7f~^:?*\[\\]|\.\.|@\{")


@dataclass(frozen=True, slots=True)
class GitSource:
    scheme: str
    host: str
    user: str
    repo: str
    subdir: str = ""  # "" or "/a/b", as jb keeps it internally

    @property
    def remote(self) -> str:
        return f"{self.scheme}{self.host}/{self.user}/{self.repo}.git"

    @property
    def name(self) -> str:
        return f"{self.host}/{self.user}/{self.repo.removesuffix('.git')}{self.subdir}"

    @property
    def legacy_name(self) -> str:
        return posixpath.basename(self.repo.removesuffix(".git") + self.subdir)


@dataclass(frozen=True, slots=True)
class LocalSource:
    directory: str  # relative to the jsonnetfile that declares it

    @property
    def name(self) -> str:
        return posixpath.basename(posixpath.normpath(self.directory))

    @property
    def legacy_name(self) -> str:
        return self.name


Source = GitSource | LocalSource


@dataclass(frozen=True, slots=True)
class Dependency:
    source: Source
    version: str
    sum: str = ""
    single: bool = False
    legacy_override: str = ""  # the `name` key: a legacy link name chosen by the user

    @property
    def name(self) -> str:
        """The package's path below vendor/ (and its import prefix)."""
        return self.source.name

    @property
    def legacy_name(self) -> str:
        return self.legacy_override or self.source.legacy_name

    @property
    def is_local(self) -> bool:
        return isinstance(self.source, LocalSource)

    def same_target(self, other: Dependency) -> bool:
        """jb's `depEqual`: same name, version and source (sum and flags do not count)."""
        return (self.name, self.version, self.source) == (other.name, other.version, other.source)

    def with_lock(self, version: str, sum_: str) -> Dependency:
        return replace(self, version=version, sum=sum_)


def parse_git(uri: str) -> Dependency | None:
    """The git dependency `uri` names, or None when no jb pattern matches."""
    for pattern, scheme in _GIT_PATTERNS:
        if _compiled(pattern).search(uri) is None:
            continue
        for suffix in _SUFFIXES:
            found = _compiled(pattern + suffix).search(uri)
            if found is None:
                continue
            groups = found.groupdict()
            subdir = groups.get("subdir") or ""
            source = GitSource(
                scheme,
                groups["host"],
                groups["user"],
                groups["repo"],
                "/" + subdir if subdir else "",
            )
            return checked(Dependency(source, groups.get("version") or DEFAULT_VERSION))
    return None


@functools.lru_cache(maxsize=32)
def _compiled(pattern: str) -> linear_re.Pattern:
    # RE2, as jb's Go regexp: under re, the `.+` groups of an unanchored search were retried from
    # every start of a long URI (the model's jb_install argument, a jsonnetfile's source).
    return linear_re.compile(pattern)


def parse_uri(uri: str, base_dir: Path) -> Dependency:
    """A CLI-style package URI: a git URI, else an existing directory relative to `base_dir`."""
    uri = uri.strip()
    if not uri:
        raise JbError("empty package URI: give e.g. github.com/grafana/jsonnet-libs/ksonnet-util")
    git = parse_git(uri)
    if git is not None:
        return git
    local = posixpath.normpath(uri)
    if not (base_dir / local).is_dir():
        raise JbError(
            f"unable to parse package URI {uri!r}: use host/user/repo[/subdir][@version] "
            "(e.g. github.com/grafana/jsonnet-libs/ksonnet-util@master) or an existing directory"
        )
    return checked(Dependency(LocalSource(local), ""))


def checked(dep: Dependency) -> Dependency:
    """`dep` if its name, legacy name and version are safe to use; JbError otherwise."""
    name = dep.name
    if isinstance(dep.source, GitSource):
        _check_path(name, what=f"package {name!r}")
        _check_version(name, dep.version)
    else:
        _check_local(dep.source.directory)
    legacy = dep.legacy_name
    if "/" in legacy or "\\" in legacy or not _safe_segment(legacy):
        raise JbError(
            f"package {name!r} has an unusable legacy name {legacy!r}: a legacy name is one "
            "plain path segment; fix or remove its `name` field"
        )
    return dep


def _safe_segment(segment: str) -> bool:
    return (
        segment not in ("", ".", "..")
        and segment.casefold() != ".git"
        and not any(ord(c) < 0x20 or c == "\x7f" for c in segment)
    )


def _check_path(name: str, *, what: str) -> None:
    if not all(_safe_segment(part) for part in name.split("/")):
        raise JbError(
            f"{what} refused: its vendor path must not contain empty, '.', '..' or '.git' "
            "segments or control characters; fix the URI or the subdir"
        )


def _check_version(name: str, version: str) -> None:
    if not version or _BAD_VERSION.search(version):
        raise JbError(
            f"package {name!r} has an invalid version {version!r}: use a branch, tag or commit "
            "SHA (no spaces, no leading '-', none of ~^:?*[\\)"
        )


def _check_local(directory: str) -> None:
    name = posixpath.basename(posixpath.normpath(directory))
    if not _safe_segment(name) or posixpath.isabs(directory):
        raise JbError(
            f"local dependency {directory!r} refused: give a directory relative to the "
            "jsonnetfile.json, ending in the directory's own name"
        )
