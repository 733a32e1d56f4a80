"""tk's `-t/--target` filters (pkg/process/filter.go).

Each expression becomes the RE2 regex `(?i)^<expr>$`, matched against `<kind>/<metadata.name>`.
A leading `!` makes it an exclusion. An object is kept when at least one expression matches
(an exclusion "matches" everything) and no exclusion does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tools.tanka.errors import NativeError, TankaError

REGEX_DOCS = "https://tanka.dev/output-filtering/#regular-expressions"


@dataclass(frozen=True, slots=True)
class Targets:
    include: tuple[Any, ...]
    exclude: tuple[Any, ...]

    def __bool__(self) -> bool:
        return bool(self.include or self.exclude)

    def keeps(self, kind_name: str) -> bool:
        included = bool(self.exclude) or any(p.search(kind_name) for p in self.include)
        return included and not any(p.search(kind_name) for p in self.exclude)


def parse_targets(expressions: Sequence[str]) -> Targets:
    """Compile the expressions; a bad one fails with tk's title-cased Go error and a docs link."""
    if not expressions:  # most renders: no filter, and no RE2 to load
        return Targets((), ())
    from tools.tanka.natives.regex import compile_go  # noqa: PLC0415 - tk start-up: RE2, 3 ms, loads for -t only

    include: list[Any] = []
    exclude: list[Any] = []
    for raw in expressions:
        pattern = f"(?i)^{raw.removeprefix('!')}$"
        try:
            compiled = compile_go(pattern)
        except NativeError as exc:
            # tk title-cases every word of Go's message (x/text cases.Title).
            raise TankaError(
                f"{str(exc).title()}.\nSee {REGEX_DOCS} for details on regular expressions."
            ) from None
        (exclude if raw.startswith("!") else include).append(compiled)
    return Targets(tuple(include), tuple(exclude))
