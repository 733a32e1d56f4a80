"""What the linter's checks share (go-jsonnet's linter/internal/common): variables, and the
collector of findings."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

from tools.tanka.source.jsonnet import ast
from tools.tanka.source.jsonnet.errors import StaticError


class VariableKind(IntEnum):
    VarRegular = 0  # bound by `local` (or an object local)
    VarParam = 1  # a function parameter
    VarStdlib = 2  # `std`


@dataclass(eq=False, slots=True, kw_only=True)
class Variable:
    """One binding and every Var node that refers to it (go-jsonnet spells it `Occurences`)."""

    name: str
    bind_node: ast.Node | None = None
    occurences: list[ast.Node] = field(default_factory=list)
    variable_kind: VariableKind = VariableKind.VarRegular
    loc_range: ast.LocationRange = field(default_factory=ast.LocationRange)


@dataclass(slots=True)
class VariableInfo:
    """A file's variables, in the order they are bound, and the variable behind each Var."""

    variables: list[Variable] = field(default_factory=list)
    var_at: dict[ast.Node, Variable] = field(default_factory=dict)


@dataclass(slots=True)
class ErrCollector:
    errs: list[StaticError] = field(default_factory=list)

    def collect(self, err: StaticError) -> None:
        self.errs.append(err)

    def static_err(self, msg: str, loc: ast.LocationRange) -> None:
        self.errs.append(StaticError(msg, loc))
