"""Unused local variables, reported as go-jsonnet's linter (`jsonnet-lint`) reports them.

Why a parser of our own: no maintained Python package parses Jsonnet (the `gojsonnet` binding
evaluates and formats but exposes no syntax tree), so this is a recursive-descent parser over a
tokenizer in the style of imports/scan.py. It builds no tree: it only tracks scopes, which is all
the check needs, and gives up silently on anything it cannot parse (the syntax layer of lint.py
reports parse errors with go-jsonnet's own parser).

The rule (go-jsonnet's linter): every variable bound by `local` - in an expression or in an object
- that no expression refers to is reported as `Unused variable: <name>`, located from the
variable's name to the end of its bound expression. Function parameters and comprehension
variables are never reported, `std` is predefined (a `local std` is a variable like any other),
and a reference from anywhere counts, even from the variable's own definition or from another
unused variable. Bindings are mutually recursive: `local a = b, b = 1; a` uses `b`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from tools.tanka.imports.scan import text_block_end

_TOKEN = re.compile(
    r"""
      (?P<space>[ \t\r\n]+)
    | (?P<comment>(?://|\#)[^\n]*|/\*.*?\*/)
    | (?P<str>"[^"\\]*(?:\\.[^"\\]*)*"|'[^'\\]*(?:\\.[^'\\]*)*'
             |@"[^"]*(?:""[^"]*)*"|@'[^']*(?:''[^']*)*')
    | (?P<block>\|\|\|)
    | (?P<id>[A-Za-z_][A-Za-z0-9_]*)
    | (?P<num>[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)
    | (?P<op>[!$:~+\-&|^=<>*/%]+)
    | (?P<punc>[{}\[\](),.;])
    """,
    re.VERBOSE | re.DOTALL,
)
_KEYWORDS = frozenset(
    {
        *("assert", "else", "error", "false", "for", "function", "if", "import", "importstr"),
        *("importbin", "in", "local", "null", "tailstrict", "then", "self", "super", "true"),
    }
)
_FIELD_OPS = frozenset({":", "::", ":::", "+:", "+::", "+:::"})
_UNARY = frozenset({"-", "+", "!", "~"})


class _Unparsable(Exception):
    pass


@dataclass(frozen=True, slots=True)
class _Token:
    kind: str  # id | kw | str | num | op | punc | eof
    text: str
    start: int
    end: int


def _tokens(text: str) -> Iterator[_Token]:
    pos = 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None:
            raise _Unparsable
        kind, value = match.lastgroup or "", match.group()
        if kind in ("space", "comment"):
            pos = match.end()
            continue
        if kind == "block":
            end = text_block_end(text, pos)
            if isinstance(end, str):
                raise _Unparsable
            yield _Token("str", "|||", pos, end)
            pos = end
            continue
        if kind == "op":
            value = _operator(value)
            if value == "$":
                kind = "id"
        elif kind == "id" and value in _KEYWORDS:
            kind = "kw"
        yield _Token(kind, value, pos, pos + len(value))
        pos += len(value)
    yield _Token("eof", "", len(text), len(text))


def _operator(run: str) -> str:
    """go-jsonnet's lexer: an operator stops before a comment or text block, and a trailing
    `+ - ~ ! $` is given back (so `a==-b` is `==` then `-`)."""
    for stop in ("//", "/*", "|||"):
        cut = run.find(stop, 1)
        if cut > 0:
            run = run[:cut]
    if run[0] == "$":
        return "$"
    while len(run) > 1 and run[-1] in "+-~!$":
        run = run[:-1]
    return run


@dataclass(slots=True)
class _Variable:
    name: str
    start: int
    end: int
    reported: bool  # a `local`; parameters and comprehension variables are never reported
    used: bool = False


@dataclass(slots=True)
class _Scope:
    parent: _Scope | None
    names: dict[str, _Variable] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Unused:
    name: str
    start: int  # character offsets into the source; end is exclusive
    end: int


class _Parser:
    def __init__(self, text: str) -> None:
        self.tokens = list(_tokens(text))
        self.i = 0
        self.last_end = 0
        self.variables: list[_Variable] = []
        self.references: list[tuple[_Scope, str]] = []

    # -- tokens
    def peek(self, ahead: int = 0) -> _Token:
        return self.tokens[min(self.i + ahead, len(self.tokens) - 1)]

    def next(self) -> _Token:
        token = self.peek()
        if token.kind == "eof":
            raise _Unparsable
        self.i += 1
        self.last_end = token.end
        return token

    def is_(self, kind: str, text: str | None = None, ahead: int = 0) -> bool:
        token = self.peek(ahead)
        return token.kind == kind and (text is None or token.text == text)

    def expect(self, kind: str, text: str | None = None) -> _Token:
        if not self.is_(kind, text):
            raise _Unparsable
        return self.next()

    def accept(self, kind: str, text: str) -> bool:
        if self.is_(kind, text):
            self.next()
            return True
        return False

    # -- scopes
    def bind(self, scope: _Scope, name: str, start: int, end: int, *, reported: bool) -> None:
        variable = _Variable(name, start, end, reported)
        scope.names[name] = variable
        self.variables.append(variable)

    def resolve(self) -> bool:
        """Mark the variables referred to; False when a reference is to no variable (go-jsonnet
        then stops at `Unknown variable`, before its linter looks for unused ones)."""
        for scope, name in self.references:
            current: _Scope | None = scope
            while current is not None:
                if name in current.names:
                    current.names[name].used = True
                    break
                current = current.parent
            else:
                return False
        return True

    # -- grammar
    def expr(self, scope: _Scope) -> None:
        self.unary(scope)
        while True:
            token = self.peek()
            if (token.kind == "op" and token.text not in _FIELD_OPS and token.text != "=") or (
                token.kind == "kw" and token.text == "in"
            ):
                self.next()
                if token.text == "in" and self.accept("kw", "super"):
                    continue
                self.unary(scope)
            else:
                return

    def unary(self, scope: _Scope) -> None:
        if self.is_("op") and self.peek().text in _UNARY:
            self.next()
            self.unary(scope)
            return
        if self.primary(scope):
            self.postfix(scope)

    def primary(self, scope: _Scope) -> bool:
        """Parse one operand; False when it extends to the right as far as it can (local, if,
        function, ...), so no postfix applies."""
        token = self.next()
        if token.kind in ("str", "num"):
            return True
        if token.kind == "id":
            if token.text != "$":
                self.references.append((scope, token.text))
            return True
        if token.kind == "punc":
            if token.text == "(":
                self.expr(scope)
                self.expect("punc", ")")
            elif token.text == "[":
                self.array(scope)
            elif token.text == "{":
                self.object(scope)
            else:
                raise _Unparsable
            return True
        if token.kind != "kw":
            raise _Unparsable
        return self.keyword(token.text, scope)

    def keyword(self, word: str, scope: _Scope) -> bool:
        """`primary` for an operand starting with a keyword."""
        if word in ("true", "false", "null", "self", "super"):
            return True
        if word in ("import", "importstr", "importbin"):
            self.expect("str")
            return True
        if word == "error":
            self.expr(scope)
        elif word == "assert":
            self.expr(scope)
            if self.accept("op", ":"):
                self.expr(scope)
            self.expect("punc", ";")
            self.expr(scope)
        elif word == "if":
            self.expr(scope)
            self.expect("kw", "then")
            self.expr(scope)
            if self.accept("kw", "else"):
                self.expr(scope)
        elif word == "function":
            self.expect("punc", "(")
            inner = _Scope(scope)
            self.params(inner)
            self.expr(inner)
        elif word == "local":
            inner = _Scope(scope)
            while True:
                self.local_bind(inner)
                if self.accept("punc", ";"):
                    break
                self.expect("punc", ",")
            self.expr(inner)
        else:
            raise _Unparsable
        return False

    def local_bind(self, scope: _Scope) -> None:
        """`name = e` or `name(params) = e`, bound in `scope` (which the bodies see)."""
        name = self.expect("id")
        body_scope = scope
        if self.accept("punc", "("):
            body_scope = _Scope(scope)
            self.params(body_scope)
        self.expect("op", "=")
        self.expr(body_scope)
        self.bind(scope, name.text, name.start, self.last_end, reported=True)

    def params(self, scope: _Scope) -> None:
        """After `(`: parameters (bound in scope, which their defaults see) and `)`."""
        while not self.accept("punc", ")"):
            name = self.expect("id")
            self.bind(scope, name.text, name.start, name.end, reported=False)
            if self.accept("op", "="):
                self.expr(scope)
            if not self.is_("punc", ")"):
                self.expect("punc", ",")

    def postfix(self, scope: _Scope) -> None:
        while True:
            if self.accept("punc", "."):
                self.expect("id")
            elif self.accept("punc", "["):
                self.slice(scope)
            elif self.accept("punc", "("):
                self.arguments(scope)
                self.accept("kw", "tailstrict")
            elif self.accept("punc", "{"):
                self.object(scope)
            else:
                return

    def slice(self, scope: _Scope) -> None:
        while not self.accept("punc", "]"):
            if self.is_("op") and self.peek().text in (":", "::"):
                self.next()
            else:
                self.expr(scope)

    def arguments(self, scope: _Scope) -> None:
        while not self.accept("punc", ")"):
            if self.is_("id") and self.is_("op", "=", 1):
                self.next()  # a named argument: the name is not a reference
                self.next()
            self.expr(scope)
            if not self.is_("punc", ")"):
                self.expect("punc", ",")

    def array(self, scope: _Scope) -> None:
        """After `[`. Comprehension variables are bound in `loop`, which the element sees."""
        loop = _Scope(scope)
        while not self.accept("punc", "]"):
            self.expr(loop)
            if self.is_("kw", "for"):
                self.comprehension(scope, loop)
                self.expect("punc", "]")
                return
            if not self.is_("punc", "]"):
                self.expect("punc", ",")

    def comprehension(self, outer: _Scope, loop: _Scope) -> None:
        first = True
        while True:
            if self.accept("kw", "for"):
                name = self.expect("id")
                self.expect("kw", "in")
                self.expr(outer if first else loop)
                self.bind(loop, name.text, name.start, name.end, reported=False)
                first = False
            elif self.accept("kw", "if"):
                self.expr(loop)
            else:
                return

    def object(self, outer: _Scope) -> None:
        """After `{`. Object locals are bound in `inner`, which field values and asserts see
        and computed field names do not."""
        loop = _Scope(outer)
        inner = _Scope(loop)
        fields = 0
        while not self.accept("punc", "}"):
            if self.accept("kw", "local"):
                self.local_bind(inner)
            elif self.accept("kw", "assert"):
                self.expr(inner)
                if self.accept("op", ":"):
                    self.expr(inner)
            else:
                self.field(loop, inner)
                fields += 1
            if self.is_("kw", "for"):
                if fields != 1:
                    raise _Unparsable  # "Object comprehension can only have one field"
                self.comprehension(outer, loop)
                self.expect("punc", "}")
                return
            if not self.is_("punc", "}"):
                self.expect("punc", ",")

    def field(self, names: _Scope, inner: _Scope) -> None:
        token = self.next()
        if token.kind == "punc" and token.text == "[":
            self.expr(names)
            self.expect("punc", "]")
        elif token.kind not in ("id", "str", "kw"):
            raise _Unparsable
        body = inner
        if self.accept("punc", "("):
            body = _Scope(inner)
            self.params(body)
        operator = self.next()
        if operator.kind != "op" or operator.text not in _FIELD_OPS:
            raise _Unparsable
        self.expr(body)


def unused_variables(text: str) -> list[Unused]:
    """The unused `local` variables of a Jsonnet source, in source order of their definitions;
    empty when the source does not parse."""
    try:
        parser = _Parser(text)
        parser.expr(_Scope(None, {"std": _Variable("std", 0, 0, reported=False)}))
        if not parser.is_("eof"):
            return []
    except (_Unparsable, RecursionError):
        return []
    if not parser.resolve():
        return []
    found = [v for v in parser.variables if v.reported and not v.used]
    return [Unused(v.name, v.start, v.end) for v in sorted(found, key=lambda v: v.start)]
