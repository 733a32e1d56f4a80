"""The jb_* agent tools: jb_init, jb_install, jb_update, jb_list.

`path` is the directory holding jsonnetfile.json, relative to the checkout root (`.` for the
root). Everything they write stays in that directory: jsonnetfile.json,
jsonnetfile.lock.json and vendor/. `make_tools(git=...)` lets the service (an operator's
mirror) or a test (local bare repositories through url.insteadOf) choose git's config.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from tools import sandbox
from tools.context import ToolContext
from tools.jb import spec
from tools.jb.errors import JbError
from tools.jb.gitrun import GitRunner
from tools.jb.install import VENDOR, Bundler
from tools.jb.report import describe_installed, describe_outcome
from tools.registry import Tool

_PATH_HELP = (
    "directory holding jsonnetfile.json, relative to the repository root ('.' for the root)"
)
_PACKAGES_HELP = (
    "package URIs such as github.com/grafana/jsonnet-libs/ksonnet-util@master "
    "(host/user/repo[/subdir][@version]); empty means all"
)


class PathInput(BaseModel):
    path: str = Field(description=_PATH_HELP)


class PackagesInput(BaseModel):
    path: str = Field(description=_PATH_HELP)
    packages: list[str] = Field(default_factory=list, description=_PACKAGES_HELP)


def _project(ctx: ToolContext, path: str, *, writing: bool) -> tuple[Path, str]:
    """The project directory and how to name it, with its jb files checked for writing."""
    project = sandbox.resolve(ctx.root, path)
    if not project.is_dir():
        raise JbError(f"{path!r} is not a directory; give the directory holding jsonnetfile.json")
    rel = sandbox.relative(ctx.root, project)
    prefix = "" if rel == "." else rel + "/"
    if writing:
        for name in (spec.JSONNETFILE, spec.LOCKFILE, VENDOR):
            sandbox.resolve(ctx.root, prefix + name, for_write=True, protected=ctx.protected_paths)
    return project, prefix or "./"


def make_tools(git: GitRunner | None = None) -> list[Tool[Any]]:
    runner = git or GitRunner()

    def bundler(ctx: ToolContext, project: Path) -> Bundler:
        return Bundler(project, root=ctx.root, git=runner, cancelled=ctx.cancelled)

    def jb_init(ctx: ToolContext, params: PathInput) -> str:
        project, where = _project(ctx, params.path, writing=True)
        bundler(ctx, project).init()
        return (
            f"Created {where}{spec.JSONNETFILE} (no dependencies, legacyImports true). "
            "Add packages with jb_install."
        )

    def jb_install(ctx: ToolContext, params: PackagesInput) -> str:
        project, where = _project(ctx, params.path, writing=True)
        outcome = bundler(ctx, project).install(params.packages)
        return describe_outcome("install", where, outcome)

    def jb_update(ctx: ToolContext, params: PackagesInput) -> str:
        project, where = _project(ctx, params.path, writing=True)
        outcome = bundler(ctx, project).update(params.packages)
        return describe_outcome("update", where, outcome)

    def jb_list(ctx: ToolContext, params: PathInput) -> str:
        project, where = _project(ctx, params.path, writing=False)
        if not (project / spec.JSONNETFILE).is_file():
            raise JbError(f"no {spec.JSONNETFILE} in {where}; run jb_init there first")
        return describe_installed(project, where)

    return [
        Tool(
            "jb_init",
            "Create an empty jsonnetfile.json in a directory (like `jb init`).",
            PathInput,
            jb_init,
        ),
        Tool(
            "jb_install",
            "Install Jsonnet packages into <path>/vendor (like `jb install`). With packages, add "
            "or change them in jsonnetfile.json; without, install exactly what the lock file "
            "says. All or nothing: a failure changes no file.",
            PackagesInput,
            jb_install,
        ),
        Tool(
            "jb_update",
            "Move packages to the newest commit of their declared version, e.g. a branch tip "
            "(like `jb update`); without packages, update all. Rewrites the lock file only.",
            PackagesInput,
            jb_update,
        ),
        Tool(
            "jb_list",
            "List the dependencies of a jsonnetfile.json: declared version, locked commit, and "
            "whether vendor/ matches the lock.",
            PathInput,
            jb_list,
        ),
    ]


TOOLS: list[Tool[Any]] = make_tools()
