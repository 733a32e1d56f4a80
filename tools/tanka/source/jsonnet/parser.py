"""Jsonnet source to a raw syntax tree, as go-jsonnet's parser builds it (same nodes, locations
and error messages), then labelled with go-jsonnet's evaluation contexts.

go-jsonnet descends one precedence level per call; this climbs the levels in a loop instead
(same trees), so nesting costs a few Python frames per level. The passes over the tree recurse
too, so a tree deeper than MAX_NESTING (nesting, or a chain such as `a + b + c ...`) is refused
with a StaticError rather than exhausting Python's stack.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from tools.tanka.source.jsonnet import ast
from tools.tanka.source.jsonnet.context import add_context
from tools.tanka.source.jsonnet.errors import ParseError, StaticError
from tools.tanka.source.jsonnet.lexer import Token, TokenKind, lex
from tools.tanka.source.jsonnet.strings import string_unescape

# Levels of the tree: expressions inside expressions, operator chains, `local` after `local`.
# Real files go past 500 (a few hundred top-level locals, a long `a + b + ...` of mixins); 5,000
# levels lint in about two seconds.
MAX_NESTING = 5000
# Every pass recurses a few frames per level of the tree (desugaring adds some levels): while
# any thread is inside `deep_recursion`, Python's limit leaves room for MAX_NESTING.
_RECURSION_LIMIT = 200_000  # Python-to-Python calls use no C stack (3.11+): frames only
_limit_lock = threading.Lock()
_limit_users = 0
_limit_before = 0


@contextmanager
def deep_recursion() -> Iterator[None]:
    """Raise Python's recursion limit while the linter runs; the last user out restores it
    (the limit is process-wide, so concurrent users share one raise)."""
    global _limit_users, _limit_before  # noqa: PLW0603 - one process-wide setting, locked
    with _limit_lock:
        if _limit_users == 0:
            _limit_before = sys.getrecursionlimit()
            if _limit_before < _RECURSION_LIMIT:
                sys.setrecursionlimit(_RECURSION_LIMIT)
        _limit_users += 1
    try:
        yield
    finally:
        with _limit_lock:
            _limit_users -= 1
            if _limit_users == 0:
                sys.setrecursionlimit(_limit_before)


def _too_deep(loc: ast.LocationRange) -> StaticError:
    return StaticError(
        f"Expression nested too deeply (more than {MAX_NESTING} levels): "
        "split it into local variables or separate files",
        loc,
    )


_APPLY_PREC = 2
_UNARY_PREC = 4
_MAX_PREC = 16
_BOP_PREC = {
    ast.BinaryOp.BopMult: 5,
    ast.BinaryOp.BopDiv: 5,
    ast.BinaryOp.BopPercent: 5,
    ast.BinaryOp.BopPlus: 6,
    ast.BinaryOp.BopMinus: 6,
    ast.BinaryOp.BopShiftL: 7,
    ast.BinaryOp.BopShiftR: 7,
    ast.BinaryOp.BopGreater: 8,
    ast.BinaryOp.BopGreaterEq: 8,
    ast.BinaryOp.BopLess: 8,
    ast.BinaryOp.BopLessEq: 8,
    ast.BinaryOp.BopIn: 8,
    ast.BinaryOp.BopManifestEqual: 9,
    ast.BinaryOp.BopManifestUnequal: 9,
    ast.BinaryOp.BopBitwiseAnd: 10,
    ast.BinaryOp.BopBitwiseXor: 11,
    ast.BinaryOp.BopBitwiseOr: 12,
    ast.BinaryOp.BopAnd: 13,
    ast.BinaryOp.BopOr: 14,
}
_STRING_KINDS = {
    TokenKind.STRING_SINGLE: ast.LiteralStringKind.StringSingle,
    TokenKind.STRING_DOUBLE: ast.LiteralStringKind.StringDouble,
    TokenKind.STRING_BLOCK: ast.LiteralStringKind.StringBlock,
    TokenKind.VERBATIM_STRING_DOUBLE: ast.LiteralStringKind.VerbatimStringDouble,
    TokenKind.VERBATIM_STRING_SINGLE: ast.LiteralStringKind.VerbatimStringSingle,
}
_NOT_TERMINAL = {
    TokenKind.ASSERT,
    TokenKind.BRACE_R,
    TokenKind.BRACKET_R,
    TokenKind.COMMA,
    TokenKind.DOT,
    TokenKind.ELSE,
    TokenKind.ERROR,
    TokenKind.FOR,
    TokenKind.FUNCTION,
    TokenKind.IF,
    TokenKind.IN,
    TokenKind.IMPORT,
    TokenKind.IMPORTSTR,
    TokenKind.IMPORTBIN,
    TokenKind.LOCAL,
    TokenKind.OPERATOR,
    TokenKind.PAREN_R,
    TokenKind.SEMICOLON,
    TokenKind.TAILSTRICT,
    TokenKind.THEN,
}


_POSTFIX = frozenset({TokenKind.DOT, TokenKind.BRACKET_L, TokenKind.PAREN_L, TokenKind.BRACE_L})


def _between(begin: ast.LocationRange, end: ast.LocationRange) -> ast.LocationRange:
    return ast.LocationRange(begin.file_name, begin.file, begin.begin, end.end)


def _unexpected(tok: Token, while_: str) -> StaticError:
    return StaticError(f"Unexpected: {tok}", tok.loc).with_context(while_)


def string_literal(tok: Token) -> ast.LiteralString:
    """A string token as a node; escapes in quoted strings are checked as go-jsonnet does."""
    kind = _STRING_KINDS[tok.kind]
    node = ast.LiteralString(
        loc_range=tok.loc,
        value=tok.data,
        kind=kind,
        block_indent=tok.block_indent,
        block_term_indent=tok.block_term_indent,
    )
    if kind.fully_escaped():
        string_unescape(tok.loc, tok.data)
    return node


class _Parser:
    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.i = 0
        self.depth = 0

    def pop(self) -> Token:
        tok = self.tokens[self.i]
        self.i += 1
        return tok

    def peek(self) -> Token:
        return self.tokens[self.i]

    def double_peek(self) -> Token:
        return self.tokens[self.i + 1]

    def pop_expect(self, kind: TokenKind) -> Token:
        tok = self.pop()
        if tok.kind != kind:
            raise StaticError(f"Expected token {kind} but got {tok}", tok.loc)
        return tok

    def pop_expect_op(self, op: str) -> Token:
        tok = self.pop()
        if tok.kind != TokenKind.OPERATOR or tok.data != op:
            raise StaticError(f"Expected operator {op} but got {tok}", tok.loc)
        return tok

    def _peek_is_op(self, op: str) -> bool:
        tok = self.peek()
        return tok.kind == TokenKind.OPERATOR and tok.data == op

    # --- lists -------------------------------------------------------------------------------

    def parse_arguments(self, element_kind: str) -> tuple[Token, ast.Arguments, bool]:
        args = ast.Arguments()
        got_comma = False
        named_seen = False
        first = True
        while True:
            nxt = self.peek()
            if nxt.kind == TokenKind.PAREN_R:
                return self.pop(), args, got_comma
            if not first and not got_comma:
                raise StaticError(
                    f"Expected a comma before next {element_kind}, got {nxt}", nxt.loc
                )
            name: str | None = None
            if (
                nxt.kind == TokenKind.IDENTIFIER
                and self.double_peek().kind == TokenKind.OPERATOR
                and self.double_peek().data == "="
            ):
                name = self.pop().data
                self.pop()
            expr = self.parse(_MAX_PREC)
            got_comma = self.peek().kind == TokenKind.COMMA
            if got_comma:
                self.pop()
            if name is None:
                if named_seen:
                    raise StaticError(
                        "Positional argument after a named argument is not allowed", nxt.loc
                    )
                args.positional.append(ast.CommaSeparatedExpr(expr=expr))
            else:
                named_seen = True
                args.named.append(ast.NamedArgument(name=name, arg=expr))
            first = False

    def parse_parameter(self) -> ast.Parameter:
        try:
            ident = self.pop_expect(TokenKind.IDENTIFIER)
        except StaticError as err:
            raise err.with_context("parsing parameter") from None
        param = ast.Parameter(name=ident.data, loc_range=ident.loc)
        if self._peek_is_op("="):
            self.pop()
            param.default_arg = self.parse(_MAX_PREC)
            param.loc_range = _between(ident.loc, param.default_arg.loc_range)
        return param

    def parse_parameters(self, element_kind: str) -> tuple[Token, list[ast.Parameter], bool]:
        params: list[ast.Parameter] = []
        got_comma = False
        first = True
        while True:
            nxt = self.peek()
            if nxt.kind == TokenKind.PAREN_R:
                return self.pop(), params, got_comma
            if not first and not got_comma:
                raise StaticError(
                    f"Expected a comma before next {element_kind}, got {nxt}", nxt.loc
                )
            params.append(self.parse_parameter())
            got_comma = self.peek().kind == TokenKind.COMMA
            if got_comma:
                self.pop()
            first = False

    def parse_bind(self, binds: list[ast.LocalBind]) -> Token:
        var = self.pop_expect(TokenKind.IDENTIFIER)
        if any(b.variable == var.data for b in binds):
            raise StaticError(f"Duplicate local var: {var.data}", var.loc)
        fun: ast.Function | None = None
        params: list[ast.Parameter] = []
        got_comma = False
        if self.peek().kind == TokenKind.PAREN_L:
            self.pop()
            _, params, got_comma = self.parse_parameters("function parameter")
            fun = ast.Function(parameters=params, body=ast.LiteralNull(), trailing_comma=got_comma)
        self.pop_expect_op("=")
        body = self.parse(_MAX_PREC)
        delim = self.pop()
        if delim.kind not in (TokenKind.SEMICOLON, TokenKind.COMMA):
            raise StaticError(f"Expected , or ; but got {delim}", delim.loc)
        loc = _between(var.loc, body.loc_range)
        if fun is not None:
            fun.loc_range = loc
            fun.body = body
        binds.append(ast.LocalBind(variable=var.data, body=body, fun=fun, loc_range=loc))
        return delim

    # --- objects -----------------------------------------------------------------------------

    def parse_object_assignment_op(self) -> tuple[bool, ast.ObjectFieldHide]:
        op = self.pop_expect(TokenKind.OPERATOR)
        text = op.data
        plus = text.startswith("+")
        if plus:
            text = text[1:]
        hides = {
            ":": ast.ObjectFieldHide.ObjectFieldInherit,
            "::": ast.ObjectFieldHide.ObjectFieldHidden,
            ":::": ast.ObjectFieldHide.ObjectFieldVisible,
        }
        if text not in hides:
            raise StaticError(f"Expected one of :, ::, :::, +:, +::, +:::, got: {op.data}", op.loc)
        return plus, hides[text]

    def parse_object_remainder(self, tok: Token) -> tuple[ast.Node, Token]:
        fields: list[ast.ObjectField] = []
        literal_fields: set[str] = set()
        binds: set[str] = set()
        got_comma = False
        first = True
        nxt = self.pop()
        while True:
            if nxt.kind == TokenKind.BRACE_R:
                node = ast.Object(
                    loc_range=_between(tok.loc, nxt.loc), fields=fields, trailing_comma=got_comma
                )
                return node, nxt
            if nxt.kind == TokenKind.FOR:
                return self.parse_object_remainder_comp(fields, got_comma, tok, nxt)
            if not got_comma and not first:
                raise StaticError("Expected a comma before next field", nxt.loc)
            if nxt.kind in _STRING_KINDS or nxt.kind in (
                TokenKind.BRACKET_L,
                TokenKind.IDENTIFIER,
            ):
                fields.append(self.parse_object_field(literal_fields, nxt))
            elif nxt.kind == TokenKind.LOCAL:
                fields.append(self.parse_object_local(binds, nxt))
            elif nxt.kind == TokenKind.ASSERT:
                fields.append(self.parse_object_assert(nxt))
            else:
                raise _unexpected(nxt, "parsing field definition")
            nxt = self.pop()
            got_comma = nxt.kind == TokenKind.COMMA
            if got_comma:
                nxt = self.pop()
            first = False

    def parse_object_remainder_comp(
        self, fields: list[ast.ObjectField], got_comma: bool, tok: Token, nxt: Token
    ) -> tuple[ast.Node, Token]:
        real = [f for f in fields if f.kind != ast.ObjectFieldKind.ObjectLocal]
        if any(f.kind == ast.ObjectFieldKind.ObjectAssert for f in real):
            raise StaticError("Object comprehension cannot have asserts", nxt.loc)
        if len(real) != 1:
            raise StaticError("Object comprehension can only have one field", nxt.loc)
        field = real[0]
        if field.hide != ast.ObjectFieldHide.ObjectFieldInherit:
            raise StaticError("Object comprehensions cannot have hidden fields", nxt.loc)
        if field.kind != ast.ObjectFieldKind.ObjectFieldExpr:
            raise StaticError("Object comprehensions can only have [e] fields", nxt.loc)
        spec, last = self.parse_comprehension_specs(TokenKind.BRACE_R)
        node = ast.ObjectComp(
            loc_range=_between(tok.loc, last.loc),
            fields=fields,
            trailing_comma=got_comma,
            spec=spec,
        )
        return node, last

    def _method(self) -> tuple[list[ast.Parameter], bool] | None:
        if self.peek().kind != TokenKind.PAREN_L:
            return None
        self.pop()
        _, params, comma = self.parse_parameters("method parameter")
        return params, comma

    def parse_object_field(self, literal_fields: set[str], nxt: Token) -> ast.ObjectField:
        expr1: ast.Node | None = None
        field_id: str | None = None
        if nxt.kind == TokenKind.IDENTIFIER:
            kind = ast.ObjectFieldKind.ObjectFieldID
            field_id = nxt.data
        elif nxt.kind in _STRING_KINDS:
            kind = ast.ObjectFieldKind.ObjectFieldStr
            expr1 = string_literal(nxt)
        else:
            kind = ast.ObjectFieldKind.ObjectFieldExpr
            expr1 = self.parse(_MAX_PREC)
            self.pop_expect(TokenKind.BRACKET_R)
        method = self._method()
        plus, hide = self.parse_object_assignment_op()
        if plus and method is not None:
            raise StaticError(f"Cannot use +: syntax sugar in a method: {nxt.data}", nxt.loc)
        if kind != ast.ObjectFieldKind.ObjectFieldExpr:
            if nxt.data in literal_fields:
                raise StaticError(f"Duplicate field: {nxt.data}", nxt.loc)
            literal_fields.add(nxt.data)
        body = self.parse(_MAX_PREC)
        fun = None
        if method is not None:
            fun = ast.Function(parameters=method[0], body=body, trailing_comma=method[1])
        return ast.ObjectField(
            kind=kind,
            hide=hide,
            super_sugar=plus,
            method=fun,
            expr1=expr1,
            id=field_id,
            expr2=body,
            loc_range=_between(nxt.loc, body.loc_range),
        )

    def parse_object_local(self, binds: set[str], nxt: Token) -> ast.ObjectField:
        var = self.pop_expect(TokenKind.IDENTIFIER)
        if var.data in binds:
            raise StaticError(f"Duplicate local var: {var.data}", var.loc)
        params: tuple[list[ast.Parameter], bool] | None = None
        if self.peek().kind == TokenKind.PAREN_L:
            self.pop()
            _, plist, comma = self.parse_parameters("function parameter")
            params = (plist, comma)
        self.pop_expect_op("=")
        body = self.parse(_MAX_PREC)
        fun = None
        if params is not None:
            fun = ast.Function(parameters=params[0], body=body, trailing_comma=params[1])
        binds.add(var.data)
        return ast.ObjectField(
            kind=ast.ObjectFieldKind.ObjectLocal,
            hide=ast.ObjectFieldHide.ObjectFieldVisible,
            method=fun,
            id=var.data,
            expr2=body,
            loc_range=_between(var.loc, body.loc_range),
        )

    def parse_object_assert(self, nxt: Token) -> ast.ObjectField:
        cond = self.parse(_MAX_PREC)
        last = cond
        msg: ast.Node | None = None
        if self._peek_is_op(":"):
            self.pop()
            msg = self.parse(_MAX_PREC)
            last = msg
        return ast.ObjectField(
            kind=ast.ObjectFieldKind.ObjectAssert,
            hide=ast.ObjectFieldHide.ObjectFieldVisible,
            expr2=cond,
            expr3=msg,
            loc_range=_between(nxt.loc, last.loc_range),
        )

    def parse_comprehension_specs(self, end: TokenKind) -> tuple[ast.ForSpec, Token]:
        outer_depth = self.depth  # each `for` nests the body once more after desugaring
        try:
            return self._comprehension_specs(end)
        finally:
            self.depth = outer_depth

    def _comprehension_specs(self, end: TokenKind) -> tuple[ast.ForSpec, Token]:
        outer: ast.ForSpec | None = None
        while True:
            self._deeper()
            var = self.pop_expect(TokenKind.IDENTIFIER)
            self.pop_expect(TokenKind.IN)
            arr = self.parse(_MAX_PREC)
            spec = ast.ForSpec(var_name=var.data, expr=arr, outer=outer)
            maybe_if = self.pop()
            while maybe_if.kind == TokenKind.IF:
                spec.conditions.append(ast.IfSpec(expr=self.parse(_MAX_PREC)))
                maybe_if = self.pop()
            if maybe_if.kind == end:
                return spec, maybe_if
            if maybe_if.kind != TokenKind.FOR:
                raise StaticError(
                    f"Expected for, if or {end} after for clause, got: {maybe_if}", maybe_if.loc
                )
            outer = spec

    def parse_array(self, tok: Token) -> ast.Node:
        if self.peek().kind == TokenKind.BRACKET_R:
            close = self.pop()
            return ast.Array(loc_range=_between(tok.loc, close.loc))
        first = self.parse(_MAX_PREC)
        got_comma = self.peek().kind == TokenKind.COMMA
        if got_comma:
            self.pop()
        if self.peek().kind == TokenKind.FOR:
            self.pop()
            spec, last = self.parse_comprehension_specs(TokenKind.BRACKET_R)
            return ast.ArrayComp(
                loc_range=_between(tok.loc, last.loc),
                body=first,
                trailing_comma=got_comma,
                spec=spec,
            )
        elements = [ast.CommaSeparatedExpr(expr=first)]
        while True:
            nxt = self.peek()
            if nxt.kind == TokenKind.BRACKET_R:
                close = self.pop()
                break
            if not got_comma:
                raise StaticError("Expected a comma before next array element", nxt.loc)
            elements.append(ast.CommaSeparatedExpr(expr=self.parse(_MAX_PREC)))
            got_comma = self.peek().kind == TokenKind.COMMA
            if got_comma:
                self.pop()
        return ast.Array(
            loc_range=_between(tok.loc, close.loc), elements=elements, trailing_comma=got_comma
        )

    # --- expressions -------------------------------------------------------------------------

    def parse_terminal(self) -> ast.Node:  # noqa: PLR0911, PLR0912
        tok = self.pop()
        kind = tok.kind
        if kind in _NOT_TERMINAL:
            raise _unexpected(tok, "parsing terminal")
        if kind == TokenKind.END_OF_FILE:
            raise StaticError("Unexpected end of file", tok.loc)
        if kind == TokenKind.BRACE_L:
            return self.parse_object_remainder(tok)[0]
        if kind == TokenKind.BRACKET_L:
            return self.parse_array(tok)
        if kind == TokenKind.PAREN_L:
            inner = self.parse(_MAX_PREC)
            close = self.pop_expect(TokenKind.PAREN_R)
            return ast.Parens(loc_range=_between(tok.loc, close.loc), inner=inner)
        if kind == TokenKind.NUMBER:
            return ast.LiteralNumber(loc_range=tok.loc, original_string=tok.data)
        if kind in _STRING_KINDS:
            return string_literal(tok)
        if kind in (TokenKind.TRUE, TokenKind.FALSE):
            return ast.LiteralBoolean(loc_range=tok.loc, value=kind == TokenKind.TRUE)
        if kind == TokenKind.NULL:
            return ast.LiteralNull(loc_range=tok.loc)
        if kind == TokenKind.DOLLAR:
            return ast.Dollar(loc_range=tok.loc)
        if kind == TokenKind.IDENTIFIER:
            return ast.Var(loc_range=tok.loc, id=tok.data)
        if kind == TokenKind.SELF:
            return ast.Self(loc_range=tok.loc)
        # super: the only token left
        nxt = self.pop()
        if nxt.kind == TokenKind.DOT:
            field = self.pop_expect(TokenKind.IDENTIFIER)
            return ast.SuperIndex(loc_range=tok.loc, id=field.data)
        if nxt.kind == TokenKind.BRACKET_L:
            index = self.parse(_MAX_PREC)
            self.pop_expect(TokenKind.BRACKET_R)
            return ast.SuperIndex(loc_range=tok.loc, index=index)
        raise StaticError("Expected . or [ after super", tok.loc)

    def parse(self, prec: int) -> ast.Node:
        self._deeper()
        try:
            return self._parse(prec)
        finally:
            self.depth -= 1

    def _parse_import(self, begin: Token) -> ast.Node:
        self.pop()
        body = self.parse(_MAX_PREC)
        if not isinstance(body, ast.LiteralString):
            raise StaticError("Computed imports are not allowed", body.loc_range)
        if body.kind == ast.LiteralStringKind.StringBlock:
            raise StaticError("Block string literals not allowed in imports", body.loc_range)
        loc = _between(begin.loc, body.loc_range)
        if begin.kind == TokenKind.IMPORT:
            return ast.Import(loc_range=loc, file=body)
        if begin.kind == TokenKind.IMPORTSTR:
            return ast.ImportStr(loc_range=loc, file=body)
        return ast.ImportBin(loc_range=loc, file=body)

    def _parse(self, prec: int) -> ast.Node:  # noqa: PLR0911, PLR0912
        begin = self.peek()
        kind = begin.kind
        if kind == TokenKind.ASSERT:
            self.pop()
            cond = self.parse(_MAX_PREC)
            msg = None
            if self._peek_is_op(":"):
                self.pop()
                msg = self.parse(_MAX_PREC)
            self.pop_expect(TokenKind.SEMICOLON)
            rest = self.parse(_MAX_PREC)
            loc = _between(begin.loc, rest.loc_range)
            return ast.Assert(loc_range=loc, cond=cond, message=msg, rest=rest)
        if kind == TokenKind.ERROR:
            self.pop()
            expr = self.parse(_MAX_PREC)
            return ast.Error(loc_range=_between(begin.loc, expr.loc_range), expr=expr)
        if kind == TokenKind.IF:
            self.pop()
            cond = self.parse(_MAX_PREC)
            self.pop_expect(TokenKind.THEN)
            branch_true = self.parse(_MAX_PREC)
            branch_false = None
            end = branch_true
            if self.peek().kind == TokenKind.ELSE:
                self.pop()
                branch_false = end = self.parse(_MAX_PREC)
            return ast.Conditional(
                loc_range=_between(begin.loc, end.loc_range),
                cond=cond,
                branch_true=branch_true,
                branch_false=branch_false,
            )
        if kind == TokenKind.FUNCTION:
            self.pop()
            nxt = self.pop()
            if nxt.kind != TokenKind.PAREN_L:
                raise StaticError(f"Expected ( but got {nxt}", nxt.loc)
            _, params, comma = self.parse_parameters("function parameter")
            body = self.parse(_MAX_PREC)
            return ast.Function(
                loc_range=_between(begin.loc, body.loc_range),
                parameters=params,
                trailing_comma=comma,
                body=body,
            )
        if kind in (TokenKind.IMPORT, TokenKind.IMPORTSTR, TokenKind.IMPORTBIN):
            return self._parse_import(begin)
        if kind == TokenKind.LOCAL:
            self.pop()
            binds: list[ast.LocalBind] = []
            while self.parse_bind(binds).kind != TokenKind.SEMICOLON:
                pass
            body = self.parse(_MAX_PREC)
            return ast.Local(loc_range=_between(begin.loc, body.loc_range), binds=binds, body=body)

        # go-jsonnet's parse(prec) recurses down to parse(0) (a terminal) or, for a unary
        # operator, parse(4); the levels above are then climbed here, each combining the
        # operators of its precedence left to right.
        if kind == TokenKind.OPERATOR:
            uop = ast.UOP_MAP.get(begin.data)
            if uop is None:
                raise StaticError(f"Not a unary operator: {begin.data}", begin.loc)
            if prec >= _UNARY_PREC:
                op = self.pop()
                expr = self.parse(_UNARY_PREC)
                lhs: ast.Node = ast.Unary(
                    loc_range=_between(op.loc, expr.loc_range), op=uop, expr=expr
                )
                if prec == _UNARY_PREC:
                    return lhs
                return self._climb(lhs, begin, _UNARY_PREC + 1, prec)
        lhs = self.parse_terminal()
        return self._climb(lhs, begin, 1, prec)

    def _deeper(self) -> None:
        """One more level of tree under construction; refused beyond MAX_NESTING."""
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise _too_deep(self.peek().loc)

    def _climb(self, lhs: ast.Node, begin: Token, low: int, high: int) -> ast.Node:
        # Each operator or postfix combined puts `lhs` one level deeper: counted as nesting.
        outer = self.depth
        try:
            return self._climb_levels(lhs, begin, low, high)
        finally:
            self.depth = outer

    def _climb_levels(self, lhs: ast.Node, begin: Token, low: int, high: int) -> ast.Node:
        # At each level go-jsonnet combines the operators of that precedence and passes any
        # other token up; so the next token is combined only at its own level, if that level
        # is still ahead (levels only go up), and otherwise ends the expression.
        level = low
        while True:
            tok = self.peek()
            bop: ast.BinaryOp | None = None
            if tok.kind == TokenKind.IN:
                bop = ast.BinaryOp.BopIn
                at = _BOP_PREC[bop]
            elif tok.kind == TokenKind.OPERATOR:
                if tok.data in (":", "::"):
                    return lhs
                bop = ast.BOP_MAP.get(tok.data)
                if bop is None:
                    raise StaticError(f"Not a binary operator: {tok.data}", tok.loc)
                at = _BOP_PREC[bop]
            elif tok.kind in _POSTFIX:
                at = _APPLY_PREC
            else:
                return lhs
            if at < level or at > high:
                return lhs
            level = at
            self._deeper()
            lhs = self._postfix_or_binary(lhs, begin, level, bop)

    def _postfix_or_binary(
        self, lhs: ast.Node, begin: Token, level: int, bop: ast.BinaryOp | None
    ) -> ast.Node:
        op = self.pop()
        if op.kind == TokenKind.BRACKET_L:
            return self._index_or_slice(lhs, begin)
        if op.kind == TokenKind.DOT:
            field = self.pop_expect(TokenKind.IDENTIFIER)
            return ast.Index(loc_range=_between(begin.loc, field.loc), target=lhs, id=field.data)
        if op.kind == TokenKind.PAREN_L:
            end, args, comma = self.parse_arguments("function argument")
            tail = self.peek().kind == TokenKind.TAILSTRICT
            if tail:
                self.pop()
            return ast.Apply(
                loc_range=_between(begin.loc, end.loc),
                target=lhs,
                arguments=args,
                trailing_comma=comma,
                tail_strict=tail,
            )
        if op.kind == TokenKind.BRACE_L:
            obj, end = self.parse_object_remainder(op)
            return ast.ApplyBrace(loc_range=_between(begin.loc, end.loc), left=lhs, right=obj)
        if op.kind == TokenKind.IN and self.peek().kind == TokenKind.SUPER:
            sup = self.pop()
            return ast.InSuper(loc_range=_between(begin.loc, sup.loc), index=lhs)
        rhs = self.parse(level - 1)
        return ast.Binary(
            loc_range=_between(begin.loc, rhs.loc_range), left=lhs, op=ast.present(bop), right=rhs
        )

    def _index_or_slice(self, lhs: ast.Node, begin: Token) -> ast.Node:
        indexes: list[ast.Node | None] = [None, None, None]
        colons = 0
        end: Token | None = None
        ready = True
        while colons < 3:
            nxt = self.peek()
            if nxt.kind == TokenKind.BRACKET_R:
                end = self.pop()
                break
            if nxt.data == ":":
                end = self.pop()
                colons += 1
                ready = True
            elif nxt.data == "::":
                end = self.pop()
                colons += 2
                ready = True
            elif ready:
                indexes[colons] = self.parse(_MAX_PREC)
                ready = False
            else:
                raise StaticError(f"Expected token {TokenKind.BRACKET_R} but got {nxt}", nxt.loc)
        end = ast.present(end, "closing token")
        if colons > 2:
            raise StaticError("Invalid slice: too many colons", end.loc)
        if colons == 0 and ready:
            raise StaticError("ast.Index requires an expression", end.loc)
        loc = _between(begin.loc, end.loc)
        if colons > 0:
            return ast.Slice(
                loc_range=loc,
                target=lhs,
                begin_index=indexes[0],
                end_index=indexes[1],
                step=indexes[2],
            )
        return ast.Index(loc_range=loc, target=lhs, index=indexes[0])


def parse_tokens(tokens: list[Token]) -> ast.Node:
    parser = _Parser(tokens)
    expr = parser.parse(_MAX_PREC)
    eof = parser.peek()
    if eof.kind != TokenKind.END_OF_FILE:
        raise StaticError(f"Did not expect: {eof}", eof.loc)
    return expr


def snippet_to_raw_ast(file_name: str, text: str) -> ast.Node:
    """The raw (not desugared) tree of `text`, with contexts; raises ParseError."""
    with deep_recursion():
        try:
            node = parse_tokens(lex(file_name, text))
        except StaticError as err:
            raise ParseError(err.msg, err.loc) from None
        add_context(node)
    return node
