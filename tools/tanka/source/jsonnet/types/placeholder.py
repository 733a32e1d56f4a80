"""Type placeholders: the nodes of the type graph, and the well-known ones every graph starts with.

A placeholder stands for "the set of values some expression can take". Its definition is a
concrete part (a `TypeDesc`), references to other placeholders whose values it also takes
(`contains`), at most one indexing of another placeholder, and at most one builtin operation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tools.tanka.source.jsonnet.types.desc import BuiltinOpDesc, IndexSpec, TypeDesc

PlaceholderID = int

# Fixed ids, created in this order by `TypeGraph.__init__`; 0 means "no placeholder".
NO_TYPE = 0
ANY_TYPE = 1
BOOL_TYPE = 2
NUMBER_TYPE = 3
STRING_TYPE = 4
NULL_TYPE = 5
ANY_ARRAY_TYPE = 6
NUMBER_ARRAY_TYPE = 7
BOOL_ARRAY_TYPE = 8
ANY_OBJECT_TYPE = 9
ANY_FUNCTION_TYPE = 10
STDLIB_TYPE = 11


def normalize_placeholders(placeholders: list[PlaceholderID]) -> list[PlaceholderID]:
    """Sorted and without repeats; a repeated or non-first `ANY_TYPE` collapses it to [ANY_TYPE].

    The collapse is checked from the second element on, as jsonnet-lint does: after sorting,
    a single `ANY_TYPE` sits first and is kept alongside the others (which shows in `describe`).
    """
    if len(placeholders) < 2:  # already normal
        return placeholders
    # Built-in set and sort instead of a loop: this runs millions of times on large programs.
    unique = sorted(set(placeholders))
    # ANY_TYPE past the first place of the sorted list: it repeats, or something sorts before it.
    if ANY_TYPE in unique and (unique[0] != ANY_TYPE or placeholders.count(ANY_TYPE) > 1):
        return [ANY_TYPE]
    return unique


@dataclass(slots=True)
class TypePlaceholder:
    concrete: TypeDesc
    contains: list[PlaceholderID] = field(default_factory=list)
    index: IndexSpec | None = None
    builtin_op: BuiltinOpDesc | None = None
