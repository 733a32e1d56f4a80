"""Type descriptions: what values a placeholder may take, and how two descriptions combine.

Aliasing is part of the behaviour being reproduced. jsonnet-lint copies descriptions shallowly,
so a widened copy keeps sharing its origin's field map (`ObjectDesc.field_contains`) and its
list of per-element lists (`ArrayDesc.element_contains`): widening the copy also widens the
origin. Those two containers are shared and mutated here in the same way. The placeholder lists
themselves are treated as values (every append builds a new list); jsonnet-lint's lists may share
spare capacity, which can only change whether a list shows `ANY_TYPE` first (see `describe`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum

from tools.tanka.source.jsonnet.types.placeholder import (
    ANY_TYPE,
    PlaceholderID,
    TypePlaceholder,
    normalize_placeholders,
)

# jsonnet-lint's stand-in for "any number of arguments" (the largest 32-bit integer).
MAX_POSSIBLE_ARITY = 2**31 - 1


@dataclass(frozen=True, slots=True)
class ParamSpec:
    """What the checker needs of a parameter: its name and whether it has a default."""

    name: str
    has_default: bool


@dataclass(slots=True)
class ArrayDesc:
    further_contain: list[PlaceholderID] = field(default_factory=list)
    # The first few elements, tracked one by one (arrays double as tuples in Jsonnet).
    element_contains: list[list[PlaceholderID]] = field(default_factory=list)

    def shallow_copy(self) -> ArrayDesc:
        return ArrayDesc(self.further_contain, self.element_contains)

    def widen(self, other: ArrayDesc | None) -> None:
        if other is None:
            return
        for i in range(len(other.element_contains)):
            if len(self.element_contains) <= i:
                self.element_contains = [*self.element_contains, list(self.further_contain)]
            self.element_contains[i] = self.element_contains[i] + other.element_contains[i]
        for i in range(len(other.element_contains), len(self.element_contains)):
            self.element_contains[i] = self.element_contains[i] + other.further_contain
        self.further_contain = self.further_contain + other.further_contain

    def normalize(self) -> None:
        for i, ps in enumerate(self.element_contains):
            self.element_contains[i] = normalize_placeholders(ps)
        self.further_contain = normalize_placeholders(self.further_contain)


class FieldMap(dict[str, list[PlaceholderID]]):
    """An object's placeholders per field name, and whether they are all normal already.

    Normalizing is the type checker's hottest step, and the same map (shared by shallow copies,
    see above) is normalized again for every component that includes the object; most of
    those times nothing was added since. The flag lets `ObjectDesc.normalize` skip a map that
    is known normal; whoever changes a map without normalizing it must clear the flag.
    """

    __slots__ = ("normal",)

    def __init__(self, fields: dict[str, list[PlaceholderID]] | None = None) -> None:
        super().__init__(fields or {})
        self.normal = False


@dataclass(slots=True)
class ObjectDesc:
    unknown_contain: list[PlaceholderID] = field(default_factory=list)
    field_contains: FieldMap = field(default_factory=FieldMap)
    all_fields_known: bool = False

    def shallow_copy(self) -> ObjectDesc:
        return ObjectDesc(self.unknown_contain, self.field_contains, self.all_fields_known)

    def widen(self, other: ObjectDesc | None) -> None:
        if other is None:
            return
        self.unknown_contain = self.unknown_contain + other.unknown_contain
        if other.field_contains or (not other.all_fields_known and other.unknown_contain):
            self.field_contains.normal = False  # lists grow below
        for name, placeholders in list(other.field_contains.items()):
            self.field_contains[name] = self.field_contains.get(name, []) + placeholders
        if not other.all_fields_known:
            for name, placeholders in list(self.field_contains.items()):
                if name not in other.field_contains:
                    self.field_contains[name] = placeholders + other.unknown_contain
            self.all_fields_known = False

    def normalize(self) -> None:
        self.unknown_contain = normalize_placeholders(self.unknown_contain)
        fields = self.field_contains
        if fields.normal:  # normalizing again would give equal lists
            return
        for name, ps in fields.items():  # values change, keys do not
            if len(ps) > 1:
                fields[name] = normalize_placeholders(ps)
        fields.normal = True


def same_parameters(a: Sequence[ParamSpec] | None, b: Sequence[ParamSpec] | None) -> bool:
    """Same names in the same order, each either required in both or optional in both."""
    if a is None or b is None or len(a) != len(b):
        return False
    return all(
        x.name == y.name and x.has_default == y.has_default for x, y in zip(a, b, strict=True)
    )


@dataclass(slots=True)
class FunctionDesc:
    result_contains: list[PlaceholderID]
    # None when unknown (a mix of different signatures) or when the function takes none.
    params: tuple[ParamSpec, ...] | None
    min_arity: int
    max_arity: int

    def shallow_copy(self) -> FunctionDesc:
        return FunctionDesc(self.result_contains, self.params, self.min_arity, self.max_arity)

    def widen(self, other: FunctionDesc | None) -> None:
        if other is None:
            return
        self.min_arity = min(self.min_arity, other.min_arity)
        self.max_arity = max(self.max_arity, other.max_arity)
        if not same_parameters(self.params, other.params):
            self.params = None
        self.result_contains = self.result_contains + other.result_contains

    def normalize(self) -> None:
        self.result_contains = normalize_placeholders(self.result_contains)


@dataclass(slots=True)
class TypeDesc:
    """An upper bound of a set of values: which kinds, and for containers what they hold."""

    boolean: bool = False
    number: bool = False
    string: bool = False
    null: bool = False
    function_desc: FunctionDesc | None = None
    object_desc: ObjectDesc | None = None
    array_desc: ArrayDesc | None = None

    def copy(self) -> TypeDesc:
        """A copy of the description itself; the container descriptions stay shared."""
        return TypeDesc(
            self.boolean,
            self.number,
            self.string,
            self.null,
            self.function_desc,
            self.object_desc,
            self.array_desc,
        )

    def any(self) -> bool:
        return (
            self.boolean
            and self.number
            and self.string
            and self.null
            and self.any_function()
            and self.any_object()
            and self.any_array()
        )

    def void(self) -> bool:
        return not (
            self.boolean
            or self.number
            or self.string
            or self.null
            or self.function_desc is not None
            or self.object_desc is not None
            or self.array_desc is not None
        )

    def function(self) -> bool:
        return self.function_desc is not None

    def object(self) -> bool:
        return self.object_desc is not None

    def array(self) -> bool:
        return self.array_desc is not None

    def any_function(self) -> bool:
        f = self.function_desc
        if f is None or f.max_arity < MAX_POSSIBLE_ARITY or f.min_arity > 0 or f.params is not None:
            return False
        return ANY_TYPE in f.result_contains

    def any_object(self) -> bool:
        o = self.object_desc
        if o is None or o.all_fields_known:
            return False
        return ANY_TYPE in o.unknown_contain

    def any_array(self) -> bool:
        # As jsonnet-lint decides it: every tracked list, and the rest, must be empty or start
        # with ANY_TYPE.
        a = self.array_desc
        if a is None:
            return False
        lists = [*a.element_contains, a.further_contain]
        return all(not ps or ps[0] == ANY_TYPE for ps in lists)

    def widen(self, b: TypeDesc) -> None:
        self.boolean = self.boolean or b.boolean
        self.number = self.number or b.number
        self.string = self.string or b.string
        self.null = self.null or b.null
        if self.function_desc is not None:
            self.function_desc.widen(b.function_desc)
        elif b.function_desc is not None:
            self.function_desc = b.function_desc.shallow_copy()
        if self.object_desc is not None:
            self.object_desc.widen(b.object_desc)
        elif b.object_desc is not None:
            self.object_desc = b.object_desc.shallow_copy()
        if self.array_desc is not None:
            self.array_desc.widen(b.array_desc)
        elif b.array_desc is not None:
            self.array_desc = b.array_desc.shallow_copy()

    def normalize(self) -> None:
        if self.array_desc is not None:
            self.array_desc.normalize()
        if self.function_desc is not None:
            self.function_desc.normalize()
        if self.object_desc is not None:
            self.object_desc.normalize()


def describe(t: TypeDesc) -> str:
    """A short human-readable account of a type, worded as in jsonnet-lint's messages."""
    if t.any():
        return "any"
    if t.void():
        return "void"
    parts = [
        text
        for present, text in (
            (t.boolean, "a bool"),
            (t.number, "a number"),
            (t.string, "a string"),
            (t.null, "a null"),
            (t.function(), "a function"),
            (t.object(), "an object"),
            (t.array(), "an array"),
        )
        if present
    ]
    return " or ".join(parts)


# How many leading elements of an array are tracked one by one (arrays double as tuples), and
# the bound below which a literal index picks such an element.
MAX_KNOWN_COUNT = 5


class IndexKind(Enum):
    GENERIC = 0
    KNOWN_INT = 1
    KNOWN_STRING = 2
    FUNCTION = 3


@dataclass(slots=True)
class IndexSpec:
    """One indexing of a placeholder: `x[e]`, `x.name`, `x[3]` or a call `x(...)`."""

    kind: IndexKind
    indexed: PlaceholderID
    known_string: str = ""
    known_int: int = 0


@dataclass(slots=True)
class ElementDesc:
    """The placeholders already made for the ways one placeholder is indexed."""

    generic: PlaceholderID = 0
    known_string: dict[str, PlaceholderID] | None = None
    known_int: list[PlaceholderID] | None = None
    call: PlaceholderID = 0


@dataclass(slots=True)
class BuiltinOpResult:
    contained: Sequence[PlaceholderID] = ()
    concrete: TypeDesc = field(default_factory=TypeDesc)


# Arguments' upper bounds where already known (None where not), and the argument placeholders.
BuiltinOpFunc = Callable[[list[TypeDesc | None], list[PlaceholderID]], BuiltinOpResult]


@dataclass(slots=True)
class BuiltinOpDesc:
    """An operation whose result type is computed from its arguments' types (only `+` today)."""

    args: list[PlaceholderID]
    f: BuiltinOpFunc

    def with_unknown(self) -> BuiltinOpResult:
        return self.f([None] * len(self.args), self.args)


def plus_objects(left: ObjectDesc | None, right: ObjectDesc | None) -> ObjectDesc | None:
    if left is None or right is None:
        return None
    fields = FieldMap()
    for name, ps in left.field_contains.items():
        fields[name] = list(ps)
        if not right.all_fields_known and name not in right.field_contains:
            fields[name] = ps + right.unknown_contain
    # Seen from outside, the right object's fields replace the left's.
    for name, ps in right.field_contains.items():
        fields[name] = list(ps)
        if not left.all_fields_known and name not in left.field_contains:
            fields[name] = ps + left.unknown_contain
    return ObjectDesc(
        unknown_contain=left.unknown_contain + right.unknown_contain,
        field_contains=fields,
        all_fields_known=left.all_fields_known and right.all_fields_known,
    )


def plus_arrays(left: ArrayDesc | None, right: ArrayDesc | None) -> ArrayDesc | None:
    if left is None or right is None:
        return None
    further = list(left.further_contain)
    # The left array's length is unknown, so the right one's tracked elements lose their place.
    for ps in right.element_contains:
        further += ps
    further += right.further_contain
    return ArrayDesc(
        further_contain=further, element_contains=[list(ps) for ps in left.element_contains]
    )


def builtin_plus(
    concrete_args: list[TypeDesc | None], p_args: list[PlaceholderID]
) -> BuiltinOpResult:
    left, right = concrete_args[0], concrete_args[1]
    if left is None or right is None:
        # Without both argument types nothing concrete can be said yet.
        return BuiltinOpResult(contained=p_args)
    return BuiltinOpResult(
        contained=p_args,
        concrete=TypeDesc(
            boolean=left.boolean and right.boolean,
            number=left.number and right.number,
            string=left.string or right.string,
            object_desc=plus_objects(left.object_desc, right.object_desc),
            array_desc=plus_arrays(left.array_desc, right.array_desc),
        ),
    )


def concrete_tp(t: TypeDesc) -> TypePlaceholder:
    return TypePlaceholder(concrete=t)


def tp_sum(p1: PlaceholderID, p2: PlaceholderID) -> TypePlaceholder:
    return TypePlaceholder(concrete=TypeDesc(), contains=[p1, p2])


def tp_index(index: IndexSpec) -> TypePlaceholder:
    return TypePlaceholder(concrete=TypeDesc(), index=index)


def tp_ref(p: PlaceholderID) -> TypePlaceholder:
    return TypePlaceholder(concrete=TypeDesc(), contains=[p])
