"""Rendered diff between a commit and the working tree, per environment.

How (docs/design.md, decision 3):

1. The commit is materialised read-only (base_tree.py) - when something must render from it.
   A base commit that follows one seen before, where the move between them changed only file
   contents and no import (Go code, docs, a library's code), takes the previous base's renders
   the move cannot alter and is viewed through its tree (BaseTrees.view): its own tree is built
   only when a base side must evaluate (Go code and docs: never).
2. The environments to compare are the ones named, or - by default - the ones the changed files
   affect (imports/changed.py: importers over both trees, deleted files included).
3. Each entrypoint is rendered on both sides with the same options (RenderOptions: --name, -t,
   ext/tla variables); the base side comes from a render cache keyed by (commit, entrypoint,
   options), so only the working tree is rendered again on the next diff with those options.
   Each render's read set (reuse.py) is kept beside it: the working tree side takes the base's
   render, or its own previous one, when the environment reads the same there, and a new base
   commit takes the previous base's render of an environment the move did not touch.
4. Environments are matched by name, resources by identity (resources.py); an environment that
   exists on one side only shows all its resources added or removed.
5. Given a `SecretMask`, every Secret value rendered on either side is added to it, so whoever
   shows the diff (or anything else of the change) can hide those values wherever they appear.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from tools.tanka.base_tree import (
    BaseTrees,
    LazyTree,
    ignored_vendors,
    resolve_commit,
    write_atomically,
)
from tools.tanka.diff import render_cache, reuse
from tools.tanka.diff.inflight import InFlight
from tools.tanka.diff.render_cache import (
    DEFAULT_OPTIONS,
    Bounded,
    RenderCache,
    Rendered,
    RenderOptions,
)
from tools.tanka.diff.resources import Change, Dump, EnvDiff, diff_manifests, full_text, summarize
from tools.tanka.env.loader import EvalSettings
from tools.tanka.errors import TankaError
from tools.tanka.evaluation.pool import default_pool
from tools.tanka.evaluation.reads import ReadSet
from tools.tanka.imports.changed import (
    FileChanges,
    affected_entrypoints,
    base_index,
    changed_files,
    commit_move,
    imports_alike,
    previous_index,
)
from tools.tanka.imports.importers import find_entrypoints
from tools.tanka.imports.index import ImportIndex, entrypoints_after
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
    entrypoint: Path,
    repository: Path,
    options: RenderOptions = DEFAULT_OPTIONS,
    record: ReadSet | None = None,
) -> Sequence[RenderedEnv]:
    """The engine's renderer, with imports confined to the whole repository rather than the
    Tanka project: vendored symlinks may point elsewhere in the repo (Tempo's do). `record`
    gathers what it read."""
    settings = EvalSettings(
        confine=repository,
        ext_vars=dict(options.ext_vars),
        tlas=dict(options.tlas),
        max_stack=options.max_stack,
        record=record,
    )
    return render_entrypoint(
        entrypoint, settings=settings, name=options.name or None, targets=options.targets
    )


# The engine's renderer itself, whatever later replaces the module's name (tests count renders by
# wrapping it): only this one records read sets.
_ENGINE_RENDERER = render_in_repository
# Working-tree renders kept by `keep_worktree` (one file per checkout, entrypoint and options):
# the most recently written are kept, so clones and environments long gone do not pile up.
WORKTREE_FILES_KEPT = 256


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
        keep_worktree: bool = False,
    ) -> None:
        """`persist`: also keep base renders on disk next to the base tree (render_cache.py),
        for callers that live one command long; only with the engine's own renderer.
        `keep_worktree` (with `persist`): the working tree's last render too, for the next
        `tk diff` of the same checkout. The service leaves it off: its session checkouts come
        and go, and a file per session and environment would outlive the session, its edits
        (and any Secret value they render) with it; a long-lived process keeps them in memory."""
        self.trees = trees or BaseTrees()
        self.persist = persist and renderer is None
        self.keep_worktree = keep_worktree and self.persist
        self._pruned = False  # the kept working-tree renders are pruned once per differ
        self.cache = cache or RenderCache()
        if renderer is None or dump is None:
            # The engine's renderer and YAML emitter, unless a caller brings its own.

            renderer, dump = renderer or render_in_repository, dump or manifest_yaml
        self.renderer: Renderer = renderer
        self.dump: Dump = dump
        self.workers = workers or default_pool().size
        self.evaluated = 0  # entrypoints rendered by evaluation (not cached, stored or reused)
        self.reused = 0  # renders taken by their read sets instead (reuse.py)
        # Read sets of this differ's renders: base ones by (commit, entrypoint, options key),
        # working tree ones by (repository, entrypoint, options key) with their render.
        bound = self.cache.max_entries
        self._records: Bounded[tuple[str, str, str], reuse.Recorded] = Bounded(bound)
        self._worktree: Bounded[tuple[str, str, str], tuple[reuse.Recorded, Rendered]] = Bounded(
            bound
        )
        # Base renders and import indexes being made: a second caller (a session beside the cache
        # maintenance preparing the same commit) waits for the first, then finds them stored.
        self._making = InFlight()

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
        if env_paths:
            lazy = self._base(repo, commit, lambda: ignored_vendors(repo))
            entrypoints = [_entrypoint(repo, lazy.root, commit, p) for p in env_paths]
            result = RevisionDiff(commit)
        else:
            # What the working tree changed (git) and where its environments are (a walk)
            # need no base: found meanwhile, on the other CPU and while git runs.
            with ThreadPoolExecutor(max_workers=3) as pool:
                changed = pool.submit(changed_files, repo, commit)
                walked = pool.submit(_entrypoints_in, repo)
                vendors = pool.submit(ignored_vendors, repo)
                lazy = self._base(repo, commit, vendors.result)
                changes, found = changed.result(), walked.result()
            tree = lazy.root  # where environments are and what they import; no evaluation
            index = self._index(commit, tree, repo)
            entrypoints = affected_entrypoints(repo, tree, changes, index, entrypoints=found)
            result = RevisionDiff(commit, changes=changes)
        sides = self._render_all(
            repo, lazy, sorted(set(entrypoints)), options, changed=not env_paths
        )
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
        lazy = LazyTree(self.trees, repo, commit)
        everything = sorted(self._index(commit, lazy.root).envs)

        def one(rel: str) -> Rendered:
            return self._render_side(lazy, rel, DEFAULT_OPTIONS)

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
        lazy = LazyTree(self.trees, repo, commit)
        index = self._index(commit, lazy.root, repo)
        if render:
            kept = self._carry_over(repo, commit, lazy.root, previous) if previous else set()
            for rel in sorted(set(index.envs) - kept):
                self._render_side(lazy, rel, DEFAULT_OPTIONS)
        return len(index.envs)

    def _index(self, commit: str, tree: Path, repo: Path | None = None) -> ImportIndex:
        with self._making.hold(("index", commit)):  # built once, then read from disk
            return base_index(self.trees, commit, tree, repo)

    def _base(self, repo: Path, commit: str, vendors: Callable[[], list[str]]) -> LazyTree:
        """The base commit's files for a diff. One seen for the first time takes the previous
        base's renders that the move between them cannot alter (`_carry_over`); when that is
        all of them and the move changed file contents only, it gets no tree of its own yet
        (`_view_in_place`). `vendors`: the ignored vendor/ directories of `repo`."""
        previous = self._predecessor(commit)
        if previous is not None:
            view = self._view_in_place(repo, commit, previous, vendors)
            if view is not None:
                return LazyTree(self.trees, repo, commit, view)
        lazy = LazyTree(self.trees, repo, commit, self.trees.view(commit))
        if previous is not None:
            self._carry_over(repo, commit, lazy.root, previous)
        return lazy

    def _predecessor(self, commit: str) -> tuple[str, ImportIndex] | None:
        """For a base commit not prepared yet, with renders kept on disk: the newest stored
        import index of another commit, whose stored base renders `_carry_over` may link. A
        diff right after the base branch moved then renders on the base side only the
        environments the move can affect (a commit touching Go code and docs: none)."""
        if not self.persist or self.trees.existing(commit) is not None:
            return None
        return previous_index(self.trees, commit)

    def _view_in_place(
        self,
        repo: Path,
        commit: str,
        previous: tuple[str, ImportIndex],
        vendors: Callable[[], list[str]],
    ) -> Path | None:
        """When the move from the previous base changed only file contents, and every changed
        file an import resolution reads imports what it imported before (Go code, docs, a
        library's code): `commit` is viewed through the previous base's tree (BaseTrees.view)
        rather than given its own, takes its import index, and the stored renders the move
        cannot alter - of the environments it does not affect, and of affected ones whose read
        set holds and reads no changed file. The others render from the commit's own tree when
        a diff needs them. That tree; None, with nothing done, otherwise."""
        old, old_index = previous
        old_tree = self.trees.existing(old)
        if old_tree is None or self._vendored(old, old_tree.name):
            return None
        try:
            move = commit_move(repo, old, commit)
            read = [p for p in move.paths if any(p in d.reads for d in old_index.envs.values())]
            if not move.same_shape or not imports_alike(repo, commit, old_tree, read):
                return None
            if vendors():  # its own tree would hold a copy: no commit's files alone
                return None
            # Alike in shape, either tree answers where environments are and what they import.
            affected = set(affected_entrypoints(old_tree, old_tree, move.changes, old_index))
        except (TankaError, OSError):
            return None
        if not _link(
            self.trees.sidecar(old, "imports.json"), self.trees.sidecar(commit, "imports.json")
        ):
            return None
        # The view holds the old contents: a changed file's says nothing of the new.
        self._take_holding(old, commit, old_index, affected, tree=old_tree,
                           unknown=set(move.paths))  # fmt: skip
        self.trees.add_view(commit, old_tree)
        return old_tree

    def _take_holding(
        self, old: str, commit: str, old_index: ImportIndex, affected: set[str], *, tree: Path,
        unknown: set[str] | None = None,
    ) -> set[str]:  # fmt: skip
        """Link to `commit` the stored renders of `old` that hold for it, and return their
        entrypoints: every environment the move does not affect, and an affected one whose
        read set holds in `tree` and read none of `unknown` (files whose contents `tree` does
        not show as they are at `commit`)."""
        kept = set()
        for rel in old_index.envs:
            if rel in affected:
                recorded = self._record(old, rel, "")
                if (
                    recorded is None
                    or (unknown and _reads_any(recorded, tree, unknown))
                    or not reuse.holds(recorded, tree, rel)
                ):
                    continue
            if not self._take(old, commit, rel):
                continue
            self.reused += rel in affected
            kept.add(rel)
        return kept

    def _take(self, old: str, commit: str, rel: str) -> bool:
        """Link the stored base render of `rel` at `old`, and its read set, to `commit`; whether
        `commit` has it now."""
        if not _link(self._stored_path(old, rel, ""), self._stored_path(commit, rel, "")):
            return False
        _link(self._reads_path(old, rel, ""), self._reads_path(commit, rel, ""))
        return True

    def _vendored(self, *commits: str) -> bool:
        """Whether a tree of these commits holds a copy of an ignored vendor/: files git cannot
        compare between commits."""
        return any(self.trees.sidecar(c, "vendored").exists() for c in commits)

    def _carry_over(
        self, repo: Path, commit: str, tree: Path, previous: tuple[str, ImportIndex]
    ) -> set[str]:
        """The stored base renders of the previous prepared commit that hold for `commit` too,
        linked to it: those of the environments the commits' differences do not affect - the
        same reasoning as a diff's selection of environments, the older commit as its base."""
        old, old_index = previous
        old_tree = self.trees.existing(old)
        if not self.persist or old_tree is None or self._vendored(old, old_tree.name, commit):
            return set()  # (a copied ignored vendor/ differs in ways git cannot tell)
        try:
            move = commit_move(repo, old, commit)
            # The new tree's entrypoints, from the old index (no walk) when no link changed.
            now = None if move.links else entrypoints_after(old_index, tree, move.paths)
            affected = set(affected_entrypoints(tree, old_tree, move.changes, old_index,
                                                entrypoints=now))  # fmt: skip
        except (TankaError, OSError):
            return set()
        # One the move may affect keeps its render only if it reads the same files now.
        return self._take_holding(old, commit, old_index, affected, tree=tree)

    def _render_all(
        self,
        repo: Path,
        base: LazyTree,
        entrypoints: list[str],
        options: RenderOptions,
        *,
        changed: bool,
    ) -> dict[tuple[bool, str], Rendered]:
        jobs = [(True, rel) for rel in entrypoints] + [(False, rel) for rel in entrypoints]
        key = options.key()
        # A base side to evaluate from a commit only viewed so far: its tree is built on a
        # thread of its own (most of a second on Tempo) while the working tree's side
        # evaluates first. Only for `changed` environments (chosen by the working tree's
        # changes, so unlikely to render as the base does): a named one renders its base side
        # first, which its working tree may take (_render_worktree).
        build = (
            changed
            and base.viewed
            and any(
                self.cache.get(base.commit, rel, key) is None
                and not self._stored_path(base.commit, rel, key).is_file()
                for rel in entrypoints
            )
        )
        if build:
            jobs.reverse()

        def one(job: tuple[bool, str]) -> Rendered:
            is_base, rel = job
            if is_base:
                return self._render_side(base, rel, options)
            return self._render_worktree(repo, rel, base.commit, options)

        threads = max(1, min(self.workers, len(jobs) or 1)) + build
        with ThreadPoolExecutor(max_workers=threads) as pool:
            if build:
                pool.submit(base.tree)  # a failure shows where the tree is needed: _render_side
            return dict(zip(jobs, pool.map(one, jobs), strict=True))

    def _render_side(self, base: LazyTree, rel: str, options: RenderOptions) -> Rendered:
        """The base commit's render of `rel`: cached or stored, else evaluated in the commit's
        own tree (built now if it is only viewed so far)."""
        if not (base.root / rel).is_file():
            return ()
        key, commit = options.key(), base.commit
        with self._making.hold((commit, rel, key)):
            cached = self.cache.get(commit, rel, key) or self._stored(commit, rel, key)
            if cached is not None:
                self.cache.put(commit, rel, cached, key)
                return cached
            rendered, recorded = self._evaluate(base.tree(), rel, options)
            self.cache.put(commit, rel, rendered, key)
            self._store(commit, rel, key, rendered)
            if recorded is not None:
                self._keep_record(commit, rel, key, recorded)
        return rendered

    def _render_worktree(self, repo: Path, rel: str, base: str, options: RenderOptions) -> Rendered:
        """The working tree's render of `rel`: its own previous render or the base's, when the
        environment reads the same files in the working tree as it did then (reuse.py); else
        rendered. The base's counts only when rendered before this diff (stored, or by an
        earlier diff): the two sides of a first diff render at the same time."""
        if not (repo / rel).is_file():
            return ()
        key = options.key()
        own = (str(repo), rel, key)
        candidates = [self._worktree.get(own) or self._stored_worktree(repo, rel, key)]
        recorded = self._record(base, rel, key)
        if recorded is not None:
            rendered = self.cache.get(base, rel, key) or self._stored(base, rel, key)
            candidates.append((recorded, rendered) if rendered is not None else None)
        for candidate in candidates:
            if candidate is not None and reuse.holds(candidate[0], repo, rel):
                self.reused += 1
                return candidate[1]
        rendered, recorded = self._evaluate(repo, rel, options)
        if recorded is not None:
            self._worktree.put(own, (recorded, rendered))
            if self.keep_worktree:
                write_atomically(self._worktree_path(repo, rel, key),
                                 reuse.to_json(recorded, rendered))  # fmt: skip
                if not self._pruned:
                    self._pruned = True
                    prune_worktree_files(self.trees.cache_dir, WORKTREE_FILES_KEPT)
        return rendered

    def _evaluate(
        self, root: Path, rel: str, options: RenderOptions
    ) -> tuple[Rendered, reuse.Recorded | None]:
        """`rel` rendered in `root`, with its read set when the engine's renderer did it."""
        self.evaluated += 1
        reads = ReadSet() if self.renderer is _ENGINE_RENDERER else None
        started = reuse.start(root, rel) if reads is not None else None
        try:
            if reads is not None:
                rendered: Rendered = tuple(_ENGINE_RENDERER(root / rel, root, options, reads))
            else:
                rendered = tuple(self.renderer(root / rel, root, options))
        except TankaError as exc:
            return _scrub(str(exc), root), None
        return rendered, reuse.record_of(reads, root, rel, rendered, started) if reads else None

    def _record(self, commit: str, rel: str, key: str) -> reuse.Recorded | None:
        """The read set of the base render of `rel` at `commit`, if it has one."""
        found = self._records.get((commit, rel, key))
        if found is None and self.persist:
            try:
                stored = reuse.from_json(self._reads_path(commit, rel, key).read_text("utf-8"))
            except OSError:
                stored = None
            found = stored[0] if stored is not None else None
        return found

    def _keep_record(self, commit: str, rel: str, key: str, recorded: reuse.Recorded) -> None:
        self._records.put((commit, rel, key), recorded)
        if self.persist:
            write_atomically(self._reads_path(commit, rel, key), reuse.to_json(recorded))

    def _stored_worktree(
        self, repo: Path, rel: str, key: str
    ) -> tuple[reuse.Recorded, Rendered] | None:
        if not self.keep_worktree:
            return None
        try:
            stored = reuse.from_json(self._worktree_path(repo, rel, key).read_text("utf-8"))
        except OSError:
            return None
        if stored is None or stored[1] is None:
            return None
        return stored[0], stored[1]

    def _reads_path(self, commit: str, rel: str, key: str) -> Path:
        return self._stored_path(commit, rel, key).with_name(
            self._stored_path(commit, rel, key).name.replace(".render-", ".reads-", 1)
        )

    def _worktree_path(self, repo: Path, rel: str, key: str) -> Path:
        """Where the working tree's last render of `rel` is kept, with its read set: one file
        per checkout, entrypoint and options, beside the trees (a file: never taken for one)."""
        digest = hashlib.sha256(f"{repo}\0{rel}".encode()).hexdigest()[:24]
        suffix = f"-{key}" if key else ""
        return self.trees.cache_dir / f"worktree-{digest}{suffix}.json"

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


def _link(source: Path, target: Path) -> bool:
    """Hard-link a stored file under another name; whether the target is there now."""
    try:
        os.link(source, target)
    except FileExistsError:
        pass
    except OSError:
        return False
    return True


def _scrub(text: str, root: Path) -> str:
    """Error text with the checkout or cache directory left out: paths read repo-relative."""
    return text.replace(f"{root}{os.sep}", "").replace(str(root), ".")


def _reads_any(recorded: reuse.Recorded, tree: Path, paths: set[str]) -> bool:
    """Whether a render read any of `paths` (relative to `tree`, no symlink in them), through
    a symlink or not."""
    top = os.path.realpath(tree)
    return any(
        os.path.relpath(os.path.realpath(os.path.join(top, f)), top) in paths
        for f in recorded.files
    )


def _entrypoints_in(repo: Path) -> list[str]:
    return [e.relative_to(repo).as_posix() for e in find_entrypoints(repo)]


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


def prune_worktree_files(directory: Path, keep: int) -> int:
    """Delete all but the `keep` most recently written working-tree renders in `directory`;
    how many were deleted. Another `tk diff` reading one that goes only renders it again."""
    dated = []
    for path in directory.glob("worktree-*.json"):
        with contextlib.suppress(OSError):  # gone meanwhile: another run pruned it
            dated.append((path.stat().st_mtime, path))
    dated.sort(reverse=True)
    for _, path in dated[keep:]:
        path.unlink(missing_ok=True)
    return max(0, len(dated) - keep)
