"""go-jsonnet's linter (`jsonnet-lint`), in process: the same findings, in the same order, with
the same messages and locations.

Order, as go-jsonnet's `lint()`: a file that does not parse or analyse gets that error only;
then every import that cannot be opened (walking into the files imported, transitively); then,
per linted file: unused variables, the type checker's findings, endless loops in locals.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from tools.errors import EngineError
from tools.tanka.source.jsonnet import ast
from tools.tanka.source.jsonnet.children import children
from tools.tanka.source.jsonnet.common import ErrCollector, Variable, VariableInfo, VariableKind
from tools.tanka.source.jsonnet.errors import ParseError, StaticError
from tools.tanka.source.jsonnet.gc_pause import cycle_collection_paused
from tools.tanka.source.jsonnet.parser import deep_recursion
from tools.tanka.source.jsonnet.program import snippet_to_ast
from tools.tanka.source.jsonnet.traversal import traverse
from tools.tanka.source.jsonnet.types import check as check_types
from tools.tanka.source.jsonnet.variables import find_variables


class ImportFailure(EngineError):
    """An import that cannot be opened; the message is the finding's text."""


class ImportFinder(Protocol):
    def find(self, importing: str, path: str) -> str:
        """Where `path`, imported from the file `importing`, is; raises ImportFailure."""
        ...

    def read(self, found_at: str) -> str:
        """The text of a file `find` returned; raises ImportFailure."""
        ...


ImportAst = Callable[[str, str], ast.Node | None]
VarsByFile = dict[str, dict[ast.Node, Variable]]


class TypeChecker(Protocol):
    def __call__(
        self,
        node: ast.Node,
        roots: dict[str, ast.Node],
        vars: VarsByFile,
        import_ast: ImportAst,
        ec: ErrCollector,
        /,
    ) -> None: ...


FindingKind = Literal["parse", "static", "import", "unused", "types", "traversal"]


@dataclass(frozen=True, slots=True)
class LintFinding:
    """One finding and where it came from: the file not parsing ("parse") or not passing static
    analysis ("static"), an import, an unused variable, the type checker, or the traversal."""

    kind: FindingKind
    error: StaticError


@dataclass(slots=True)
class LintSnippet:
    file_name: str
    code: str


class TreeCache:
    """Analysed trees (or the error that stopped the analysis) by file name and text, and each
    tree's variable resolution, kept across the `lint` calls of one run.

    Linting a file walks every file it imports, so without sharing, linting a library tree
    parses its common imports once per linted file. Sharing is sound because nothing after
    the analysis changes a tree, and what is computed from one (variables, the type graph)
    lives in the lint call that computed it, keyed by node. One rule keeps the sharing exact:
    within one call every file has its own tree, so a linted file that its imports reach
    again is imported as a separate tree, as go-jsonnet parses it twice (`_ImportCache`).
    """

    def __init__(self) -> None:
        self._trees: dict[tuple[str, str], ast.Node | StaticError] = {}
        self._vars: dict[ast.Node, VariableInfo] = {}
        self._imports: dict[ast.Node, list[ast.Import | ast.ImportStr | ast.ImportBin]] = {}

    def tree(self, file_name: str, text: str) -> ast.Node:
        """`snippet_to_ast(file_name, text)`, computed once; raises its StaticError."""
        key = (file_name, text)
        known = self._trees.get(key)
        if known is None:
            try:
                known = snippet_to_ast(file_name, text)
            except StaticError as err:
                known = err
            self._trees[key] = known
        if isinstance(known, StaticError):
            raise known
        return known

    def variables(self, root: ast.Node) -> VariableInfo:
        """`root`'s variables and which one each Var refers to (std and $std predeclared).

        Nothing reads a variable's uses but the unused-variable check, and that only for
        variables of the tree's own, so one resolution serves every call."""
        known = self._vars.get(root)
        if known is None:
            known = self._vars[root] = find_variables(root, _std_scope())
        return known

    def imports(self, root: ast.Node) -> list[ast.Import | ast.ImportStr | ast.ImportBin]:
        """The imports in `root`'s tree, in the order go-jsonnet's linter walks to them."""
        known = self._imports.get(root)
        if known is None:
            known = self._imports[root] = _import_nodes(root)
        return known


def _std_scope() -> dict[str, Variable]:
    std = Variable(name="std", variable_kind=VariableKind.VarStdlib)
    return {"std": std, "$std": std}


@dataclass(slots=True)
class _ImportCache:
    """Imported trees by where they were found, as go-jsonnet's VM caches them: a file that
    fails to parse reports that once, and later imports of it see nothing."""

    importer: ImportFinder
    shared: TreeCache
    # The linted files' own trees, which imports must not return (see TreeCache).
    linted: set[int]
    trees: dict[str, ast.Node | None] = field(default_factory=dict)

    def tree(self, importing: str, path: str) -> tuple[ast.Node | None, str]:
        found_at = self.importer.find(importing, path)
        if found_at in self.trees:
            return self.trees[found_at], found_at
        self.trees[found_at] = None
        text = self.importer.read(found_at)
        node = self.shared.tree(found_at, text)
        if id(node) in self.linted:
            node = snippet_to_ast(found_at, text)
        self.trees[found_at] = node
        return node, found_at

    def tree_or_none(self, importing: str, path: str) -> ast.Node | None:
        try:
            return self.tree(importing, path)[0]
        except (ImportFailure, StaticError):
            return None


def _type_checker() -> TypeChecker | None:
    # === TYPE CHECKER: go-jsonnet's types.Check, ported separately into the `types` package
    # next to this module (`check(node, roots, vars, import_ast, ec)`).
    return check_types


def _import_nodes(node: ast.Node) -> list[ast.Import | ast.ImportStr | ast.ImportBin]:
    """The imports in `node`'s tree, depth first with children in order (go-jsonnet's walk)."""
    found: list[ast.Import | ast.ImportStr | ast.ImportBin] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, ast.Import | ast.ImportStr | ast.ImportBin):
            found.append(current)  # nothing to walk inside: the path is a literal
        else:
            stack.extend(reversed(children(current)))
    return found


def _get_imports(
    node: ast.Node,
    path: str,
    roots: dict[str, ast.Node],
    cache: _ImportCache,
    out: list[LintFinding],
) -> None:
    for current in cache.shared.imports(node):
        if isinstance(current, ast.Import):
            try:
                tree, found_at = cache.tree(path, current.file.value)
            except ImportFailure as exc:
                out.append(LintFinding("import", StaticError(str(exc), current.loc_range)))
                continue
            except StaticError as exc:  # the imported file does not parse or analyse
                error = StaticError(str(exc), current.loc_range, cause=exc)
                out.append(LintFinding("import", error))
                continue
            if found_at not in roots and tree is not None:
                roots[found_at] = tree
                _get_imports(tree, found_at, roots, cache, out)
        else:
            try:
                cache.importer.find(path, current.file.value)
            except ImportFailure as exc:
                out.append(LintFinding("import", StaticError(str(exc), current.loc_range)))


def lint(
    snippets: Sequence[LintSnippet],
    importer: ImportFinder,
    *,
    type_checker: TypeChecker | None = None,
    use_type_checker: bool = True,
    trees: TreeCache | None = None,
) -> list[StaticError]:
    """Every finding for `snippets`, in go-jsonnet's order; `trees` shares parsed files with
    other calls (of the same run: the files must not change meanwhile)."""
    found = lint_findings(
        snippets,
        importer,
        type_checker=type_checker,
        use_type_checker=use_type_checker,
        trees=trees,
    )
    return [f.error for f in found]


def lint_findings(
    snippets: Sequence[LintSnippet],
    importer: ImportFinder,
    *,
    type_checker: TypeChecker | None = None,
    use_type_checker: bool = True,
    trees: TreeCache | None = None,
) -> list[LintFinding]:
    """`lint`, each finding with its kind."""
    with deep_recursion(), cycle_collection_paused():
        return _lint(
            snippets,
            importer,
            type_checker or (_type_checker() if use_type_checker else None),
            trees or TreeCache(),
        )


def _lint(
    snippets: Sequence[LintSnippet],
    importer: ImportFinder,
    checker: TypeChecker | None,
    trees: TreeCache,
) -> list[LintFinding]:
    found: list[LintFinding] = []
    nodes: list[tuple[ast.Node, str]] = []
    linted: set[int] = set()
    for snippet in snippets:
        try:
            node = trees.tree(snippet.file_name, snippet.code)
            if id(node) in linted:  # the same file twice: a tree each, so each has its own findings
                node = snippet_to_ast(snippet.file_name, snippet.code)
        except StaticError as err:
            found.append(LintFinding("parse" if isinstance(err, ParseError) else "static", err))
            continue
        linted.add(id(node))
        nodes.append((node, snippet.file_name))
    cache = _ImportCache(importer, trees, linted)
    roots = {path: node for node, path in nodes}
    for node, path in nodes:
        _get_imports(node, path, roots, cache, found)

    vars_by_file: VarsByFile = {path: trees.variables(root).var_at for path, root in roots.items()}
    for node, _ in nodes:
        for variable in trees.variables(node).variables:
            if (
                not variable.occurences
                and variable.variable_kind == VariableKind.VarRegular
                and variable.name != "$"
            ):
                message = f"Unused variable: {variable.name}"
                found.append(LintFinding("unused", StaticError(message, variable.loc_range)))
        types = ErrCollector()
        if checker is not None:
            # === TYPE CHECKER findings go here, after unused variables (go-jsonnet's order).
            checker(node, roots, vars_by_file, cache.tree_or_none, types)
        found.extend(LintFinding("types", err) for err in types.errs)
        loops = ErrCollector()
        traverse(node, loops)
        found.extend(LintFinding("traversal", err) for err in loops.errs)
    return found
