"""Jsonnet syntax tree nodes, mirroring go-jsonnet's `ast` package (types and field names).

Class names are go-jsonnet's; fields are the snake_case of its Go field names (`LocRange` ->
`loc_range`, `Arguments` -> `arguments`, `TailStrict` -> `tail_strict`, `Id` -> `id`). Fodder
(comments and whitespace) is not kept: nothing here reformats source. Nodes compare and hash by
identity (`eq=False`), so passes can key dictionaries by node.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import TypeVar

_T = TypeVar("_T")

Identifier = str
Identifiers = list[str]


@dataclass(frozen=True, slots=True)
class Location:
    """A 1-based line and column (columns count characters, not bytes); line 0 means unset."""

    line: int = 0
    column: int = 0

    def is_set(self) -> bool:
        return self.line != 0

    def __str__(self) -> str:
        return f"{self.line}:{self.column}"


def location_before(a: Location, b: Location) -> bool:
    return (a.line, a.column) < (b.line, b.column)


@dataclass(slots=True)
class Source:
    """A file's text split into lines, each ending in a newline (as the error snippets need)."""

    diagnostic_file_name: str
    lines: list[str]


def build_source(diagnostic_file_name: str, text: str) -> Source:
    lines = text.split("\n")
    return Source(diagnostic_file_name, [line + "\n" for line in lines])


@dataclass(frozen=True, slots=True)
class LocationRange:
    """Where a node is: `begin` is its first character, `end` is just past its last one."""

    file_name: str = ""
    file: Source | None = field(default=None, compare=False)
    begin: Location = Location()
    end: Location = Location()

    def is_set(self) -> bool:
        return self.begin.is_set()

    def with_code(self) -> bool:
        return self.begin.line != 0

    def __str__(self) -> str:
        if not self.is_set():
            return self.file_name
        prefix = f"{self.file.diagnostic_file_name}:" if self.file is not None else ""
        if prefix == ":":
            prefix = ""
        if self.begin.line == self.end.line:
            if self.begin.column == self.end.column:
                return f"{prefix}{self.begin}"
            return f"{prefix}{self.begin}-{self.end.column}"
        return f"{prefix}({self.begin})-({self.end})"


def location_range_between(a: LocationRange, b: LocationRange) -> LocationRange:
    return LocationRange(a.file_name, a.file, a.begin, b.end)


def location_range_message(message: str) -> LocationRange:
    """A location that is only a description (no file position), e.g. `<std>`."""
    return LocationRange(file_name=message)


# --- nodes -------------------------------------------------------------------------------------


@dataclass(eq=False, slots=True, kw_only=True)
class Node:
    """go-jsonnet's NodeBase: every node has a location, free variables and a context."""

    loc_range: LocationRange = LocationRange()
    free_vars: Identifiers = field(default_factory=list)
    ctx: str | None = None

    def loc(self) -> LocationRange:
        return self.loc_range


@dataclass(eq=False, slots=True, kw_only=True)
class IfSpec:
    expr: Node


@dataclass(eq=False, slots=True, kw_only=True)
class ForSpec:
    """`for var_name in expr` with its `if`s; `outer` is the spec to its left (nesting order)."""

    var_name: Identifier
    expr: Node
    conditions: list[IfSpec] = field(default_factory=list)
    outer: ForSpec | None = None


@dataclass(eq=False, slots=True, kw_only=True)
class CommaSeparatedExpr:
    expr: Node


@dataclass(eq=False, slots=True, kw_only=True)
class NamedArgument:
    name: Identifier
    arg: Node


@dataclass(eq=False, slots=True, kw_only=True)
class Arguments:
    positional: list[CommaSeparatedExpr] = field(default_factory=list)
    named: list[NamedArgument] = field(default_factory=list)


@dataclass(eq=False, slots=True, kw_only=True)
class Apply(Node):
    target: Node
    arguments: Arguments = field(default_factory=Arguments)
    trailing_comma: bool = False
    tail_strict: bool = False


@dataclass(eq=False, slots=True, kw_only=True)
class ApplyBrace(Node):
    left: Node
    right: Node


@dataclass(eq=False, slots=True, kw_only=True)
class Array(Node):
    elements: list[CommaSeparatedExpr] = field(default_factory=list)
    trailing_comma: bool = False


@dataclass(eq=False, slots=True, kw_only=True)
class ArrayComp(Node):
    body: Node
    spec: ForSpec
    trailing_comma: bool = False


@dataclass(eq=False, slots=True, kw_only=True)
class Assert(Node):
    cond: Node
    message: Node | None
    rest: Node


class BinaryOp(IntEnum):
    BopMult = 0
    BopDiv = 1
    BopPercent = 2
    BopPlus = 3
    BopMinus = 4
    BopShiftL = 5
    BopShiftR = 6
    BopGreater = 7
    BopGreaterEq = 8
    BopLess = 9
    BopLessEq = 10
    BopIn = 11
    BopManifestEqual = 12
    BopManifestUnequal = 13
    BopBitwiseAnd = 14
    BopBitwiseXor = 15
    BopBitwiseOr = 16
    BopAnd = 17
    BopOr = 18

    def __str__(self) -> str:
        return _BOP_STRINGS[self]


_BOP_STRINGS = {
    BinaryOp.BopMult: "*",
    BinaryOp.BopDiv: "/",
    BinaryOp.BopPercent: "%",
    BinaryOp.BopPlus: "+",
    BinaryOp.BopMinus: "-",
    BinaryOp.BopShiftL: "<<",
    BinaryOp.BopShiftR: ">>",
    BinaryOp.BopGreater: ">",
    BinaryOp.BopGreaterEq: ">=",
    BinaryOp.BopLess: "<",
    BinaryOp.BopLessEq: "<=",
    BinaryOp.BopIn: "in",
    BinaryOp.BopManifestEqual: "==",
    BinaryOp.BopManifestUnequal: "!=",
    BinaryOp.BopBitwiseAnd: "&",
    BinaryOp.BopBitwiseXor: "^",
    BinaryOp.BopBitwiseOr: "|",
    BinaryOp.BopAnd: "&&",
    BinaryOp.BopOr: "||",
}
BOP_MAP: dict[str, BinaryOp] = {text: op for op, text in _BOP_STRINGS.items()}


@dataclass(eq=False, slots=True, kw_only=True)
class Binary(Node):
    left: Node
    op: BinaryOp
    right: Node


@dataclass(eq=False, slots=True, kw_only=True)
class Conditional(Node):
    """`if cond then branch_true else branch_false`; desugaring fills a missing else with null."""

    cond: Node
    branch_true: Node
    branch_false: Node | None


@dataclass(eq=False, slots=True, kw_only=True)
class Dollar(Node):
    pass


@dataclass(eq=False, slots=True, kw_only=True)
class Error(Node):
    expr: Node


@dataclass(eq=False, slots=True, kw_only=True)
class Parameter:
    """A function parameter; with `default_arg` it is optional."""

    name: Identifier
    default_arg: Node | None = None
    loc_range: LocationRange = LocationRange()


@dataclass(eq=False, slots=True, kw_only=True)
class Function(Node):
    parameters: list[Parameter]
    body: Node
    trailing_comma: bool = False


@dataclass(eq=False, slots=True, kw_only=True)
class LiteralString(Node):
    value: str
    kind: LiteralStringKind
    block_indent: str = ""
    block_term_indent: str = ""


@dataclass(eq=False, slots=True, kw_only=True)
class Import(Node):
    file: LiteralString


@dataclass(eq=False, slots=True, kw_only=True)
class ImportStr(Node):
    file: LiteralString


@dataclass(eq=False, slots=True, kw_only=True)
class ImportBin(Node):
    file: LiteralString


@dataclass(eq=False, slots=True, kw_only=True)
class Index(Node):
    """`target[index]` or `target.id`; after desugaring `id` is None and `index` is set."""

    target: Node
    index: Node | None = None
    id: Identifier | None = None


@dataclass(eq=False, slots=True, kw_only=True)
class Slice(Node):
    target: Node
    begin_index: Node | None = None
    end_index: Node | None = None
    step: Node | None = None


@dataclass(eq=False, slots=True, kw_only=True)
class LocalBind:
    """`variable = body`; with `fun` (method sugar `f(x) = ...`) `body` is that function's body."""

    variable: Identifier
    body: Node
    fun: Function | None = None
    loc_range: LocationRange = LocationRange()


@dataclass(eq=False, slots=True, kw_only=True)
class Local(Node):
    binds: list[LocalBind]
    body: Node


@dataclass(eq=False, slots=True, kw_only=True)
class LiteralBoolean(Node):
    value: bool


@dataclass(eq=False, slots=True, kw_only=True)
class LiteralNull(Node):
    pass


@dataclass(eq=False, slots=True, kw_only=True)
class LiteralNumber(Node):
    original_string: str


class LiteralStringKind(IntEnum):
    StringSingle = 0
    StringDouble = 1
    StringBlock = 2
    VerbatimStringDouble = 3
    VerbatimStringSingle = 4

    def fully_escaped(self) -> bool:
        return self in (LiteralStringKind.StringSingle, LiteralStringKind.StringDouble)


class ObjectFieldKind(IntEnum):
    ObjectAssert = 0  # assert expr2 [: expr3]
    ObjectFieldID = 1  # id: expr2
    ObjectFieldExpr = 2  # [expr1]: expr2
    ObjectFieldStr = 3  # "str" (expr1): expr2
    ObjectLocal = 4  # local id = expr2


class ObjectFieldHide(IntEnum):
    ObjectFieldHidden = 0  # f:: e
    ObjectFieldInherit = 1  # f: e
    ObjectFieldVisible = 2  # f::: e


@dataclass(eq=False, slots=True, kw_only=True)
class ObjectField:
    """A field of an object (or comprehension) before desugaring; see ObjectFieldKind."""

    kind: ObjectFieldKind
    hide: ObjectFieldHide = ObjectFieldHide.ObjectFieldVisible
    super_sugar: bool = False
    method: Function | None = None  # f(x): ... ; then expr2 is method.body
    id: Identifier | None = None
    expr1: Node | None = None  # outside the object's scope
    expr2: Node | None = None  # inside it (sees self)
    expr3: Node | None = None
    loc_range: LocationRange = LocationRange()


@dataclass(eq=False, slots=True, kw_only=True)
class Object(Node):
    fields: list[ObjectField]
    trailing_comma: bool = False


@dataclass(eq=False, slots=True, kw_only=True)
class DesugaredObjectField:
    name: Node
    body: Node
    hide: ObjectFieldHide
    plus_super: bool = False
    loc_range: LocationRange = LocationRange()


@dataclass(eq=False, slots=True, kw_only=True)
class DesugaredObject(Node):
    asserts: list[Node] = field(default_factory=list)
    fields: list[DesugaredObjectField] = field(default_factory=list)
    locals: list[LocalBind] = field(default_factory=list)


@dataclass(eq=False, slots=True, kw_only=True)
class ObjectComp(Node):
    fields: list[ObjectField]
    spec: ForSpec
    trailing_comma: bool = False


@dataclass(eq=False, slots=True, kw_only=True)
class Parens(Node):
    inner: Node


@dataclass(eq=False, slots=True, kw_only=True)
class Self(Node):
    pass


@dataclass(eq=False, slots=True, kw_only=True)
class SuperIndex(Node):
    """`super[index]` or `super.id`; after desugaring `id` is None."""

    index: Node | None = None
    id: Identifier | None = None


@dataclass(eq=False, slots=True, kw_only=True)
class InSuper(Node):
    index: Node


class UnaryOp(IntEnum):
    UopNot = 0
    UopBitwiseNot = 1
    UopPlus = 2
    UopMinus = 3

    def __str__(self) -> str:
        return _UOP_STRINGS[self]


_UOP_STRINGS = {
    UnaryOp.UopNot: "!",
    UnaryOp.UopBitwiseNot: "~",
    UnaryOp.UopPlus: "+",
    UnaryOp.UopMinus: "-",
}
UOP_MAP: dict[str, UnaryOp] = {text: op for op, text in _UOP_STRINGS.items()}


@dataclass(eq=False, slots=True, kw_only=True)
class Unary(Node):
    op: UnaryOp
    expr: Node


@dataclass(eq=False, slots=True, kw_only=True)
class Var(Node):
    id: Identifier


def present(value: _T | None, what: str = "node") -> _T:
    """`value`, which a previous pass guarantees is set (a TypeError names a broken tree)."""
    if value is None:
        raise TypeError(f"malformed syntax tree: {what} is missing")
    return value
