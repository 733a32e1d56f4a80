"""Kubernetes label selectors, as `tk env list -l` and `tk export -l` apply them to environments.

tk parses `-l/--selector` with Kubernetes' own selector syntax (the one kubectl uses): a comma
separated list of requirements, all of which must hold:

    key            the label is present          !key           the label is absent
    key=v, key==v  present and equal             key!=v         absent, or not equal
    key in (a,b)   present and one of the values key notin (a,b) absent, or none of them
    key>n, key<n   present, integer, greater / smaller than n

An empty selector selects everything. A malformed one is refused with tk's text
(`Could not parse selector (-l) <text>`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from tools.tanka.errors import TankaError

# A qualified name (optional DNS-subdomain prefix and `/`) and a label value, as Kubernetes
# validates them; the selector grammar refuses anything else.
_NAME = r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?"
_KEY = re.compile(rf"^([a-z0-9]([-a-z0-9.]{{0,251}}[a-z0-9])?/)?{_NAME}$")
_VALUE = re.compile(rf"^({_NAME})?$")
_REQUIREMENT = re.compile(
    r"""^\s*(?:
        (?P<not>!)\s*(?P<absent>[^\s=!<>(),]+)
      | (?P<key>[^\s=!<>(),]+)\s*
        (?:(?P<op>==|=|!=|<|>)\s*(?P<value>[^\s,()]*)
          |\s(?P<setop>in|notin)\s*\((?P<values>[^()]*)\)
        )?
    )\s*$""",
    re.VERBOSE,
)

Labels = Mapping[str, str]


class SelectorError(TankaError):
    def __init__(self, text: str) -> None:
        super().__init__(f"Could not parse selector (-l) {text}")


@dataclass(frozen=True, slots=True)
class LabelRequirement:
    key: str
    op: str  # exists, !, =, !=, in, notin, <, >
    values: tuple[str, ...] = ()

    def matches(self, labels: Labels) -> bool:
        present = self.key in labels
        value = labels.get(self.key, "")
        match self.op:
            case "exists":
                return present
            case "!":
                return not present
            case "=" | "in":
                return present and value in self.values
            case "!=" | "notin":
                return not present or value not in self.values
        if not present or not _is_int(value):
            return False
        number, bound = int(value), int(self.values[0])
        return number > bound if self.op == ">" else number < bound


def _is_int(text: str) -> bool:
    return re.fullmatch(r"[-+]?[0-9]+", text) is not None


def _split(text: str) -> list[str]:
    """Requirements split at the commas that are not inside `( )`."""
    parts, depth, current = [], 0, ""
    for ch in text:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    parts.append(current)
    return parts


def parse_selector(text: str) -> tuple[LabelRequirement, ...]:
    """The requirements of a selector; SelectorError (tk's text) when it is malformed."""
    if not text.strip():
        return ()
    requirements: list[LabelRequirement] = []
    for part in _split(text):
        found = _REQUIREMENT.match(part)
        if found is None:
            raise SelectorError(text)
        requirements.append(_requirement(found, text))
    return tuple(requirements)


def _requirement(found: re.Match[str], text: str) -> LabelRequirement:
    values: tuple[str, ...]
    if found["absent"]:
        key, op, values = found["absent"], "!", ()
    elif found["setop"]:
        key, op = found["key"], found["setop"]
        values = tuple(v.strip() for v in found["values"].split(","))
    elif found["op"]:
        key, op, values = found["key"], found["op"].replace("==", "="), (found["value"],)
    else:
        key, op, values = found["key"], "exists", ()
    if not _KEY.match(key) or not all(_VALUE.match(v) for v in values):
        raise SelectorError(text)
    if op in ("<", ">") and not (len(values) == 1 and _is_int(values[0])):
        raise SelectorError(text)
    return LabelRequirement(key, op, values)


def selector(text: str) -> Callable[[Labels], bool]:
    """A predicate over label maps; every requirement must hold."""
    requirements = parse_selector(text)
    return lambda labels: all(r.matches(labels) for r in requirements)
