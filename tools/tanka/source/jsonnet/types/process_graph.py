"""From the graph as built to a type per placeholder, in four passes (run in this order):

1. `simplify_references` skips placeholders that only forward to one other;
2. `separate_element_types` turns every indexing (and call) into plain references to new
   placeholders standing for "an element of X" (one per way X is indexed), shared between uses;
3. `make_topo_order` orders placeholders so that what one contains comes before it;
4. `find_types` resolves strongly connected components in dependency order: a component's
   members all get the same type, the union of what flows in from outside and their own parts.
The result is an upper bound for each placeholder; recursion ends because each component is
resolved once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tools.tanka.source.jsonnet.types.desc import (
    MAX_KNOWN_COUNT,
    BuiltinOpResult,
    ElementDesc,
    IndexKind,
    IndexSpec,
    TypeDesc,
)
from tools.tanka.source.jsonnet.types.placeholder import (
    NO_TYPE,
    STRING_TYPE,
    PlaceholderID,
    normalize_placeholders,
)

if TYPE_CHECKING:
    from tools.tanka.source.jsonnet.types.graph import TypeGraph


def _get_or_create_element_type(  # noqa: PLR0911
    g: TypeGraph, target: PlaceholderID, index: IndexSpec
) -> tuple[bool, PlaceholderID]:
    """The placeholder for `index` applied to `target`, and whether it was just created."""
    element = g.element_type[target]
    if element is None:
        element = g.element_type[target] = ElementDesc()
    if index.kind is IndexKind.KNOWN_STRING:
        if element.known_string is None:
            element.known_string = {}
        existing = element.known_string.get(index.known_string, NO_TYPE)
        if existing == NO_TYPE:
            created = element.known_string[index.known_string] = g.new_placeholder()
            return True, created
        return False, existing
    if index.kind is IndexKind.KNOWN_INT:
        if element.known_int is None:
            element.known_int = [NO_TYPE] * MAX_KNOWN_COUNT
        if element.known_int[index.known_int] == NO_TYPE:
            created = element.known_int[index.known_int] = g.new_placeholder()
            return True, created
        return False, element.known_int[index.known_int]
    if index.kind is IndexKind.FUNCTION:
        if element.call == NO_TYPE:
            element.call = g.new_placeholder()
            return True, element.call
        return False, element.call
    if element.generic == NO_TYPE:
        element.generic = g.new_placeholder()
        return True, element.generic
    return False, element.generic


def _set_element_type(
    g: TypeGraph, target: PlaceholderID, index: IndexSpec, new_id: PlaceholderID
) -> None:
    # As jsonnet-lint does: a known-int index's shortcut lands on the generic slot, where a
    # later generic indexing of the same target finds it.
    element = g.element_type[target]
    if element is None:
        raise AssertionError(f"placeholder {target} has not been indexed yet")
    if index.kind is IndexKind.KNOWN_STRING:
        if element.known_string is None:
            element.known_string = {}
        element.known_string[index.known_string] = new_id
    elif index.kind is IndexKind.FUNCTION:
        element.call = new_id
    else:
        element.generic = new_id


def simplify_references(g: TypeGraph) -> None:
    """Point every reference past placeholders that are nothing but a reference to another."""
    mapping = []
    for i, p in enumerate(g.placeholders):
        forwards = (
            p.concrete.void() and p.index is None and p.builtin_op is None and len(p.contains) == 1
        )
        mapping.append(p.contains[0] if forwards else i)
    # One pass in id order, as jsonnet-lint does (a chain through higher ids may stay partly
    # unresolved; the result is still correct, only less direct).
    for i in range(len(mapping)):
        if mapping[mapping[i]] != mapping[i]:
            mapping[i] = mapping[mapping[i]]
    for p in g.placeholders:
        p.contains = [mapping[c] for c in p.contains]
        if p.index is not None:
            p.index.indexed = mapping[p.index.indexed]
    for node, pid in g.expr_placeholder.items():
        g.expr_placeholder[node] = mapping[pid]


def _element_type(  # noqa: PLR0912
    g: TypeGraph, container: PlaceholderID, index: IndexSpec
) -> PlaceholderID:
    """The placeholder for the values `index` takes out of `container`, made on first use."""
    c = g.placeholders[container]
    created, el_id = _get_or_create_element_type(g, container, index)
    if not created:
        return el_id

    # A builtin's result with nothing known of its arguments yet.
    from_builtin = c.builtin_op.with_unknown() if c.builtin_op is not None else BuiltinOpResult()
    concrete = c.concrete.copy()
    concrete.widen(from_builtin.concrete)

    contains: list[PlaceholderID] = []
    # The container's own parts. (A builtin adds no container kinds without known arguments,
    # so `concrete` has a container description exactly where `c.concrete` has one.)
    own_object = c.concrete.object_desc
    own_array = c.concrete.array_desc
    own_function = c.concrete.function_desc
    if index.kind is IndexKind.KNOWN_STRING:
        if own_object is not None:
            if index.known_string in own_object.field_contains:
                contains += own_object.field_contains[index.known_string]
            elif not own_object.all_fields_known:
                contains += own_object.unknown_contain
    elif index.kind is IndexKind.KNOWN_INT:
        if own_array is not None:
            if index.known_int < len(own_array.element_contains):
                contains += own_array.element_contains[index.known_int]
            else:
                contains += own_array.further_contain
        if c.concrete.string:
            contains.append(STRING_TYPE)
    elif index.kind is IndexKind.FUNCTION:
        if own_function is not None:
            contains += own_function.result_contains
    else:
        if own_object is not None:
            contains += own_object.unknown_contain
            for ps in own_object.field_contains.values():
                contains += ps
        if own_array is not None:
            for ps in own_array.element_contains:
                contains += ps
            contains += own_array.further_contain
        if concrete.string:
            contains.append(STRING_TYPE)

    # The container may itself be an element of something else.
    if c.index is not None:
        el_in_c = _element_type(g, c.index.indexed, c.index)
        contains.append(_element_type(g, el_in_c, index))
    # And it takes the values of what it contains, whose elements count as well.
    for contained in list(c.contains):
        contains.append(_element_type(g, contained, index))
    for contained in from_builtin.contained:
        contains.append(_element_type(g, contained, index))

    contains = normalize_placeholders(contains)
    g.placeholders[el_id].contains = contains
    # A single source needs no placeholder of its own: later lookups go straight to it.
    if len(contains) == 1:
        _set_element_type(g, container, index, contains[0])
        return contains[0]
    return el_id


def separate_element_types(g: TypeGraph) -> None:
    """Replace each indexing by a reference to the indexed placeholder's element placeholder."""
    # Only the placeholders present now: those made on the way are never indexings.
    for i in range(len(g.placeholders)):
        index = g.placeholders[i].index
        if index is not None:
            el = _element_type(g, index.indexed, index)
            tp = g.placeholders[i]
            tp.index = None
            tp.contains = [*tp.contains, el]


def _successors(g: TypeGraph, p: PlaceholderID) -> list[PlaceholderID]:
    node = g.placeholders[p]
    if node.builtin_op is None:
        return node.contains
    return [*node.contains, *node.builtin_op.args]


def make_topo_order(g: TypeGraph) -> None:
    """Depth-first post-order over `contains` and builtin arguments (iterative, same order)."""
    n = len(g.placeholders)
    visited = [False] * n
    order: list[PlaceholderID] = []
    for root in range(n):
        if visited[root]:
            continue
        visited[root] = True
        stack: list[tuple[PlaceholderID, list[PlaceholderID], int]] = [
            (root, _successors(g, root), 0)
        ]
        while stack:
            p, succ, k = stack[-1]
            while k < len(succ) and visited[succ[k]]:
                k += 1
            if k < len(succ):
                child = succ[k]
                stack[-1] = (p, succ, k + 1)
                visited[child] = True
                stack.append((child, _successors(g, child), 0))
            else:
                stack.pop()
                order.append(p)
    g.topo_order = order


def find_types(g: TypeGraph) -> None:
    """Group placeholders into strongly connected components and resolve them in order."""
    n = len(g.placeholders)
    dependent_on: list[list[PlaceholderID]] = [[] for _ in range(n)]
    for i, tp in enumerate(g.placeholders):
        for dependency in tp.contains:
            dependent_on[dependency].append(i)
        if tp.builtin_op is not None:
            for dependency in tp.builtin_op.args:
                dependent_on[dependency].append(i)

    # Second pass of Kosaraju's algorithm: in reverse post-order, everything reachable along
    # reversed edges and not yet taken forms one component.
    visited = [False] * n
    g.scc_of = [0] * n
    components: list[list[PlaceholderID]] = []
    for p in reversed(g.topo_order):
        if visited[p]:
            continue
        scc_id = len(components)
        component: list[PlaceholderID] = []
        components.append(component)
        visited[p] = True
        stack = [(p, 0)]
        g.scc_of[p] = scc_id
        component.append(p)
        while stack:
            q, k = stack[-1]
            deps = dependent_on[q]
            while k < len(deps) and visited[deps[k]]:
                k += 1
            if k < len(deps):
                d = deps[k]
                stack[-1] = (q, k + 1)
                visited[d] = True
                g.scc_of[d] = scc_id
                component.append(d)
                stack.append((d, 0))
            else:
                stack.pop()

    g.upper_bound = [TypeDesc() for _ in range(n)]
    for component in reversed(components):
        _resolve_types_in_scc(g, component)


def _resolve_types_in_scc(g: TypeGraph, scc: list[PlaceholderID]) -> None:
    # Runs once per component (a million times on k8s-libsonnet): the graph's lists are read
    # through locals.
    scc_of, upper_bound, placeholders = g.scc_of, g.upper_bound, g.placeholders
    scc_id = scc_of[scc[0]]
    common = TypeDesc()
    for p in scc:
        tp = placeholders[p]
        for contained in tp.contains:
            if scc_of[contained] != scc_id:
                common.widen(upper_bound[contained])
        op = tp.builtin_op
        if op is not None:
            concrete_args: list[TypeDesc | None] = [
                upper_bound[arg] if scc_of[arg] != scc_id else None for arg in op.args
            ]
            res = op.f(concrete_args, op.args)
            common.widen(res.concrete)
            for contained in res.contained:
                if scc_of[contained] != scc_id:
                    common.widen(upper_bound[contained])
    for p in scc:
        tp = placeholders[p]
        common.widen(tp.concrete)
        if tp.index is not None:
            raise AssertionError(f"placeholder {p} still indexes {tp.index}")
    common.normalize()
    for p in scc:
        upper_bound[p] = common
