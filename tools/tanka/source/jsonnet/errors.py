"""go-jsonnet's StaticError: a message at a location (parse and static-analysis errors)."""

from __future__ import annotations

from tools.errors import EngineError
from tools.tanka.source.jsonnet.ast import LocationRange


class StaticError(EngineError):
    """A lexing, parsing or static-analysis error; `str()` is go-jsonnet's `loc msg` text."""

    def __init__(
        self, msg: str, loc: LocationRange | None = None, cause: StaticError | None = None
    ) -> None:
        super().__init__(msg)
        self.msg = msg
        self.loc = loc if loc is not None else LocationRange()
        self.cause = cause  # for an import: the error inside the imported file, if any

    def with_context(self, context: str) -> StaticError:
        return StaticError(f"{self.msg} while {context}", self.loc)

    def __str__(self) -> str:
        where = str(self.loc) if self.loc.is_set() else ""
        return f"{where} {self.msg}"


class ParseError(StaticError):
    """A StaticError from lexing or parsing (rather than from the analysis after it)."""
