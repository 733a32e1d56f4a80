"""The operator check: Jsonnet sources whose `+` and `%` prove they write text as go-jsonnet does.

jrsonnet's `+` (a string and anything else) and `%` (std.format) turn numbers into text without
going through `std`, so no guard (rust_std.py) sees them, and the result check (rust_vouch.py)
cannot tell a number one of them wrote from the same digits written in the source:
`'histogram_quantile(0.99, ...'` reads like `'' + 0.99`. Grafana dashboards are full of such text,
so every environment holding one went to go-jsonnet.

The check settles the doubt with a second jrsonnet run over the same files with each `+` and `%`
rewritten as a call (`a + b` -> `__tk_op.add(a, b)`): the call writes the text the operator
would, and when that text is not plainly the same in both evaluators (a fraction, an object) asks
go-jsonnet's own function (go_std.GO_STD) and stops the run (FALLBACK_MARK) if the two differ.
A run that ends has shown that every text the operators wrote is go-jsonnet's, so the first
run's strings - the same program over the same texts, taking the same branches - are go-jsonnet's
too: its value is tk's. The first run still answers for the stack: the calls add frames jrsonnet
counts, so the check may use more (rust_eval.py). A file doubted before (`doubted`) is checked
at once, and the check alone answers when it fits in the first run's share of the stack.

The rewrite works on the syntax tree of the linter's parser (tools.tanka.source.jsonnet), as text
insertions at the operands' places, so every line keeps its number. Parsing in Python takes about
1 s a megabyte (the rewrite read back included): rewritten files are kept by content, in memory and
in a private directory.
"""

from __future__ import annotations

import bisect
import contextlib
import dataclasses
import hashlib
import os
import stat
import tempfile
from pathlib import Path

from tools.tanka.evaluation.go_std import GO_STD
from tools.tanka.evaluation.rust_std import FALLBACK_MARK, plain_source
from tools.tanka.source.jsonnet import ast
from tools.tanka.source.jsonnet.children import children
from tools.tanka.source.jsonnet.errors import StaticError
from tools.tanka.source.jsonnet.lexer import Token, TokenKind, lex
from tools.tanka.source.jsonnet.parser import deep_recursion, parse_tokens

OPERATORS_NAME = "<internal>/tanka-rust-operators.libsonnet"
# Line 1 of a rewritten file, before the guard prelude: the calls, over the real std.
_CALLER = "__tk_op"
PRELUDE = f"local {_CALLER} = (import '{OPERATORS_NAME}')(std); "
# A check after the first run evaluates the program a second time: its std.trace is silent (the
# first run printed). A check alone prints.
QUIET_PRELUDE = PRELUDE + "local __tk_std = std; local std = __tk_std { trace(str, rest):: rest }; "
_ADD, _MOD = f"{_CALLER}.add(", f"{_CALLER}.mod("
# Why the check stops where an operator's text is not go-jsonnet's.
MISMATCH = "an operator writes text go-jsonnet writes otherwise"
# Bump when the rewrite changes: kept files of another version are not read.
VERSION = "1"

# plain(v): written alike by both, no native call (most `%` and `+` operands); strings are
# themselves.
OPERATORS_SOURCE = (
    "function(std)\n"
    + plain_source("std")
    + f"""\
  local go(name, args) = std.native('{GO_STD}')(name, args);
  local same(mine, theirs) =
    if mine == theirs then mine
    else error '{FALLBACK_MARK}: {MISMATCH}';
  // What go-jsonnet is given: JSON values (an object's visible fields), as its text shows them.
  local data(v) = if std.isNumber(v) then v else std.parseJson(std.manifestJsonMinified(v));
  local text(v) = if std.isString(v) || plain(v) || std.isFunction(v) then std.toString(v)
                  else same(std.toString(v), go('toString', [data(v)]));
  local shown(v) = std.isString(v) || plain(v);
  // `%(name)s` reads only the fields it names (a "%%(" too, which at worst stops the check):
  // the others may never be evaluated, as an object's fields need not be.
  local named(format, vals) = {{
    [key]: vals[key]
    for key in std.set([std.split(part, ')')[0] for part in std.split(format, '%(')[1:]])
    if std.objectHasAll(vals, key)
  }};
  local formatted(vals) =
    if std.isArray(vals) then std.all([shown(v) for v in vals])
    else if std.isObject(vals) then std.all([shown(vals[k]) for k in std.objectFields(vals)])
    else shown(vals);
  local format(a, b) =
    local vals = if std.isObject(b) then named(a, b) else b;
    if formatted(vals) then a % b else same(a % b, go('format', [a, data(vals)]));
  {{
    add(a, b)::
      if std.isString(a) then (if std.isString(b) then a + b else a + text(b))
      else if std.isString(b) then text(a) + b
      else a + b,
    mod(a, b):: if std.isString(a) then format(a, b) else a % b,
  }}
"""
)

# Rewritten text kept in memory, in characters: a worker is replaced past 256 MB (pool.py).
_KEPT_IN_MEMORY = 16 << 20
_KEPT_ON_DISK = 50_000
# What one check may parse of files not rewritten before (about 0.25 s, the rewrite read back
# included): a doubt in an environment over megabytes of libraries costs no more than that on a
# cold cache, and each evaluation keeps what it parsed, so the next one gets further.
PARSE_BUDGET = 256 * 1024
_memory: dict[str, str | None] = {}
_memory_size = [0]  # characters in _memory


class Rewrites:
    """One check's rewritten files (`__call__`), to follow `prelude` (PRELUDE or QUIET_PRELUDE)
    on line 1, parsing at most `budget` characters anew."""

    def __init__(self, prelude: str = PRELUDE, budget: int = PARSE_BUDGET) -> None:
        self.prelude = prelude
        self.left = budget
        self.refused: str | None = None  # why a file has no rewrite, for the fallback's reason

    def __call__(self, path: str, text: str) -> str | None:
        """`text` (the file `path`) with its operators checked, to follow the prelude;
        None when it cannot be rewritten (the linter's parser cannot read it, or reads the
        rewrite back as another program) or the budget is spent."""
        key = hashlib.sha256(f"{VERSION}\0{text}".encode()).hexdigest()
        if key in _memory:
            found = _memory[key]
        else:
            found = _read_kept(key)
            if found is None:
                if len(text) > self.left:
                    self.refused = f"it would parse more than {PARSE_BUDGET // 1024} KB anew"
                    return None
                self.left -= len(text)
                found = _rewrite(path, text)
                if found is not None:
                    _keep(key, found)
            if _memory_size[0] >= _KEPT_IN_MEMORY:
                _memory.clear()
                _memory_size[0] = 0
            _memory[key] = found
            _memory_size[0] += len(found or "")
        if found is None:
            self.refused = f"cannot rewrite {os.path.basename(path)}"
        return found


def _rewrite(path: str, text: str) -> str | None:
    if _CALLER in text:  # a file could bind the name itself and check nothing
        return None
    try:
        with deep_recursion():
            tokens = lex(path, text)
            tree = parse_tokens(tokens)
    except (StaticError, RecursionError):
        return None
    places = _Places(text, tokens)
    inserts: list[tuple[int, int, str]] = []  # (offset, order at that offset, text)
    seen: set[ast.Node] = set()  # nodes hash by identity
    stack: list[ast.Node] = [tree]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        stack.extend(child for child in children(node) if child is not None)
        if not isinstance(node, ast.Binary) or not _may_write_text(node):
            continue
        # The operator is the token just before its right operand (comments are no tokens).
        operator = places.token_before(node.right.loc_range.begin)
        if operator is None or not node.left.loc_range.begin.is_set():
            return None
        # At one offset: a call's closing bracket, then one that opens, then the operator
        # turned comma - `(a + b) + c` nests as written.
        call = _ADD if node.op is ast.BinaryOp.BopPlus else _MOD
        inserts.append((places.offset(node.left.loc_range.begin), 1, call))
        inserts.append((places.end(node.right), 0, ")"))
        inserts.append((operator, 2, ","))
    rewritten = _applied(text, inserts)
    return rewritten if _is_the_rewrite_of(tree, path, rewritten) else None


def _is_the_rewrite_of(tree: ast.Node, path: str, rewritten: str) -> bool:
    """Whether `rewritten` parses to `tree` with some `+` and `%` as calls and nothing else
    changed: a bracket in the wrong place could make another valid program, whose check would
    vouch for nothing. Parsing again doubles a file's first rewrite (kept afterwards)."""
    try:
        with deep_recursion():
            again = parse_tokens(lex(path, rewritten))
    except (StaticError, RecursionError):
        return False
    pairs: list[tuple[object, object]] = [(tree, again)]
    while pairs:
        was, now = pairs.pop()
        call = _call_of(now)
        if call is not None and isinstance(was, ast.Binary):
            if was.op is not call[0]:
                return False
            pairs += [(was.left, call[1]), (was.right, call[2])]
        elif type(was) is not type(now):
            return False
        elif isinstance(was, list) and isinstance(now, list):
            if len(was) != len(now):
                return False
            pairs += zip(was, now, strict=True)
        elif dataclasses.is_dataclass(was):
            for field in dataclasses.fields(was):
                if field.name not in _PLACES:
                    pairs.append((getattr(was, field.name), getattr(now, field.name)))
        elif was != now:
            return False
    return True


# What says where a node is, not what it is.
_PLACES = frozenset(("loc_range", "free_vars", "ctx"))


def _call_of(node: object) -> tuple[ast.BinaryOp, ast.Node, ast.Node] | None:
    """(operator, left, right) when `node` is a call the rewrite wrote."""
    if not isinstance(node, ast.Apply) or node.arguments.named:
        return None
    target, args = node.target, node.arguments.positional
    if not (isinstance(target, ast.Index) and isinstance(target.target, ast.Var)):
        return None
    if target.target.id != _CALLER or target.id not in _CALLS or len(args) != 2:
        return None
    return _CALLS[target.id], args[0].expr, args[1].expr


_CALLS = {"add": ast.BinaryOp.BopPlus, "mod": ast.BinaryOp.BopPercent}


class _Places:
    """Offsets in the text of the tree's locations and tokens. A node's end is taken from its
    last token: the parser keeps go-jsonnet's locations, where `super.name` ends at `super`."""

    def __init__(self, text: str, tokens: list[Token]) -> None:
        self.text = text
        self.lines = _line_starts(text)
        self.tokens = tokens
        self.begins = [self.offset(t.loc.begin) for t in tokens]
        self._ends: dict[ast.Node, int] = {}  # nodes hash by identity

    def offset(self, where: ast.Location) -> int:
        return self.lines[where.line - 1] + where.column - 1

    def token_before(self, where: ast.Location) -> int | None:
        index = bisect.bisect_left(self.begins, self.offset(where)) - 1
        kind = self.tokens[index].kind if index >= 0 else None
        return self.begins[index] if kind is TokenKind.OPERATOR else None

    def end(self, node: ast.Node) -> int:
        known = self._ends.get(node)
        if known is not None:
            return known
        # A method's function has no place of its own (line 0): its body has.
        end = self.offset(node.loc_range.end) if node.loc_range.end.is_set() else 0
        if isinstance(node, ast.SuperIndex):
            # `super.name` (the name two tokens on) or `super[index]` (the `]` after it).
            if node.index is None:
                token = self.tokens[bisect.bisect_left(self.begins, end - len("super")) + 2]
            else:
                token = self.tokens[bisect.bisect_left(self.begins, self.end(node.index))]
            end = max(end, self.offset(token.loc.end))
        for child in children(node):
            if child is not None:
                end = max(end, self.end(child))
        self._ends[node] = end
        return end


def _may_write_text(node: ast.Binary) -> bool:
    """`+` and `%` may write text, but not between two string literals or two numbers."""
    if node.op is ast.BinaryOp.BopPlus:
        kinds = {type(node.left), type(node.right)}
        return kinds not in ({ast.LiteralString}, {ast.LiteralNumber})
    return node.op is ast.BinaryOp.BopPercent and not isinstance(node.left, ast.LiteralNumber)


def _line_starts(text: str) -> list[int]:
    starts = [0]
    index = text.find("\n")
    while index != -1:
        starts.append(index + 1)
        index = text.find("\n", index + 1)
    return starts


def _applied(text: str, inserts: list[tuple[int, int, str]]) -> str:
    out: list[str] = []
    position = 0
    for at, order, insert in sorted(inserts):
        out.append(text[position:at])
        out.append(insert)
        position = at + 1 if order == 2 else at  # the operator itself becomes the comma
    out.append(text[position:])
    return "".join(out)


def doubted(key: str) -> bool:
    """Whether an entry file (`key`: its path in its project) had a doubt the check settled, in
    this process or another: the other side of a diff, the next session, the next `tk diff`."""
    if key in _doubted:
        return True
    directory = cache_dir()
    return _private(directory) and (directory / _doubt_name(key)).exists()


def note_doubt(key: str) -> None:
    if len(_doubted) >= _KEPT_DOUBTS:
        _doubted.clear()
    _doubted.add(key)
    directory = cache_dir()
    with contextlib.suppress(OSError):
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        if _private(directory):
            (directory / _doubt_name(key)).touch()


def _doubt_name(key: str) -> str:
    return "doubt-" + hashlib.sha256(f"{VERSION}\0{key}".encode()).hexdigest()[:32]


_doubted: set[str] = set()
_KEPT_DOUBTS = 10_000


# --- files kept on disk -------------------------------------------------------------------------


def cache_dir() -> Path:
    return Path(tempfile.gettempdir()) / f"tanka-bot-rewritten-{os.getuid()}"


def _private(directory: Path) -> bool:
    """Only a directory of ours that no one else may write is read: a file in it is evaluated."""
    try:
        info = os.stat(directory, follow_symlinks=False)
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & 0o022


def _read_kept(key: str) -> str | None:
    directory = cache_dir()
    if not _private(directory):
        return None
    try:
        return (directory / key).read_text("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _keep(key: str, text: str) -> None:
    directory = cache_dir()
    with contextlib.suppress(OSError):
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    if not _private(directory):
        return
    with contextlib.suppress(OSError):
        handle, temporary = tempfile.mkstemp(dir=directory, prefix=".")
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, directory / key)
        if int(key[:4], 16) < 2:  # about once in 30,000 new files: keep the newest
            _prune(directory)


def _prune(directory: Path) -> None:
    entries = [e for e in os.scandir(directory) if e.is_file() and not e.name.startswith(".")]
    if len(entries) <= _KEPT_ON_DISK:
        return
    entries.sort(key=lambda e: e.stat().st_mtime)
    for entry in entries[: len(entries) - _KEPT_ON_DISK]:
        with contextlib.suppress(OSError):
            os.unlink(entry.path)
