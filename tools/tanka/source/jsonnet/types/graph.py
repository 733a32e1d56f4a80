"""The type graph: placeholders, the expression each one stands for, and the fixed base types."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from tools.tanka.source.jsonnet.types import process_graph
from tools.tanka.source.jsonnet.types.desc import (
    MAX_POSSIBLE_ARITY,
    ArrayDesc,
    ElementDesc,
    FunctionDesc,
    ObjectDesc,
    ParamSpec,
    TypeDesc,
    concrete_tp,
)
from tools.tanka.source.jsonnet.types.placeholder import (
    ANY_TYPE,
    BOOL_TYPE,
    NUMBER_TYPE,
    PlaceholderID,
    TypePlaceholder,
)
from tools.tanka.source.jsonnet.types.stdlib import prepare_stdlib

if TYPE_CHECKING:
    from tools.tanka.source.jsonnet.ast import Node

# Given the importing file's name and the import's text, the imported file's root (None when
# it cannot be imported).
ImportFunc = Callable[[str, str], "Node | None"]


# Stands for a placeholder being defined (see `new_placeholder_to_define`); never read.
_UNDEFINED = TypePlaceholder(concrete=TypeDesc())


def count_required_parameters(params: Sequence[ParamSpec]) -> int:
    """The minimum arity jsonnet-lint assumes for a signature.

    It counts the parameters that HAVE a default (so `function(a, b=1)` gets minimum 1); that
    is its behaviour at the pinned commit and its messages follow from it, so it is kept.
    """
    return sum(1 for p in params if p.has_default)


class TypeGraph:
    def __init__(self, import_func: ImportFunc) -> None:
        self.placeholders: list[TypePlaceholder] = []
        self.expr_placeholder: dict[Node, PlaceholderID] = {}
        self.element_type: list[ElementDesc | None] = []
        self.topo_order: list[PlaceholderID] = []
        self.scc_of: list[int] = []
        self.upper_bound: list[TypeDesc] = []
        self.import_func = import_func

        # These three descriptions are shared by every base type that includes them.
        any_object = ObjectDesc(unknown_contain=[ANY_TYPE], all_fields_known=False)
        any_function = FunctionDesc([ANY_TYPE], None, 0, MAX_POSSIBLE_ARITY)
        any_array = ArrayDesc(further_contain=[ANY_TYPE])

        base = [
            TypeDesc(),  # NO_TYPE, the "nil" sentinel (the ids below follow this order)
            TypeDesc(True, True, True, True, any_function, any_object, any_array),  # ANY_TYPE
            TypeDesc(boolean=True),  # BOOL_TYPE
            TypeDesc(number=True),  # NUMBER_TYPE
            TypeDesc(string=True),  # STRING_TYPE
            TypeDesc(null=True),  # NULL_TYPE
            TypeDesc(array_desc=any_array),  # ANY_ARRAY_TYPE
            TypeDesc(array_desc=ArrayDesc(further_contain=[NUMBER_TYPE])),  # NUMBER_ARRAY_TYPE
            TypeDesc(array_desc=ArrayDesc(further_contain=[BOOL_TYPE])),  # BOOL_ARRAY_TYPE
            TypeDesc(object_desc=any_object),  # ANY_OBJECT_TYPE
            TypeDesc(function_desc=any_function),  # ANY_FUNCTION_TYPE
        ]
        for desc in base:
            self.placeholders[self.new_placeholder()] = concrete_tp(desc)
        prepare_stdlib(self)

    def new_placeholder(self) -> PlaceholderID:
        self.placeholders.append(TypePlaceholder(concrete=TypeDesc()))
        self.element_type.append(None)
        return len(self.placeholders) - 1

    def new_placeholder_to_define(self) -> PlaceholderID:
        """A placeholder whose definition the caller assigns before the graph is processed.

        Building the graph makes one per expression (a million for k8s-libsonnet), so it
        holds a shared stand-in instead of an empty definition that is made only to be
        replaced; `check_defined` makes sure none is left."""
        self.placeholders.append(_UNDEFINED)
        self.element_type.append(None)
        return len(self.placeholders) - 1

    def check_defined(self) -> None:
        for i, tp in enumerate(self.placeholders):
            if tp is _UNDEFINED:
                raise AssertionError(f"placeholder {i} was never defined")

    def new_func_type(
        self, return_type: PlaceholderID, params: Sequence[ParamSpec]
    ) -> PlaceholderID:
        p = self.new_placeholder()
        desc = FunctionDesc(
            [return_type], tuple(params), count_required_parameters(params), len(params)
        )
        self.placeholders[p] = concrete_tp(TypeDesc(function_desc=desc))
        return p

    def new_simple_func_type(self, return_type: PlaceholderID, *arg_names: str) -> PlaceholderID:
        """A function whose parameters are all required."""
        p = self.new_placeholder()
        params = tuple(ParamSpec(name, has_default=False) for name in arg_names)
        desc = FunctionDesc([return_type], params, len(arg_names), len(arg_names))
        self.placeholders[p] = concrete_tp(TypeDesc(function_desc=desc))
        return p

    def prepare_types(self) -> dict[Node, TypeDesc]:
        """The upper bound of every expression's type; the graph is spent afterwards."""
        self.check_defined()
        process_graph.simplify_references(self)
        process_graph.separate_element_types(self)
        process_graph.make_topo_order(self)
        process_graph.find_types(self)
        return {e: self.upper_bound[p] for e, p in self.expr_placeholder.items()}
