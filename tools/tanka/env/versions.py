"""`spec.expectVersions.tanka`: the environment's constraint on the Tanka version.

tk checks the constraint (Masterminds/semver v1 syntax) against its own version before it
processes an environment's manifests (show, export, diff), and refuses when it is not met. This
engine reproduces tk at TK_VERSION (the version whose behaviour it follows, see
../shared/reference/tanka.md), so the constraint is checked against that version.

Syntax: alternatives separated by `||`; inside one, constraints separated by commas or spaces,
all of which must hold. Each is an operator (`=`, `!=`, `>`, `<`, `>=`, `=>`, `<=`, `=<`, `~`,
`~>`, `^`, or none for `=`) and a version that may end in wildcards (`1.2.x`, `1.*`, `*`), or a
hyphen range `1.2 - 1.4.5`. `~1.2.3` allows patch changes; `^1.2.3` allows any version with the
same major number at or above it (v1's caret, also for 0.x).
"""

from __future__ import annotations

import re

from tools import linear_re
from tools.tanka.errors import TankaError

TK_VERSION = "0.38.0"

_VERSION = r"v?(?:[0-9]+|[xX*])(?:\.(?:[0-9]+|[xX*])){0,2}(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?"
_OPS = r"!=|>=|=>|<=|=<|~>|=|>|<|~|\^"
# RE2, as tk's Go regexp (and its ASCII `\s`): under re, `_WHOLE` backtracked exponentially on
# an environment's `expectVersions.tanka` of a dozen versions and a stray character (19: hours).
_ONE = linear_re.compile(rf"\s*({_OPS})?\s*({_VERSION})\s*")
_HYPHEN = linear_re.compile(rf"\s*({_VERSION})\s+-\s+({_VERSION})\s*")
_WHOLE = linear_re.compile(rf"^(?:\s*(?:{_OPS})?\s*{_VERSION}\s*,?)+$")

Version = tuple[int, int, int]


class VersionError(TankaError):
    """The running version does not satisfy spec.expectVersions.tanka (tk's text)."""


def check_version(constraint: str, current: str = TK_VERSION) -> None:
    """tk's checkVersion: nothing when the constraint is empty or met, else VersionError."""
    if not constraint:
        return
    try:
        ok = satisfies(_parse_version(current)[0], constraint)
    except ValueError:
        raise VersionError(
            f"parsing version constraint: 'improper constraint: {constraint}'. "
            "Please check 'spec.expectVersions.tanka'"
        ) from None
    if not ok:
        raise VersionError(
            f"current version '{current}' does not satisfy the version required by the "
            f"environment: '{constraint}'. You likely need to use another version of Tanka"
        )


def satisfies(version: Version, constraint: str) -> bool:
    """Whether `version` meets the constraint; ValueError when the constraint is malformed."""
    return any(_all_of(version, alternative) for alternative in constraint.split("||"))


def _all_of(version: Version, text: str) -> bool:
    ranges = [(m.start(), m.end(), m[1], m[2]) for m in _HYPHEN.finditer(text)]
    rest = text
    checks: list[bool] = []
    for start, end, low, high in reversed(ranges):
        checks.append(_compare(version, ">=", low) and _compare(version, "<=", high))
        rest = rest[:start] + "," + rest[end:]
    rest = rest.strip(" ,")
    if rest:
        if not _WHOLE.match(rest):
            raise ValueError(text)
        for found in _ONE.finditer(rest.replace(",", " ")):
            checks.append(_compare(version, found[1] or "=", found[2]))
    elif not ranges:
        raise ValueError(text)
    return all(checks)


def _parse_version(text: str) -> tuple[Version, int]:
    """(major, minor, patch) with wildcards as 0, and how many leading parts are concrete."""
    core = re.split(r"[-+]", text.lstrip("v"), maxsplit=1)[0]
    parts = core.split(".")
    numbers: list[int] = []
    for part in parts:
        if part in ("x", "X", "*"):
            break
        if not part.isdigit():
            raise ValueError(text)
        numbers.append(int(part))
    given = len(numbers)
    numbers += [0] * (3 - len(numbers))
    return (numbers[0], numbers[1], numbers[2]), given


def _bump(bound: Version, given: int) -> Version:
    """The first version past a partial one: 1.2 -> 1.3.0, 1 -> 2.0.0."""
    if given == 1:
        return (bound[0] + 1, 0, 0)
    return (bound[0], bound[1] + 1, 0)


def _compare(version: Version, op: str, text: str) -> bool:
    bound, given = _parse_version(text)
    if given == 0:  # `*`: anything
        return op not in ("!=", "<", ">")
    # A partial version (1.2, 1.2.x) stands for the whole range up to the next one.
    upper = _bump(bound, given) if given < 3 else None
    inside = bound <= version < upper if upper else version == bound
    tests = {
        "=": lambda: inside,
        "!=": lambda: not inside,
        ">=": lambda: version >= bound,
        ">": lambda: version >= upper if upper else version > bound,
        "<=": lambda: version < upper if upper else version <= bound,
        "<": lambda: version < bound,
        "~": lambda: bound <= version < _bump(bound, 2 if given == 3 else given),
        "^": lambda: version[0] == bound[0] and version >= bound,
    }
    aliases = {"=>": ">=", "=<": "<=", "~>": "~"}
    return tests[aliases.get(op, op)]()
