"""The repository's Rego policies, in conftest's convention, run on every rendered object.

- Policies are the `*.rego` files below the policy folder (default `policy/`), recursively;
  `*_test.rego` files are conftest/OPA unit tests and are skipped.
- `input` is the rendered object itself, as conftest passes it. The environment is data:
  `data.tanka.environment` is the environment as `tanka-bot tk env list --json` prints it
  (`.metadata.name`, `.spec.namespace`, `.spec.apiServer`, ...) and `data.tanka.path` its
  directory relative to the repository.
- Rules of `package main` named `deny`, `violation` or `warn` (or `deny_<suffix>` etc., as
  conftest matches them) produce findings: deny and violation are errors, warn is a warning.
  Rules of `package main.<kind>` (lowercase kind: `main.deployment`) apply to that kind only.
- A rule's value may be a string, an object with `msg` (conftest's structured form), or `true`
  for a rule without a message.
- Policies that would check nothing are a broken setup (PolicyError), never a clean pass: files
  none of which is in package `main` (or `main.<kind>`), or whose `main` packages define no
  deny/violation/warn rule. This is read from the source (`outline`): evaluating cannot tell a
  rule that is absent from one that did not fire.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tools.tanka.check.errors import CheckSetupError, PolicyError
from tools.tanka.check.findings import Level
from tools.tanka.check.rego import CompiledPolicy, Module, check_syntax

PACKAGE = "main"
_RULE = re.compile(r"^(deny|violation|warn)(_[A-Za-z0-9_]+)?$")
_LEVELS = {"deny": Level.ERROR, "violation": Level.ERROR, "warn": Level.WARNING}


@dataclass(frozen=True, slots=True)
class RuleResult:
    rule: str  # main.deny, main.deployment.warn_replicas, ...
    level: Level
    message: str


def policy_files(folder: Path) -> list[Path]:
    return sorted(
        p for p in folder.rglob("*.rego") if p.is_file() and not p.name.endswith("_test.rego")
    )


class PolicySet:
    """The parsed policies of one repository; `compile` them for each environment."""

    def __init__(self, modules: Sequence[Module]) -> None:
        check_syntax(modules)
        _check_something_is_checked(modules)
        self.modules = tuple(modules)

    @property
    def files(self) -> list[str]:
        return [m.name for m in self.modules]

    @classmethod
    def load(cls, root: Path, policy_dir: str) -> PolicySet:
        """The policies in `root/policy_dir`; none when the folder does not exist."""
        folder = root / policy_dir
        if folder.exists() and not folder.is_dir():
            raise CheckSetupError(
                f"TANKA_BOT_POLICY_DIR={policy_dir}: {folder} is a file; set it to a folder of "
                ".rego files relative to the repository root"
            )
        if not folder.is_dir():
            return cls([])
        modules = []
        for path in policy_files(folder):
            shown = path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
            try:
                source = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise PolicyError(f"{shown}: cannot be read ({exc}); fix or remove it") from None
            modules.append(Module(shown, source))
        return cls(modules)

    def compile(self, environment: Mapping[str, Any], env_path: str) -> CompiledPolicy | None:
        """The policies with this environment as data; None when there are none."""
        if not self.modules:
            return None
        data = {"tanka": {"environment": dict(environment), "path": env_path}}
        return CompiledPolicy(self.modules, data)


def rule_results(result: Mapping[str, Any], kind: str) -> list[RuleResult]:
    """conftest's reading of `data.main` for one object of `kind`."""
    found = list(_rules(result, PACKAGE))
    scoped = result.get(kind.lower())
    if isinstance(scoped, Mapping):
        found.extend(_rules(scoped, f"{PACKAGE}.{kind.lower()}"))
    return found


def _rules(package: Mapping[str, Any], prefix: str) -> Iterator[RuleResult]:
    for name in sorted(package):
        match = _RULE.match(name)
        if match is None:
            continue
        level = _LEVELS[match.group(1)]
        for message in _messages(package[name], name):
            yield RuleResult(f"{prefix}.{name}", level, message)


def _messages(value: Any, name: str) -> Iterator[str]:
    if value is True:
        yield f"rule {name} is true"
    elif isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield _message(item)
    elif isinstance(value, Mapping):
        # rego-cpp reads the pre-1.0 `deny[msg] { ... }` as an object rule msg -> true.
        if all(item is True for item in value.values()):
            yield from (str(key) for key in value)
        else:
            yield _message(value)


def _message(item: Any) -> str:
    if isinstance(item, Mapping) and "msg" in item:
        return str(item["msg"])
    return item if isinstance(item, str) else repr(item)


@dataclass(frozen=True, slots=True)
class Outline:
    package: str  # `main.deployment`; "" when the module declares none
    rules: frozenset[str]  # the names of the rules it defines


def _check_something_is_checked(modules: Sequence[Module]) -> None:
    if not modules:
        return
    outlines = [(m.name, outline(m.source)) for m in modules]
    ours = [(name, o) for name, o in outlines if _evaluated(o.package)]
    if not ours:
        named = _names(f"{name} (package {o.package or 'none'})" for name, o in outlines)
        raise PolicyError(
            f"{named}: no policy is in package {PACKAGE} or {PACKAGE}.<kind>, the namespace tk "
            "check evaluates (as conftest does by default), so nothing would be checked; declare "
            f"`package {PACKAGE}` in the policy files"
        )
    if not any(_RULE.match(rule) for _, o in ours for rule in o.rules):
        raise PolicyError(
            f"{_names(name for name, _ in ours)}: package {PACKAGE} (and {PACKAGE}.<kind>) has "
            "no rule named deny, violation or warn (or deny_<name>, violation_<name>, "
            "warn_<name>), so nothing would be checked; name the rules as conftest does"
        )


def _evaluated(package: str) -> bool:
    """The packages `rule_results` reads: main and main.<kind>."""
    return package == PACKAGE or re.fullmatch(rf"{PACKAGE}\.[A-Za-z0-9_]+", package) is not None


def _names(names: Iterable[str], shown: int = 10) -> str:
    listed = list(names)
    more = f" and {len(listed) - shown} more" if len(listed) > shown else ""
    return ", ".join(listed[:shown]) + more


# A Rego token that matters to the outline: a string (raw or not), a comment, a bracket, a
# newline, or an identifier. Anything else (operators, numbers) is skipped.
_TOKEN = re.compile(
    r"""(?P<string>"(?:[^"\\\n]|\\.)*"|`[^`]*`)|(?P<comment>\#[^\n]*)|(?P<open>[{[(])"""
    r"|(?P<close>[}\])])|(?P<newline>\n)|(?P<ident>[A-Za-z_][A-Za-z0-9_]*)"
)
_PACKAGE_REF = re.compile(r"""\s*package\s+((?:[A-Za-z_][A-Za-z0-9_]*|\.|\["[^"]*"\])+)""")


def outline(source: str) -> Outline:
    """The package and rule names of a module that parses: the first identifier of each
    statement outside any bracket, `default` skipped (rule bodies, strings and comments never
    count). Rego puts one statement on a line unless a bracket keeps it open."""
    package = ""
    rules: set[str] = set()
    depth = 0
    statement_start = True
    for token in _TOKEN.finditer(source):
        kind = token.lastgroup
        if kind == "newline":
            statement_start = depth == 0
        elif kind == "open":
            depth += 1
            statement_start = False
        elif kind == "close":
            depth = max(0, depth - 1)
            statement_start = False
        elif kind == "ident" and statement_start:
            word = token.group()
            if word == "package" and not package:
                found = _PACKAGE_REF.match(source, token.start())
                package = _dotted(found.group(1)) if found else ""
            elif word not in ("package", "import", "default"):
                rules.add(word)
            statement_start = word == "default"
        elif kind == "string":
            statement_start = False
    return Outline(package, frozenset(rules))


def _dotted(ref: str) -> str:
    """`main["deployment"]` as `main.deployment`."""
    return re.sub(r"""\["([^"]*)"\]""", r".\1", ref)
