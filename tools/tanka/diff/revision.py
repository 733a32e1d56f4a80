"""Rendered diff between a commit and the working tree, per environment.

How (docs/design.md, decision 3):

1. The commit is materialised read-only (base_tree.py).
2. The environments to compare are the ones named, or - by default - the ones the changed files
   affect (imports/changed.py: importers over both trees, deleted files included).
3. Each entrypoint is rendered on both sides with the same options (RenderOptions: --name, -t,
   ext/tla variables); the base side comes from a render cache keyed by (commit, entrypoint,
   options), so only the working tree is rendered again on the next diff with those options.
4. Environments are matched by name, resources by identity (resources.py); an environment that
   exists on one side only shows all its resources added or removed.
5. Given a `SecretMask`, every Secret value rendered on either side is added to it, so whoever
   shows the diff (or anything else of the change) can hide those values wherever they appear.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from tools.tanka.base_tree import BaseTrees, resolve_commit, write_atomically
from tools.tanka.diff import render_cache
from tools.tanka.diff.render_cache import DEFAULT_OPTIONS, RenderCache, Rendered, RenderOptions
from tools.tanka.diff.resources import Change, Dump, EnvDiff, diff_manifests, full_text, summarize
from tools.tanka.env.loader import EvalSettings
from tools.tanka.errors import TankaError
from tools.tanka.evaluation.pool import default_pool
from tools.tanka.imports.changed import (
    FileChanges,
    affected_entrypoints,
    base_index,
    changed_files,
    commit_file_changes,
    previous_index,
)
from tools.tanka.imports.index import ImportIndex
from tools.tanka.pipeline.render import manifest_yaml, render_entrypoint
from tools.tanka.pipeline.rendered import RenderedEnv
from tools.tanka.project import DEFAULT_ENTRYPOINT
from tools.tanka.redact import learn_secret_values

if TYPE_CHECKING:
    from tools.redaction.mask import SecretMask

# Renders every environment of one entrypoint (an absolute main.jsonnet path) with the given
# options; imports may not leave the second argument, the repository (or base tree) it is in.
Renderer = Callable[[Path, Path, RenderOptions], Sequence[RenderedEnv]]


def render_in_repository(
    entrypoint: Path, repository: Path, options: RenderOptions = DEFAULT_OPTIONS
) -> Sequence[RenderedEnv]:
    """The engine's renderer, with imports confined to the whole repository rather than the
    Tanka project: vendored symlinks may point elsewhere in the repo (Tempo's do)."""
    settings = EvalSettings(
        confine=repository,
        ext_vars=dict(options.ext_vars),
        tlas=dict(options.tlas),
        max_stack=options.max_stack,
    )
    return render_entrypoint(
        entrypoint, settings=settings, name=options.name or None, targets=options.targets
    )


class EnvPathError(TankaError):
    """An environment path that names no environment on either side."""


@dataclass(slots=True)
class RevisionDiff:
    base: str  # the full commit id compared with
    envs: list[EnvDiff] = field(default_factory=list)
    changes: FileChanges | None = None  # None when environments were named explicitly
    # The working tree's renders by entrypoint, with the default options only: a check of the
    # same tree takes them instead of rendering again (check_environments' `renders`).
    worktree: dict[str, Rendered] = field(default_factory=dict, repr=False)

    @property
    def has_changes(self) -> bool:
        return any(e.has_changes for e in self.envs)

    @property
    def errors(self) -> list[EnvDiff]:
        """Environments that fail to render, already failing at the base or not."""
        return [e for e in self.envs if e.error is not None]

    @property
    def new_errors(self) -> list[EnvDiff]:
        """Environments that fail on one side only: the change broke (or fixed) them."""
        return [e for e in self.errors if not e.already_failing]

    def summary(self) -> str:
        return summarize(self.envs)

    def text(self) -> str:
        return full_text(self.envs)


class RevisionDiffer:
    """Computes rendered diffs; keep one per process (or session) so its caches pay off."""

    def __init__(
        self,
        *,
        trees: BaseTrees | None = None,
        cache: RenderCache | None = None,
        renderer: Renderer | None = None,
        dump: Dump | None = None,
        workers: int | None = None,
        persist: bool = False,
    ) -> None:
        """`persist`: also keep base renders on disk next to the base tree (render_cache.py),
        for callers that live one command long; only with the engine's own renderer."""
        self.trees = trees or BaseTrees()
        self.persist = persist and renderer is None
        self.cache = cache or RenderCache()
        if renderer is None or dump is None:
            # The engine's renderer and YAML emitter, unless a caller brings its own.

            renderer, dump = renderer or render_in_repository, dump or manifest_yaml
        self.renderer: Renderer = renderer
        self.dump: Dump = dump
        self.workers = workers or default_pool().size

    def diff(
        self,
        repo: Path,
        base: str,
        env_paths: Sequence[str] = (),
        *,
        mask: SecretMask | None = None,
        options: RenderOptions = DEFAULT_OPTIONS,
    ) -> RevisionDiff:
        """Diff `base` (any revision name) against the working tree of `repo`.

        `env_paths` are environment directories or entrypoint files, relative to the repository
        or absolute inside it; empty means every environment the changes affect. `mask` learns
        the Secret values of both sides. `options` apply to both sides.
        """
        if self.renderer is render_in_repository:
            default_pool().prestart()  # while the environments to render are found
        repo = Path(os.path.realpath(repo))
        commit = resolve_commit(repo, base)
        tree = self.trees.tree(repo, commit)
        if env_paths:
            entrypoints = [_entrypoint(repo, tree, commit, p) for p in env_paths]
            result = RevisionDiff(commit)
        else:
            changes = changed_files(repo, commit)
            index = base_index(self.trees, commit, tree, repo)
            entrypoints = affected_entrypoints(repo, tree, changes, index)
            result = RevisionDiff(commit, changes=changes)
        sides = self._render_all(repo, tree, commit, sorted(set(entrypoints)), options)
        if mask is not None:
            _learn(mask, sides.values())
        for rel in sorted(set(entrypoints)):
            old, new = sides[(True, rel)], sides[(False, rel)]
            result.envs.extend(self._compare(rel, old, new, commit))
            if options == DEFAULT_OPTIONS:
                result.worktree[rel] = new
        return result

    def learn_secrets(self, repo: Path, base: str, mask: SecretMask) -> None:
        """Teach `mask` every Secret value a session on `repo` can render: every environment at
        `base` (renders cached as any base render, so once per commit per differ) and the
        environments the working tree's changes affect, on both sides. An environment that
        fails to render teaches nothing: it cannot show a value either."""
        repo = Path(os.path.realpath(repo))
        commit = resolve_commit(repo, base)
        tree = self.trees.tree(repo, commit)
        everything = sorted(base_index(self.trees, commit, tree).envs)

        def one(rel: str) -> Rendered:
            return self._render_side(tree, rel, commit, DEFAULT_OPTIONS)

        workers = max(1, min(self.workers, len(everything) or 1))
        with ThreadPoolExecutor(max_workers=workers) as pool:
            _learn(mask, pool.map(one, everything))
        self.diff(repo, commit, mask=mask)

    def prepare_base(self, repo: Path, commit: str, *, render: bool = True) -> int:
        """Make `commit` (a full id in `repo`, which may be bare) ready for the diffs to come,
        before anyone asks: its tree, its import index and, with `render`, the base side of
        every environment with the default options (kept on disk when `persist`). Environments
        render one at a time, so a background job leaves the CPUs to requests. Returns how many
        entrypoints the commit has."""
        previous = previous_index(self.trees, commit)
        tree = self.trees.tree(repo, commit)
        index = base_index(self.trees, commit, tree, repo)
        if render:
            kept = self._carry_over(repo, commit, tree, previous) if previous else set()
            for rel in sorted(set(index.envs) - kept):
                self._render_side(tree, rel, commit, DEFAULT_OPTIONS)
        return len(index.envs)

    def _carry_over(
        self, repo: Path, commit: str, tree: Path, previous: tuple[str, ImportIndex]
    ) -> set[str]:
        """The stored base renders of the previous prepared commit that hold for `commit` too,
        linked to it: those of the environments the commits' differences do not affect - the
        same reasoning as a diff's selection of environments, the older commit as its base."""
        old, old_index = previous
        old_tree = self.trees.cache_dir / old
        vendored = any(self.trees.sidecar(c, "vendored").exists() for c in (old, commit))
        if not self.persist or not old_tree.is_dir() or vendored:
            return set()  # (a copied ignored vendor/ differs in ways git cannot tell)
        try:
            changes = commit_file_changes(repo, old, commit)
            affected = set(affected_entrypoints(tree, old_tree, changes, old_index))
        except (TankaError, OSError):
            return set()
        kept = set()
        for rel in old_index.envs.keys() - affected:
            source = self._stored_path(old, rel, "")
            try:
                os.link(source, self._stored_path(commit, rel, ""))
            except FileExistsError:
                pass
            except OSError:
                continue
            kept.add(rel)
        return kept

    def _render_all(
        self, repo: Path, tree: Path, commit: str, entrypoints: list[str], options: RenderOptions
    ) -> dict[tuple[bool, str], Rendered]:
        jobs = [(True, rel) for rel in entrypoints] + [(False, rel) for rel in entrypoints]

        def one(job: tuple[bool, str]) -> Rendered:
            is_base, rel = job
            root, at = (tree, commit) if is_base else (repo, None)
            return self._render_side(root, rel, at, options)

        with ThreadPoolExecutor(max_workers=max(1, min(self.workers, len(jobs) or 1))) as pool:
            return dict(zip(jobs, pool.map(one, jobs), strict=True))

    def _render_side(
        self, root: Path, rel: str, commit: str | None, options: RenderOptions
    ) -> Rendered:
        if not (root / rel).is_file():
            return ()
        key = options.key()
        if commit is not None:
            cached = self.cache.get(commit, rel, key) or self._stored(commit, rel, key)
            if cached is not None:
                self.cache.put(commit, rel, cached, key)
                return cached
        try:
            rendered: Rendered = tuple(self.renderer(root / rel, root, options))
        except TankaError as exc:
            rendered = _scrub(str(exc), root)
        if commit is not None:
            self.cache.put(commit, rel, rendered, key)
            self._store(commit, rel, key, rendered)
        return rendered

    def _stored_path(self, commit: str, rel: str, key: str) -> Path:
        digest = hashlib.sha256(rel.encode()).hexdigest()[:24]
        suffix = f"-{key}" if key else ""  # the default options keep their files' names
        return self.trees.sidecar(commit, f"render-{digest}{suffix}.json")

    def _stored(self, commit: str, rel: str, key: str) -> Rendered | None:
        if not self.persist:
            return None
        try:
            return render_cache.from_json(self._stored_path(commit, rel, key).read_text("utf-8"))
        except OSError:
            return None

    def _store(self, commit: str, rel: str, key: str, rendered: Rendered) -> None:
        if self.persist:
            path = self._stored_path(commit, rel, key)
            write_atomically(path, render_cache.to_json(rendered))

    def _compare(self, rel: str, old: Rendered, new: Rendered, commit: str) -> list[EnvDiff]:
        directory = Path(rel).parent.as_posix()
        own = (("directory", directory),)
        if isinstance(old, str) and isinstance(new, str):
            # Not this change's doing: say so, with the error as it is now.
            error = f"working tree: {new}"
            return [EnvDiff(directory, error=error, already_failing=True, identity=own)]
        if isinstance(old, str) or isinstance(new, str):
            side, text = ("base", old) if isinstance(old, str) else ("working tree", new)
            return [EnvDiff(directory, error=f"{side}: {text}", identity=own)]
        sides = (f"base {commit[:12]}", "working tree")
        before = {e.name: e for e in old}
        after = {e.name: e for e in new}
        diffs = []
        for name in sorted(before.keys() | after.keys()):
            was, now = before.get(name), after.get(name)
            either = was or now
            label = f"{directory} [{name}]" if either is not None and either.inline else directory
            source = now or was  # its values as the change leaves them
            own_values = source.identity if source is not None else ()
            env = EnvDiff(label, env_change=_env_change(was, now), identity=(*own, *own_values))
            env.resources = diff_manifests(
                was.manifests if was else (),
                now.manifests if now else (),
                dump=self.dump,
                sides=sides,
            )
            diffs.append(env)
        return diffs


def rendered_change(
    root: Path, base: str, mask: SecretMask, *, differ: RevisionDiffer
) -> RevisionDiff:
    """For front ends, before they show anything of a change: the rendered diff of the
    environments the change affects, with every Secret value rendered at `base` or in the working
    tree of `root` added to `mask`. Then `mask.apply` every text shown (the git diff, this diff,
    the agent's answer, error texts, a pull request's body)."""
    return differ.diff(root, base, mask=mask)


def _learn(mask: SecretMask, sides: Iterable[Rendered]) -> None:
    for rendered in sides:
        if not isinstance(rendered, str):  # an error text has no manifests
            for env in rendered:
                learn_secret_values(env.manifests, mask)


def _env_change(was: RenderedEnv | None, now: RenderedEnv | None) -> Change | None:
    if was is None:
        return Change.ADDED
    return Change.REMOVED if now is None else None


def _scrub(text: str, root: Path) -> str:
    """Error text with the checkout or cache directory left out: paths read repo-relative."""
    return text.replace(f"{root}{os.sep}", "").replace(str(root), ".")


def _entrypoint(repo: Path, tree: Path, commit: str, given: str) -> str:
    """The repository-relative entrypoint an environment path names, on either side."""
    full = Path(os.path.realpath(given if os.path.isabs(given) else repo / given))
    try:
        rel = full.relative_to(repo).as_posix()
    except ValueError:
        raise EnvPathError(
            f"{given} is outside the repository {repo}; give a path inside it"
        ) from None
    for candidate in (rel, f"{rel}/{DEFAULT_ENTRYPOINT}" if rel != "." else DEFAULT_ENTRYPOINT):
        if candidate.endswith(".jsonnet") and any((r / candidate).is_file() for r in (repo, tree)):
            return candidate
    raise EnvPathError(
        f"no environment at {given}: neither the working tree nor commit {commit[:12]} has "
        f"{rel}/{DEFAULT_ENTRYPOINT}; give an environment's directory (list them with "
        "`tanka-bot tk env list` or tanka_find_environments)"
    )
