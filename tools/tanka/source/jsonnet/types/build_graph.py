"""From a desugared syntax tree to the type graph: one placeholder per expression, defined by
what kind of expression it is (`_calc_tp`)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Protocol

from tools.tanka.source.jsonnet import ast
from tools.tanka.source.jsonnet.children import children
from tools.tanka.source.jsonnet.common import VariableKind
from tools.tanka.source.jsonnet.types.desc import (
    MAX_KNOWN_COUNT,
    ArrayDesc,
    BuiltinOpDesc,
    FieldMap,
    FunctionDesc,
    IndexKind,
    IndexSpec,
    ObjectDesc,
    ParamSpec,
    TypeDesc,
    builtin_plus,
    concrete_tp,
    tp_index,
    tp_ref,
    tp_sum,
)
from tools.tanka.source.jsonnet.types.graph import TypeGraph, count_required_parameters
from tools.tanka.source.jsonnet.types.placeholder import (
    ANY_OBJECT_TYPE,
    ANY_TYPE,
    BOOL_TYPE,
    NO_TYPE,
    NULL_TYPE,
    NUMBER_ARRAY_TYPE,
    NUMBER_TYPE,
    STDLIB_TYPE,
    STRING_TYPE,
    PlaceholderID,
    TypePlaceholder,
)


class VariableLike(Protocol):
    """What the checker reads of a resolved variable (the static analysis' `Variable`)."""

    @property
    def bind_node(self) -> ast.Node | None: ...

    @property
    def variable_kind(self) -> VariableKind: ...


# For each `Var` node of one file, the variable it refers to.
VarAt = Mapping[ast.Node, VariableLike]


def _placeholder_of(g: TypeGraph, node: ast.Node) -> PlaceholderID:
    p = g.expr_placeholder.get(node, NO_TYPE)
    if p == NO_TYPE:
        raise AssertionError(
            f"no type placeholder yet for {type(node).__name__} at {node.loc_range}"
        )
    return p


def prepare_tp(node: ast.Node, var_at: VarAt, g: TypeGraph) -> None:
    """Create placeholders for `node` and everything under it, and define them."""
    p = g.new_placeholder_to_define()
    g.expr_placeholder[node] = p
    prepare_tp_with_placeholder(node, var_at, g, p)


def prepare_tp_with_placeholder(
    node: ast.Node, var_at: VarAt, g: TypeGraph, p: PlaceholderID
) -> None:
    """As `prepare_tp`, for a node whose own placeholder `p` exists already.

    Local binds (and object locals) get their placeholders before any bind body is visited, so
    mutually recursive definitions can refer to each other.
    """
    if isinstance(node, ast.Local | ast.DesugaredObject):
        binds = node.binds if isinstance(node, ast.Local) else node.locals
        bind_placeholders = []
        for bind in binds:
            bp = g.new_placeholder_to_define()
            bind_placeholders.append(bp)
            g.expr_placeholder[bind.body] = bp
        for bind, bp in zip(binds, bind_placeholders, strict=True):
            prepare_tp_with_placeholder(bind.body, var_at, g, bp)
        if isinstance(node, ast.Local):
            prepare_tp(node.body, var_at, g)
        else:
            for f in node.fields:
                prepare_tp(f.name, var_at, g)
                prepare_tp(f.body, var_at, g)
    else:
        for child in children(node):
            prepare_tp(child, var_at, g)
    g.placeholders[p] = _calc_tp(node, var_at, g)


def add_roots(g: TypeGraph, roots: Mapping[str, ast.Node], variables: Mapping[str, VarAt]) -> None:
    """Every file's root first gets a placeholder (imports may point at any of them)."""
    for root in roots.values():
        g.expr_placeholder[root] = g.new_placeholder_to_define()
    for path, root in roots.items():
        prepare_tp_with_placeholder(root, variables.get(path, {}), g, _placeholder_of(g, root))


def _param_specs(params: list[ast.Parameter]) -> tuple[ParamSpec, ...] | None:
    # go-jsonnet's parser leaves a parameterless function's list nil, which the checks treat as
    # "signature unknown": calls to it are judged by arity alone.
    if not params:
        return None
    return tuple(ParamSpec(p.name, p.default_arg is not None) for p in params)


def _literal_index(text: str) -> int | None:
    """The element a literal number index picks among the tracked ones, if it does."""
    try:
        value = float(text)
    except ValueError:
        return None
    if math.isinf(value) or math.isnan(value):
        return None
    if 0 <= value < MAX_KNOWN_COUNT and value == int(value):
        return int(value)
    return None


def _calc_tp(node: ast.Node, var_at: VarAt, g: TypeGraph) -> TypePlaceholder:  # noqa: PLR0911, PLR0912
    """The definition of a node's placeholder (its children's placeholders exist already)."""
    match node:
        case ast.Array(elements=elements):
            known = min(len(elements), MAX_KNOWN_COUNT)
            ph = [_placeholder_of(g, el.expr) for el in elements]
            array = ArrayDesc(
                further_contain=ph[known:], element_contains=[[p] for p in ph[:known]]
            )
            return concrete_tp(TypeDesc(array_desc=array))
        case ast.Binary(op=op, left=left, right=right):
            if op == ast.BinaryOp.BopPlus:
                args = [_placeholder_of(g, left), _placeholder_of(g, right)]
                return TypePlaceholder(
                    concrete=TypeDesc(), builtin_op=BuiltinOpDesc(args, builtin_plus)
                )
            return tp_ref(ANY_TYPE)
        case ast.Unary(op=op):
            return tp_ref(BOOL_TYPE if op == ast.UnaryOp.UopNot else NUMBER_TYPE)
        case ast.Conditional(branch_true=t, branch_false=f):
            if f is None:
                raise AssertionError("a desugared conditional always has an else branch")
            return tp_sum(_placeholder_of(g, t), _placeholder_of(g, f))
        case ast.Var():
            return _var_tp(node, var_at, g)
        case ast.DesugaredObject():
            return concrete_tp(TypeDesc(object_desc=_object_desc(node, g)))
        case ast.Error():
            return concrete_tp(TypeDesc())
        case ast.Index(target=target, index=index):
            return tp_index(_index_spec(_placeholder_of(g, target), index))
        case ast.Import(file=file):
            imported = g.import_func(node.loc_range.file_name, file.value)
            known = NO_TYPE if imported is None else g.expr_placeholder.get(imported, NO_TYPE)
            # Unknown: the import fails, or returns a tree outside `roots` - a linted file that
            # is imported back parses a second time. jsonnet-lint stops on an internal error in
            # the second case; assuming anything keeps the check going.
            return tp_ref(ANY_TYPE if known == NO_TYPE else known)
        case ast.ImportStr():
            return tp_ref(STRING_TYPE)
        case ast.ImportBin():
            return tp_ref(NUMBER_ARRAY_TYPE)
        case ast.LiteralBoolean():
            return tp_ref(BOOL_TYPE)
        case ast.LiteralNull():
            return tp_ref(NULL_TYPE)
        case ast.LiteralNumber():
            return tp_ref(NUMBER_TYPE)
        case ast.LiteralString():
            return tp_ref(STRING_TYPE)
        case ast.Local(body=body):
            return tp_ref(_placeholder_of(g, body))
        case ast.Self():
            # `self` is not followed (yet): any object.
            return tp_ref(ANY_OBJECT_TYPE)
        case ast.SuperIndex():
            return tp_ref(ANY_TYPE)
        case ast.InSuper():
            return tp_ref(BOOL_TYPE)
        case ast.Function(parameters=params, body=body):
            specs = _param_specs(params)
            desc = FunctionDesc(
                result_contains=[_placeholder_of(g, body)],
                params=specs,
                min_arity=count_required_parameters(specs or ()),
                max_arity=len(params),
            )
            return concrete_tp(TypeDesc(function_desc=desc))
        case ast.Apply(target=target):
            return tp_index(IndexSpec(IndexKind.FUNCTION, _placeholder_of(g, target)))
    raise TypeError(
        f"the type checker needs a desugared tree, got {type(node).__name__} at {node.loc_range}"
    )


def _var_tp(node: ast.Var, var_at: VarAt, g: TypeGraph) -> TypePlaceholder:
    v = var_at.get(node)
    if v is None:
        raise AssertionError(f"variable {node.id} at {node.loc_range} was not resolved")
    if v.variable_kind == VariableKind.VarStdlib:
        return tp_ref(STDLIB_TYPE)
    if v.variable_kind == VariableKind.VarParam:
        return tp_ref(ANY_TYPE)
    if v.bind_node is None:
        raise AssertionError(f"variable {node.id} at {node.loc_range} has no definition")
    return tp_ref(_placeholder_of(g, v.bind_node))


def _object_desc(node: ast.DesugaredObject, g: TypeGraph) -> ObjectDesc:
    obj = ObjectDesc(unknown_contain=[], field_contains=FieldMap(), all_fields_known=True)
    for f in node.fields:
        if isinstance(f.name, ast.LiteralString):
            if f.plus_super:
                # `f+: e` depends on the inherited field: anything.
                obj.field_contains[f.name.value] = [ANY_TYPE]
            else:
                obj.field_contains[f.name.value] = [
                    *obj.field_contains.get(f.name.value, []),
                    _placeholder_of(g, f.body),
                ]
        else:
            obj.all_fields_known = False
            if f.plus_super:
                obj.unknown_contain = [ANY_TYPE]
            else:
                obj.unknown_contain = [*obj.unknown_contain, _placeholder_of(g, f.body)]
    return obj


def _index_spec(target: PlaceholderID, index: ast.Node | None) -> IndexSpec:
    if isinstance(index, ast.LiteralString):
        return IndexSpec(IndexKind.KNOWN_STRING, target, known_string=index.value)
    if isinstance(index, ast.LiteralNumber):
        position = _literal_index(index.original_string)
        if position is not None:
            return IndexSpec(IndexKind.KNOWN_INT, target, known_int=position)
    return IndexSpec(IndexKind.GENERIC, target)
