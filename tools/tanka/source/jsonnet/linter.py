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

from tools.tanka.source.jsonnet import ast
from tools.tanka.source.jsonnet.children import children
from tools.tanka.source.jsonnet.common import ErrCollector, Variable, VariableKind
from tools.tanka.source.jsonnet.errors import ParseError, StaticError
from tools.tanka.source.jsonnet.parser import deep_recursion
from tools.tanka.source.jsonnet.program import snippet_to_ast
from tools.tanka.source.jsonnet.traversal import traverse
from tools.tanka.source.jsonnet.types import check as check_types
from tools.tanka.source.jsonnet.variables import find_variables


class ImportFailure(Exception):
    """An import that cannot be opened; the message is the finding's text."""


class Importer(Protocol):
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
class Finding:
    """One finding and where it came from: the file not parsing ("parse") or not passing static
    analysis ("static"), an import, an unused variable, the type checker, or the traversal."""

    kind: FindingKind
    error: StaticError


@dataclass(slots=True)
class Snippet:
    file_name: str
    code: str


@dataclass(slots=True)
class _ImportCache:
    """Imported trees by where they were found, as go-jsonnet's VM caches them: a file that
    fails to parse reports that once, and later imports of it see nothing."""

    importer: Importer
    trees: dict[str, ast.Node | None] = field(default_factory=dict)

    def tree(self, importing: str, path: str) -> tuple[ast.Node | None, str]:
        found_at = self.importer.find(importing, path)
        if found_at in self.trees:
            return self.trees[found_at], found_at
        self.trees[found_at] = None
        node = snippet_to_ast(found_at, self.importer.read(found_at))
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


def _get_imports(
    node: ast.Node,
    path: str,
    roots: dict[str, ast.Node],
    cache: _ImportCache,
    out: list[Finding],
) -> None:
    stack = [node]
    while stack:  # depth first, children in order, as go-jsonnet's recursion
        current = stack.pop()
        if isinstance(current, ast.Import):
            try:
                tree, found_at = cache.tree(path, current.file.value)
            except ImportFailure as exc:
                out.append(Finding("import", StaticError(str(exc), current.loc_range)))
                continue
            except StaticError as exc:  # the imported file does not parse or analyse
                error = StaticError(str(exc), current.loc_range, cause=exc)
                out.append(Finding("import", error))
                continue
            if found_at not in roots and tree is not None:
                roots[found_at] = tree
                _get_imports(tree, found_at, roots, cache, out)
        elif isinstance(current, ast.ImportStr | ast.ImportBin):
            try:
                cache.importer.find(path, current.file.value)
            except ImportFailure as exc:
                out.append(Finding("import", StaticError(str(exc), current.loc_range)))
        else:
            stack.extend(reversed(children(current)))


def lint(
    snippets: Sequence[Snippet],
    importer: Importer,
    *,
    type_checker: TypeChecker | None = None,
    use_type_checker: bool = True,
) -> list[StaticError]:
    """Every finding for `snippets`, in go-jsonnet's order."""
    found = lint_findings(
        snippets, importer, type_checker=type_checker, use_type_checker=use_type_checker
    )
    return [f.error for f in found]


def lint_findings(
    snippets: Sequence[Snippet],
    importer: Importer,
    *,
    type_checker: TypeChecker | None = None,
    use_type_checker: bool = True,
) -> list[Finding]:
    """`lint`, each finding with its kind."""
    with deep_recursion():
        return _lint(
            snippets, importer, type_checker or (_type_checker() if use_type_checker else None)
        )


def _lint(
    snippets: Sequence[Snippet], importer: Importer, checker: TypeChecker | None
) -> list[Finding]:
    found: list[Finding] = []
    nodes: list[tuple[ast.Node, str]] = []
    for snippet in snippets:
        try:
            nodes.append((snippet_to_ast(snippet.file_name, snippet.code), snippet.file_name))
        except StaticError as err:
            found.append(Finding("parse" if isinstance(err, ParseError) else "static", err))
    cache = _ImportCache(importer)
    roots = {path: node for node, path in nodes}
    for node, path in nodes:
        _get_imports(node, path, roots, cache, found)

    std = Variable(name="std", variable_kind=VariableKind.VarStdlib)
    scope = {"std": std, "$std": std}
    vars_by_file: VarsByFile = {
        path: find_variables(root, scope).var_at for path, root in roots.items()
    }
    for node, _ in nodes:
        for variable in find_variables(node, scope).variables:
            if (
                not variable.occurences
                and variable.variable_kind == VariableKind.VarRegular
                and variable.name != "$"
            ):
                message = f"Unused variable: {variable.name}"
                found.append(Finding("unused", StaticError(message, variable.loc_range)))
        types = ErrCollector()
        if checker is not None:
            # === TYPE CHECKER findings go here, after unused variables (go-jsonnet's order).
            checker(node, roots, vars_by_file, cache.tree_or_none, types)
        found.extend(Finding("types", err) for err in types.errs)
        loops = ErrCollector()
        traverse(node, loops)
        found.extend(Finding("traversal", err) for err in loops.errs)
    return found
