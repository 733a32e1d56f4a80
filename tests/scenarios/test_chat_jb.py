"""jb through the model: init, install a tagged subdirectory package from "GitHub", use it.

The package `github.com/acme/jsonnet-libs/grafana@v1.2.0` is served from a local bare repository:
git's `url.file://<srv>/.insteadOf=https://` rule maps the canonical https remote onto it, so the
real fetch path runs with no network. The default registry builds its jb tools with a plain
`GitRunner()` whose config cannot be set from the environment (it deliberately ignores the
user's and system's git config), so this scenario injects the registry through the chat's
CommandDeps: every default tool, with the jb ones rebuilt by `make_tools(GitRunner(config=...))`.
"""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path

import pytest

from bot.compose import CommandDeps
from tests.scenarios.conftest import Chat
from tests.scenarios.models import AnthropicModel, Call
from tests.scenarios.project import DEV_MAIN, make_project
from tests.unit.jb.conftest import Server
from tools.catalog import all_tools
from tools.engine_tools.jb import make_tools
from tools.registry import ToolRegistry

LIBS = "github.com/acme/jsonnet-libs"
PACKAGE = f"{LIBS}/grafana@v1.2.0"
TAGGED = {
    "grafana/dashboards.libsonnet": "{ home: { title: 'Home' } }\n",
    "grafana/main.libsonnet": "{ image:: 'grafana/grafana:11.2.0' }\n",
    "README.md": "# acme jsonnet libs\n",
}
DEV = "environments/dev/main.jsonnet"
USES_GRAFANA = DEV_MAIN.replace(
    "{\n  grafana:",
    "local grafana = import 'github.com/acme/jsonnet-libs/grafana/main.libsonnet';\n\n"
    "{\n  image:: grafana.image,\n  grafana:",
)


def _registry(server: Server) -> ToolRegistry:
    jb = make_tools(git=server.runner)
    names = {t.name for t in jb}
    return ToolRegistry([*(t for t in all_tools() if t.name not in names), *jb])


def _jb_sum(files: dict[str, str]) -> str:
    """jb's sum of a flat package, computed independently: sha256 of the files in name order."""
    data = b"".join(files[name].encode() for name in sorted(files))
    return base64.b64encode(hashlib.sha256(data).digest()).decode()


@pytest.fixture
def upstream_commit(tmp_path: Path, chat_deps: CommandDeps) -> str:
    """Publish the package (tag v1.2.0, then a newer master) and inject the jb registry."""
    server = Server(tmp_path)
    libs = server.repo(LIBS)
    tagged = libs.commit(TAGGED)
    libs.tag("v1.2.0")
    libs.commit({"grafana/main.libsonnet": "{ image:: 'grafana/grafana:12.0.0' }\n"})
    chat_deps.registry_factory = lambda: _registry(server)
    return tagged


@pytest.fixture
def bare_project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "infra", with_jsonnetfile=False)  # tkrc.yaml only


def test_init_install_list_and_use_a_tagged_package(
    bare_project: Path, upstream_commit: str, anthropic: AnthropicModel, chat: Chat
) -> None:
    project = bare_project
    anthropic.calls(Call("t_init", "jb_init", {"path": "."}))
    anthropic.calls(Call("t_install", "jb_install", {"path": ".", "packages": [PACKAGE]}))
    anthropic.calls(Call("t_list", "file_list", {"glob_pattern": "vendor/**"}))
    anthropic.calls(Call("t_write", "file_write", {"path": DEV, "content": USES_GRAFANA}))
    anthropic.calls(Call("t_validate", "tanka_validate_jsonnet", {"file_path": DEV}))
    anthropic.answer("Vendored grafana v1.2.0 and imported it in dev.")

    run = chat(project, "vendor acme's grafana lib v1.2.0 and use it in dev", anthropic)

    assert run.code == 0, run.err
    results = [anthropic.results(k) for k in range(1, 6)]
    assert [[(s.id, s.is_error) for s in r] for r in results] == [
        [("t_init", False)],
        [("t_install", False)],
        [("t_list", False)],
        [("t_write", False)],
        [("t_validate", False)],
    ]
    assert results[0][0].content.startswith("Created ./jsonnetfile.json")
    installed = results[1][0].content
    assert installed.startswith("jb install in ./: 1 package(s) fetched; wrote jsonnetfile.json")
    assert f"  fetched {LIBS}/grafana @ v1.2.0 -> commit {upstream_commit}" in installed
    listed = results[2][0].content.splitlines()
    assert listed[1:] == [
        f"vendor/{LIBS}/grafana/dashboards.libsonnet",
        f"vendor/{LIBS}/grafana/main.libsonnet",
    ]
    assert results[4][0].content == "✓ valid"  # the new import resolves through vendor/

    # On disk: the tagged files (not master's), the declaration and the lock with jb's sum.
    package = project / "vendor" / LIBS / "grafana"
    assert (package / "main.libsonnet").read_text() == TAGGED["grafana/main.libsonnet"]
    assert sorted(p.name for p in package.iterdir()) == ["dashboards.libsonnet", "main.libsonnet"]
    # legacyImports (jb_init's default): `import 'grafana/...'` works through a relative link.
    assert (project / "vendor" / "grafana").readlink() == Path(LIBS, "grafana")
    declared = json.loads((project / "jsonnetfile.json").read_text())
    source = {"git": {"remote": f"https://{LIBS}.git", "subdir": "grafana"}}
    assert declared["dependencies"] == [{"source": source, "version": "v1.2.0"}]
    [lock] = json.loads((project / "jsonnetfile.lock.json").read_text())["dependencies"]
    assert (lock["source"], lock["version"]) == (source, upstream_commit)
    package_files = {k.removeprefix("grafana/"): v for k, v in TAGGED.items() if "/" in k}
    assert lock["sum"] == _jb_sum(package_files)
    # The user sees the new files in the diff, untracked ones included.
    diff = run.out[run.out.index("── git diff ──") :]
    for path in (
        "jsonnetfile.json",
        "jsonnetfile.lock.json",
        f"vendor/{LIBS}/grafana/main.libsonnet",
    ):
        assert f"diff --git a/{path} b/{path}\nnew file mode" in diff
