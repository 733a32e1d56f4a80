"""Jsonnet tokens, lexed as go-jsonnet's lexer does (same token kinds, positions and errors).

Columns are 1-based and count UTF-8 bytes, as go-jsonnet's do. Comments and whitespace are
skipped, not kept: nothing here reformats source.
"""

from __future__ import annotations

import re
from enum import IntEnum

from tools.tanka.source.jsonnet.ast import Location, LocationRange, Source, build_source
from tools.tanka.source.jsonnet.errors import StaticError


class TokenKind(IntEnum):
    BRACE_L = 0
    BRACE_R = 1
    BRACKET_L = 2
    BRACKET_R = 3
    COMMA = 4
    DOLLAR = 5
    DOT = 6
    PAREN_L = 7
    PAREN_R = 8
    SEMICOLON = 9
    IDENTIFIER = 10
    NUMBER = 11
    OPERATOR = 12
    STRING_BLOCK = 13
    STRING_DOUBLE = 14
    STRING_SINGLE = 15
    VERBATIM_STRING_DOUBLE = 16
    VERBATIM_STRING_SINGLE = 17
    ASSERT = 18
    ELSE = 19
    ERROR = 20
    FALSE = 21
    FOR = 22
    FUNCTION = 23
    IF = 24
    IMPORT = 25
    IMPORTSTR = 26
    IMPORTBIN = 27
    IN = 28
    LOCAL = 29
    NULL = 30
    SELF = 31
    SUPER = 32
    TAILSTRICT = 33
    THEN = 34
    TRUE = 35
    END_OF_FILE = 36

    def __str__(self) -> str:
        return _KIND_TEXT[self]


_PUNCTUATION = {
    TokenKind.BRACE_L: "{",
    TokenKind.BRACE_R: "}",
    TokenKind.BRACKET_L: "[",
    TokenKind.BRACKET_R: "]",
    TokenKind.COMMA: ",",
    TokenKind.DOLLAR: "$",
    TokenKind.DOT: ".",
    TokenKind.PAREN_L: "(",
    TokenKind.PAREN_R: ")",
    TokenKind.SEMICOLON: ";",
}
KEYWORDS = {
    "assert": TokenKind.ASSERT,
    "else": TokenKind.ELSE,
    "error": TokenKind.ERROR,
    "false": TokenKind.FALSE,
    "for": TokenKind.FOR,
    "function": TokenKind.FUNCTION,
    "if": TokenKind.IF,
    "import": TokenKind.IMPORT,
    "importstr": TokenKind.IMPORTSTR,
    "importbin": TokenKind.IMPORTBIN,
    "in": TokenKind.IN,
    "local": TokenKind.LOCAL,
    "null": TokenKind.NULL,
    "self": TokenKind.SELF,
    "super": TokenKind.SUPER,
    "tailstrict": TokenKind.TAILSTRICT,
    "then": TokenKind.THEN,
    "true": TokenKind.TRUE,
}
_HAS_CONTENT = {
    TokenKind.IDENTIFIER,
    TokenKind.NUMBER,
    TokenKind.OPERATOR,
    TokenKind.STRING_BLOCK,
    TokenKind.STRING_DOUBLE,
    TokenKind.STRING_SINGLE,
    TokenKind.VERBATIM_STRING_DOUBLE,
    TokenKind.VERBATIM_STRING_SINGLE,
}
_KIND_TEXT: dict[TokenKind, str] = {
    **{kind: f'"{text}"' for kind, text in _PUNCTUATION.items()},
    **{kind: text for text, kind in KEYWORDS.items()},
    **{kind: kind.name for kind in _HAS_CONTENT},
    TokenKind.END_OF_FILE: "end of file",
}


class Token:
    __slots__ = ("block_indent", "block_term_indent", "data", "kind", "loc")

    def __init__(
        self,
        kind: TokenKind,
        data: str,
        loc: LocationRange,
        block_indent: str = "",
        block_term_indent: str = "",
    ) -> None:
        self.kind = kind
        self.data = data
        self.loc = loc
        self.block_indent = block_indent
        self.block_term_indent = block_term_indent

    def __str__(self) -> str:
        if not self.data:
            return str(self.kind)
        if self.kind in _HAS_CONTENT:
            return f'({self.kind}, "{self.data}")'
        return f'"{self.data}"'

    def __repr__(self) -> str:
        return f"Token({self})"


_SYMBOLS = frozenset("!$:~+-&|^=<>*/%")
# Runs the lexer skips or takes whole (same results as go-jsonnet's character loop, faster).
_WHITESPACE = re.compile(r"[ \t\r\n]*")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_QUOTED = {q: re.compile(rf"(?:[^{q}\\]|\\[\s\S])*{q}") for q in ("'", '"')}
_EOF = ""


def _is_identifier_first(c: str) -> bool:
    return ("a" <= c <= "z") or ("A" <= c <= "Z") or c == "_"


def _is_identifier(c: str) -> bool:
    return _is_identifier_first(c) or ("0" <= c <= "9")


def is_valid_identifier(text: str) -> bool:
    if not text or not _is_identifier_first(text[0]):
        return False
    return all(_is_identifier(c) for c in text) and text not in KEYWORDS


def quote_rune(c: str) -> str:
    """A character quoted as Go's strconv.QuoteRuneToASCII does (`'x'`, `'\\n'`, `'\\u00e9'`)."""
    if c == _EOF:
        return "'\\ufffd'"
    code = ord(c)
    simple = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
    if c in ("'", "\\"):
        body = "\\" + c
    elif 0x20 <= code < 0x7F:
        body = c
    elif c in simple:
        body = simple[c]
    elif c == "\v":
        body = "\\v"
    elif code < 0x20 or code == 0x7F:
        body = f"\\x{code:02x}"
    elif 0xD800 <= code <= 0xDFFF:
        body = "\\ufffd"
    elif code < 0x10000:
        body = f"\\u{code:04x}"
    else:
        body = f"\\U{code:08x}"
    return f"'{body}'"


def _check_whitespace(a: str, b: str) -> int:
    """How many leading characters of `a` are spaces/tabs that `b` repeats (0 if it differs)."""
    i = 0
    while i < len(a):
        if a[i] not in " \t":
            return i
        if i >= len(b) or a[i] != b[i]:
            return 0
        i += 1
    return i


class _Lexer:
    def __init__(self, file_name: str, text: str) -> None:
        self.file_name = file_name
        self.text = text
        self.ascii = text.isascii()
        self.source: Source = build_source(file_name, text)
        self.tokens: list[Token] = []
        self.pos = 0  # index of the next character
        self.line = 1
        self.line_start = 0  # index just past the last newline
        self.token_start = 0
        self.token_line = 1  # where the token starts: its line and that line's start
        self.token_line_start = 0

    def next(self) -> str:
        if self.pos >= len(self.text):
            return _EOF
        c = self.text[self.pos]
        self.pos += 1
        if c == "\n":
            self.line_start = self.pos
            self.line += 1
        return c

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else _EOF

    def advance_to(self, end: int) -> None:
        """Move to `end`, keeping the line count (what `next()` would do, at once)."""
        newlines = self.text.count("\n", self.pos, end)
        if newlines:
            self.line += newlines
            self.line_start = self.text.rindex("\n", self.pos, end) + 1
        self.pos = end

    def location(self) -> Location:
        return self._location(self.pos, self.line, self.line_start)

    def _location(self, pos: int, line: int, line_start: int) -> Location:
        if self.ascii:
            return Location(line, pos - line_start + 1)
        width = len(self.text[line_start:pos].encode("utf-8", "surrogatepass"))
        return Location(line, width + 1)

    @property
    def token_start_loc(self) -> Location:
        return self._location(self.token_start, self.token_line, self.token_line_start)

    def reset_token_start(self) -> None:
        self.token_start = self.pos
        self.token_line = self.line
        self.token_line_start = self.line_start

    def emit_full(self, kind: TokenKind, data: str, indent: str = "", term: str = "") -> None:
        if self.ascii:  # columns are character offsets: computed inline, once per token
            begin = Location(self.token_line, self.token_start - self.token_line_start + 1)
            end = Location(self.line, self.pos - self.line_start + 1)
        else:
            begin, end = self.token_start_loc, self.location()
        loc = LocationRange(self.file_name, self.source, begin, end)
        self.tokens.append(Token(kind, data, loc, indent, term))

    def emit(self, kind: TokenKind) -> None:
        self.emit_full(kind, self.text[self.token_start : self.pos])
        self.reset_token_start()

    def error_at(self, msg: str, loc: Location) -> StaticError:
        return StaticError(msg, LocationRange(self.file_name, self.source, loc, loc))

    def skip_whitespace(self) -> None:
        match = _WHITESPACE.match(self.text, self.pos)
        if match is not None and match.end() > self.pos:
            self.advance_to(match.end())

    def lex_number(self) -> None:  # noqa: PLR0912
        # States of go-jsonnet's number automaton.
        state = "begin"
        while True:
            c = self.peek()
            digit = c != _EOF and "0" <= c <= "9"
            if state == "begin":
                state = "after_zero" if c == "0" else "after_one_to_nine"
            elif state in ("after_zero", "after_one_to_nine"):
                if c == ".":
                    state = "after_dot"
                elif c in ("e", "E"):
                    state = "after_e"
                elif digit and state == "after_one_to_nine":
                    state = "after_one_to_nine"
                else:
                    break
            elif state == "after_dot":
                if not digit:
                    raise self.error_at(
                        f"Couldn't lex number, junk after decimal point: {quote_rune(c)}",
                        self.location(),
                    )
                state = "after_digit"
            elif state == "after_digit":
                if c in ("e", "E"):
                    state = "after_e"
                elif not digit:
                    break
            elif state == "after_e":
                if c in ("+", "-"):
                    state = "after_exp_sign"
                elif digit:
                    state = "after_exp_digit"
                else:
                    raise self.error_at(
                        f"Couldn't lex number, junk after 'E': {quote_rune(c)}", self.location()
                    )
            elif state == "after_exp_sign":
                if not digit:
                    raise self.error_at(
                        f"Couldn't lex number, junk after exponent sign: {quote_rune(c)}",
                        self.location(),
                    )
                state = "after_exp_digit"
            elif not digit:  # after_exp_digit
                break
            self.next()
        self.emit(TokenKind.NUMBER)

    def lex_identifier(self) -> None:
        match = _IDENTIFIER.match(self.text, self.pos)
        self.pos = match.end() if match is not None else self.pos + 1  # no newline inside
        word = self.text[self.token_start : self.pos]
        self.emit(KEYWORDS.get(word, TokenKind.IDENTIFIER))

    def lex_until_newline(self) -> None:
        end = self.text.find("\n", self.pos)
        self.pos = len(self.text) if end < 0 else end  # no newline before it
        self.skip_whitespace()

    def lex_symbol(self) -> None:
        c = self.next()
        if c == "#" or (c == "/" and self.peek() == "/"):
            self.lex_until_newline()
            return
        if c == "/" and self.peek() == "*":
            start = self.token_start_loc
            self.next()  # the opening '*'
            close = self.text.find("*/", self.pos)
            if close < 0:
                raise self.error_at("Multi-line comment has no terminating */", start)
            self.advance_to(close + 2)
            self.skip_whitespace()
            return
        if c == "|" and self.text.startswith("||", self.pos):
            self.lex_text_block()
            return
        while (c := self.peek()) != _EOF and c in _SYMBOLS:
            # go-jsonnet stops an operator before any further '/' and before '||'.
            if c == "/" or (c == "|" and self.text.startswith("||", self.pos)):
                break
            self.next()
        # An operator of several characters may not end in + - ~ ! $; go-jsonnet then keeps
        # only its first character (the rest is lexed again as the next token).
        if self.pos > self.token_start + 1 and self.text[self.pos - 1] in "+-~!$":
            self.pos = self.token_start + 1
        if self.text[self.token_start : self.pos] == "$":
            self.emit(TokenKind.DOLLAR)
        else:
            self.emit(TokenKind.OPERATOR)

    def lex_text_block(self) -> None:  # noqa: PLR0912
        start = self.token_start_loc
        self.next()
        self.next()
        chomp = False
        if self.peek() == "-":
            chomp = True
            self.next()
        c = self.next()
        while c in (" ", "\t", "\r") and c != _EOF:
            c = self.next()
        if c != "\n":
            raise self.error_at("Text block requires new line after |||.", start)
        parts: list[str] = []
        while self.peek() == "\n":
            parts.append(self.next())
        rest = self.text[self.pos :]
        width = _check_whitespace(rest, rest)
        indent = rest[:width]
        if width == 0:
            raise self.error_at("Text block's first line must start with whitespace", start)
        while True:
            for _ in range(width):
                self.next()
            while (c := self.next()) != "\n":
                if c == _EOF:
                    raise self.error_at("Unexpected EOF", start)
                parts.append(c)
            parts.append("\n")
            while self.peek() == "\n":
                parts.append(self.next())
            width = _check_whitespace(indent, self.text[self.pos :])
            if width == 0:
                term = ""
                while (c := self.peek()) in (" ", "\t") and c != _EOF:
                    term += self.next()
                if not self.text.startswith("|||", self.pos):
                    raise self.error_at("Text block not terminated with |||", start)
                for _ in range(3):
                    self.next()
                value = "".join(parts)
                if chomp:
                    value = value[:-1]
                self.emit_full(TokenKind.STRING_BLOCK, value, indent, term)
                self.reset_token_start()
                return

    def lex_quoted(self, quote: str, kind: TokenKind) -> None:
        start = self.location()
        self.next()
        match = _QUOTED[quote].match(self.text, self.pos)
        if match is None:
            raise self.error_at("Unterminated String", start)
        self.advance_to(match.end())
        self.emit_full(kind, self.text[self.token_start + 1 : self.pos - 1])
        self.reset_token_start()

    def lex_verbatim(self) -> None:
        start = self.location()
        self.next()
        quote = self.next()
        if quote == '"':
            kind = TokenKind.VERBATIM_STRING_DOUBLE
        elif quote == "'":
            kind = TokenKind.VERBATIM_STRING_SINGLE
        else:
            code = ord(quote) if quote else -1  # go-jsonnet prints the rune as a number
            raise self.error_at(f"Couldn't lex verbatim string, junk after '@': {code}", start)
        data: list[str] = []
        while True:
            c = self.next()
            if c == _EOF:
                raise self.error_at("Unterminated String", start)
            if c == quote:
                if self.peek() == quote:
                    self.next()
                    data.append(c)
                    continue
                self.emit_full(kind, "".join(data))
                self.reset_token_start()
                return
            data.append(c)

    def run(self) -> list[Token]:
        single = {text: kind for kind, text in _PUNCTUATION.items() if kind != TokenKind.DOLLAR}
        while True:
            self.skip_whitespace()
            if self.peek() == _EOF:
                self.reset_token_start()
                break
            self.reset_token_start()
            c = self.peek()
            if c in single:
                self.next()
                self.emit(single[c])
            elif "0" <= c <= "9":
                self.lex_number()
            elif c == '"':
                self.lex_quoted('"', TokenKind.STRING_DOUBLE)
            elif c == "'":
                self.lex_quoted("'", TokenKind.STRING_SINGLE)
            elif c == "@":
                self.lex_verbatim()
            elif _is_identifier_first(c):
                self.lex_identifier()
            elif c in _SYMBOLS or c == "#":
                self.lex_symbol()
            else:
                raise self.error_at(f"Could not lex the character {quote_rune(c)}", self.location())
        self.emit(TokenKind.END_OF_FILE)
        return self.tokens


def lex(file_name: str, text: str) -> list[Token]:
    """The tokens of `text`, ending with END_OF_FILE; raises StaticError as go-jsonnet would."""
    return _Lexer(file_name, text).run()
