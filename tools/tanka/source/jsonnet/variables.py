"""Which variable each Var refers to (go-jsonnet's linter/internal/variables.FindVariables)."""

from __future__ import annotations

from tools.tanka.source.jsonnet import ast
from tools.tanka.source.jsonnet.children import children
from tools.tanka.source.jsonnet.common import Variable, VariableInfo, VariableKind

Environment = dict[str, Variable]


def _add(
    info: VariableInfo,
    scope: Environment,
    name: str,
    *,
    loc: ast.LocationRange,
    bind_node: ast.Node | None,
    kind: VariableKind,
) -> None:
    variable = Variable(name=name, bind_node=bind_node, variable_kind=kind, loc_range=loc)
    info.variables.append(variable)
    scope[name] = variable


def _in_function(node: ast.Function, info: VariableInfo, scope: Environment) -> None:
    for p in node.parameters:
        _add(info, scope, p.name, loc=p.loc_range, bind_node=None, kind=VariableKind.VarParam)
    for p in node.parameters:
        if p.default_arg is not None:
            _find(p.default_arg, info, scope)
    _find(node.body, info, scope)


def _bind(info: VariableInfo, scope: Environment, binds: list[ast.LocalBind]) -> None:
    for b in binds:
        _add(
            info, scope, b.variable, loc=b.loc_range, bind_node=b.body, kind=VariableKind.VarRegular
        )


def _in_local(node: ast.Local, info: VariableInfo, scope: Environment) -> None:
    _bind(info, scope, node.binds)
    for b in node.binds:
        if b.fun is not None:
            _in_function(b.fun, info, dict(scope))
        else:
            _find(b.body, info, scope)
    _find(node.body, info, scope)


def _in_object(node: ast.DesugaredObject, info: VariableInfo, outside: Environment) -> None:
    inside = dict(outside)
    _bind(info, inside, node.locals)
    for b in node.locals:
        _find(b.body, info, inside)
    for a in node.asserts:
        _find(a, info, inside)
    for f in node.fields:
        _find(f.body, info, inside)
        _find(f.name, info, outside)


def _find(node: ast.Node, info: VariableInfo, scope: Environment) -> None:
    match node:
        case ast.Function():
            _in_function(node, info, dict(scope))
        case ast.Local():
            _in_local(node, info, dict(scope))
        case ast.DesugaredObject():
            _in_object(node, info, dict(scope))
        case ast.Var():
            variable = scope.get(node.id)
            if variable is None:
                raise TypeError(
                    f"undeclared variable {node.id}: static analysis should have failed"
                )
            variable.occurences.append(node)
        case _:
            for child in children(node):
                _find(child, info, scope)


def find_variables(node: ast.Node, scope: Environment) -> VariableInfo:
    """The variables of an analysed tree, starting from `scope` (e.g. std)."""
    info = VariableInfo(variables=list(scope.values()))
    _find(node, info, dict(scope))
    for variable in info.variables:
        for use in variable.occurences:
            info.var_at[use] = variable
    return info
