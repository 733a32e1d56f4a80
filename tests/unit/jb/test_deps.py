"""Package URIs: jb's own test vectors (spec/v1/deps/git_test.go) plus the refusals we add."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.jb.deps import SCHEME_HTTPS, SCHEME_SSH, GitSource, LocalSource, parse_git, parse_uri
from tools.jb.errors import JbError

# uri -> (scheme, host, user, repo, subdir, version, remote)
VECTORS = {
    "github.com/ksonnet/ksonnet-lib/ksonnet.beta.3": (
        SCHEME_HTTPS, "github.com", "ksonnet", "ksonnet-lib", "/ksonnet.beta.3", "master",
        "https://github.com/ksonnet/ksonnet-lib.git",
    ),
    "ssh://git@example.com/user/repo.git/foobar@v1": (
        SCHEME_SSH, "example.com", "user", "repo", "/foobar", "v1",
        "ssh://git@example.com/user/repo.git",
    ),
    "git@my.host:user/repo.git/foobar@v1": (
        SCHEME_SSH, "my.host", "user", "repo", "/foobar", "v1", "ssh://git@my.host/user/repo.git",
    ),
    "https://example.com/foo/bar": (
        SCHEME_HTTPS, "example.com", "foo", "bar", "", "master", "https://example.com/foo/bar.git",
    ),
    "https://gitlab.example.com/first.last/project": (
        SCHEME_HTTPS, "gitlab.example.com", "first.last", "project", "", "master",
        "https://gitlab.example.com/first.last/project.git",
    ),
    "example.com/foo/bar": (
        SCHEME_HTTPS, "example.com", "foo", "bar", "", "master", "https://example.com/foo/bar.git",
    ),
    "example.com/foo/bar/baz/bat": (
        SCHEME_HTTPS, "example.com", "foo", "bar", "/baz/bat", "master",
        "https://example.com/foo/bar.git",
    ),
    "example.com/foo/bar@baz": (
        SCHEME_HTTPS, "example.com", "foo", "bar", "", "baz", "https://example.com/foo/bar.git",
    ),
    "example.com/foo/bar/baz@bat": (
        SCHEME_HTTPS, "example.com", "foo", "bar", "/baz", "bat",
        "https://example.com/foo/bar.git",
    ),
    "git.example.com/foo/bar": (
        SCHEME_HTTPS, "git.example.com", "foo", "bar", "", "master",
        "https://git.example.com/foo/bar.git",
    ),
    "example.com/group/subgroup/repository.git": (
        SCHEME_HTTPS, "example.com", "group/subgroup", "repository", "", "master",
        "https://example.com/group/subgroup/repository.git",
    ),
    "example.com/group/subgroup/repository.git/subdir": (
        SCHEME_HTTPS, "example.com", "group/subgroup", "repository", "/subdir", "master",
        "https://example.com/group/subgroup/repository.git",
    ),
    "bitbucket.org/~user/repository.git": (
        SCHEME_HTTPS, "bitbucket.org", "~user", "repository", "", "master",
        "https://bitbucket.org/~user/repository.git",
    ),
}  # fmt: skip


@pytest.mark.parametrize("uri", sorted(VECTORS))
def test_jb_uri_vectors(uri: str) -> None:
    scheme, host, user, repo, subdir, version, remote = VECTORS[uri]
    dep = parse_git(uri)
    assert dep is not None
    assert dep.source == GitSource(scheme, host, user, repo, subdir)
    assert dep.version == version
    assert dep.source.remote == remote


def test_name_and_legacy_name() -> None:
    dep = parse_git("github.com/grafana/jsonnet-libs/ksonnet-util@v1")
    assert dep is not None
    assert dep.name == "github.com/grafana/jsonnet-libs/ksonnet-util"
    assert dep.legacy_name == "ksonnet-util"
    whole = parse_git("https://github.com/org/repo.git")
    assert whole is not None
    assert (whole.name, whole.legacy_name) == ("github.com/org/repo", "repo")


@pytest.mark.parametrize("uri", ["example.com/foo", "example.c/foo/bar", "examplec/foo/bar"])
def test_not_git(uri: str) -> None:
    assert parse_git(uri) is None


def test_unparseable_uri_says_what_to_write(tmp_path: Path) -> None:
    with pytest.raises(JbError, match=r"unable to parse package URI 'foo'.*host/user/repo"):
        parse_uri("foo", tmp_path)


def test_existing_directory_is_a_local_package(tmp_path: Path) -> None:
    (tmp_path / "libs" / "mylib").mkdir(parents=True)
    dep = parse_uri("libs/mylib", tmp_path)
    assert dep.source == LocalSource("libs/mylib")
    assert (dep.name, dep.legacy_name, dep.version) == ("mylib", "mylib", "")


@pytest.mark.parametrize(
    "uri",
    [
        "github.com/org/repo/../../../etc",
        "github.com/org/repo/sub/..",
        "github.com/org/repo/.git/hooks",
        "github.com/org/repo//double",
        "ssh://git@example.com/../x.git",
        "example.com/../../x.git",
    ],
)
def test_names_that_would_leave_vendor_are_refused(uri: str, tmp_path: Path) -> None:
    with pytest.raises(JbError, match="refused"):
        parse_uri(uri, tmp_path)


@pytest.mark.parametrize(
    "version", ["--upload-pack=touch x", "a b", "main:refs/heads/x", "v1^{}", "a..b", "-x"]
)
def test_versions_git_would_misread_are_refused(version: str, tmp_path: Path) -> None:
    with pytest.raises(JbError, match="invalid version"):
        parse_uri(f"github.com/org/repo@{version}", tmp_path)
