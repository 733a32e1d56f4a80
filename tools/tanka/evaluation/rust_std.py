"""The `std` jrsonnet evaluates with: tk's `std.thisFile` and guards where go-jsonnet's differs.

jrsonnet (0.5.0-pre95 in rjsonnet 0.5.6) is built without `std.thisFile`, and some of its std
functions answer differently from go-jsonnet's where both succeed (docs/tanka-parity.md lists them):
numbers turned into text (go-jsonnet writes 0.1 as `0.10000000000000001`, 1e23 as
`99999999999999991611392`), std.format's rounding, U+2028/U+2029/DEL in JSON text, the YAML 1.1
rules of std.parseYaml (go-jsonnet's own is called instead: go_std.py), an empty separator in
std.split/strReplace, an overflowing std.pow, and the stack go-jsonnet's Jsonnet-written std
functions consume.

A Jsonnet file that names one of those functions gets a one-line prelude (on line 1, so every
other line keeps its number) that shadows `std` with `guard(std, file)`: `thisFile` is the
file's path, and each guarded function first asks the `VOUCH` native (rust_vouch.py) whether its
arguments are ones where both evaluators agree; when they are not, it raises an error carrying
FALLBACK_MARK, and an error sends the whole evaluation to go-jsonnet (rust_eval.py). Parameter
names and defaults are go-jsonnet's, so named-argument calls mean the same.

The guard a file imports holds only the functions it names (`guard_path`): jrsonnet parses every
file anew for each evaluation, and the whole guard's 4.5 KB of source cost 0.35 ms an evaluation,
as much as evaluating a small environment. A file that uses `std` other than as `std.name` (hands
it on as a value, indexes it with a computed name) gets the whole guard, as every file did before.
"""

from __future__ import annotations

import functools
import json
import re

from tools.tanka.evaluation.go_std import GO_PARSE_YAML, GO_STD

GUARD_NAME = "<internal>/tanka-rust-std.libsonnet"
# A guard holding only some functions: GUARD_NAME + GUARD_SUBSET + their names, comma-separated.
GUARD_SUBSET = "?"
VOUCH = "__tk_rust_vouch"
FALLBACK_MARK = "__tk_rust_fallback__"
# One line, no newline; the path is a JSON string literal, valid Jsonnet with the same meaning.
_PRELUDE = "local __tk_rs = std; local std = (import '{guard}')(__tk_rs, {file}); "
# The names whose files need the prelude: a file that never names them, and never uses `std`
# but as `std.name`, cannot call them.
_NAMES = (
    "thisFile|toString|format|escapeString\\w*|manifest\\w*|strReplace|split\\w*|parseYaml|pow"
    "|md5|sha1|sha256|sha512|sha3|base64|length|substr|startsWith|endsWith|findSubstr"
    "|stringChars|codepoint|encodeUTF8|equalsIgnoreCase|isEmpty"
)
NEEDS_GUARD = re.compile(rf"\b(?:{_NAMES})\b".encode())
# `std` not followed by `.name`: handed on or indexed, it may reach any function.
_STD_AS_VALUE = re.compile(rb"\bstd\b(?!\s*\.\s*[A-Za-z_])")

# Guarded functions: go-jsonnet's parameters (defaults included), the one vouched for, and the
# vouch mode (rust_vouch.VouchMode): what must hold of it for both evaluators to agree.
_VOUCHED: dict[str, tuple[str, str, str]] = {
    "format": ("str, vals", "vals", "format"),
    "escapeStringBash": ("str_", "str_", "text"),
    "escapeStringDollars": ("str_", "str_", "text"),
    "escapeStringPython": ("str", "str", "text"),
    "escapeStringJson": ("str_", "str_", "text"),
    "manifestIni": ("ini", "ini", "text"),
    "manifestPython": ("v", "v", "text"),
    "manifestPythonVars": ("conf", "conf", "text"),
    "manifestTomlEx": ("value, indent", "value", "text"),
    "manifestToml": ("value", "value", "text"),
    "manifestXmlJsonml": ("value", "value", "text"),
    "manifestJson": ("value", "value", "json"),
    "manifestJsonMinified": ("value", "value", "json"),
    "manifestJsonEx": ("value, indent, newline='\\n', key_val_sep=': '", "value", "json"),
    "manifestYamlDoc": ("value, indent_array_in_object=false, quote_keys=true", "value", "json"),
    "manifestYamlStream": (
        "value, indent_array_in_object=false, c_document_end=true, quote_keys=true",
        "value",
        "json",
    ),
    "md5": ("s", "s", "digits"),
    "sha1": ("s", "s", "digits"),
    "sha256": ("s", "s", "digits"),
    "sha512": ("s", "s", "digits"),
    "sha3": ("s", "s", "digits"),
    "base64": ("input", "input", "digits"),
    # What reads a string's text without showing it (the result check would not see it).
    "length": ("x", "x", "digits"),
    "substr": ("str, from, len", "str", "digits"),
    "startsWith": ("a, b", "a, b", "digits"),
    "endsWith": ("a, b", "a, b", "digits"),
    "findSubstr": ("pat, str", "pat, str", "digits"),
    "stringChars": ("str", "str", "digits"),
    "codepoint": ("str", "str", "digits"),
    "encodeUTF8": ("str", "str", "digits"),
    "equalsIgnoreCase": ("str1, str2", "str1, str2", "digits"),
    "isEmpty": ("str", "str", "digits"),
}
# Functions jrsonnet answers where go-jsonnet fails: an empty separator.
_SEPARATED: dict[str, tuple[str, str]] = {
    "strReplace": ("str, from, to", "from"),
    "split": ("str, c", "c"),
    "splitLimit": ("str, c, maxsplits", "c"),
    "splitLimitR": ("str, c, maxsplits", "c"),
}


def _forwarded(params: str, wrapped: str, wrap: str) -> str:
    names = [p.split("=")[0].strip() for p in params.split(",")]
    chosen = {n.strip() for n in wrapped.split(",")}
    return ", ".join(wrap.format(n) if n in chosen else n for n in names)


def plain_source(std: str) -> str:
    """`local plain(v) = ...;` over `std`: whether `v` is written alike by both evaluators in
    every mode - whole numbers below 2**53, booleans and null - so that no native call is made
    for them (std.toString(i) in a loop was most of the guard's cost). Whole by `>`: jrsonnet's
    `==` holds for numbers 2.2e-16 apart (1e-17 == 0 == std.floor(1e-17))."""
    return (
        f"  local plain(v) = {std}.isBoolean(v) || v == null || ({std}.isNumber(v)\n"
        f"    && !(v > {std}.floor(v)) && {std}.abs(v) < 9007199254740992);\n"
    )


def guard_source(names: frozenset[str] | None = None) -> str:
    """The guard's Jsonnet: a function of the real std and the file's path, returning std with
    `names` guarded (None: every function the guard knows)."""

    def wanted(name: str) -> bool:
        return names is None or name in names

    fields = ["    thisFile:: file,\n"]
    # std.toString of a string is the string, in both.
    if wanted("toString"):
        fields.append(
            "    toString(a):: if __real.isString(a) then a\n"
            "                  else if ok(a, 'text') then __real.toString(a)\n"
            "                  else go('toString', [a]),\n"
        )
    for name, (params, vouched, mode) in _VOUCHED.items():
        if not wanted(name):
            continue
        if mode == "digits":  # the text is already written: go-jsonnet cannot spell it again
            args = _forwarded(params, vouched, f"vouchedText({{}}, '{mode}', 'std.{name}')")
            fields.append(f"    {name}({params}):: __real.{name}({args}),\n")
            continue
        listed = ", ".join(p.split("=")[0].strip() for p in params.split(","))
        checks = " && ".join(f"ok({v.strip()}, '{mode}')" for v in vouched.split(","))
        fields.append(
            f"    {name}({params}):: if {checks} then __real.{name}({listed})\n"
            f"      else go('{name}', [{listed}]),\n"
        )
    for name, (params, separator) in _SEPARATED.items():
        if wanted(name):
            args = _forwarded(params, separator, f"sep({{}}, 'std.{name}')")
            fields.append(f"    {name}({params}):: __real.{name}({args}),\n")
    if wanted("parseYaml"):
        fields.append(f"    parseYaml(str):: __real.native('{GO_PARSE_YAML}')(str),\n")
    if wanted("pow"):
        fields.append(
            "    pow(x, n)::\n"
            "      local r = __real.pow(x, n);\n"
            "      if __real.abs(r) <= 1.7976931348623157e308 then r\n"
            f"      else error '{FALLBACK_MARK}: std.pow',\n"
        )
    return (
        "function(__real, file)\n"
        + plain_source("__real")
        + f"  local ok(v, mode) = plain(v) || __real.native('{VOUCH}')(v, mode);\n"
        # Where jrsonnet's text may differ, go-jsonnet's function writes it (go_std.GO_STD).
        f"  local go(name, args) = __real.native('{GO_STD}')(name, args);\n"
        "  local vouched(v, mode, what) =\n"
        f"    if ok(v, mode) then v else error '{FALLBACK_MARK}: ' + what;\n"
        # Only strings are read as text; an array or object is not handed to Python whole.
        "  local vouchedText(v, mode, what) =\n"
        "    if __real.isString(v) then vouched(v, mode, what) else v;\n"
        f"  local sep(c, what) = if c == '' then error '{FALLBACK_MARK}: ' + what else c;\n"
        "  __real {\n" + "".join(fields) + "  }\n"
    )


GUARD_SOURCE = guard_source()
# What the guard may ask go-jsonnet to write (go_std.GO_STD).
WRITTEN_BY_GO = frozenset(
    ("toString", *(name for name, (_p, _v, mode) in _VOUCHED.items() if mode != "digits"))
)
KNOWN_GUARDED = frozenset(("toString", "parseYaml", "pow", *_VOUCHED, *_SEPARATED))


def guard_path(content: bytes) -> str:
    """The guard `content` imports: GUARD_NAME for the whole one, or a subset's name."""
    if _STD_AS_VALUE.search(content):
        return GUARD_NAME
    named = {m.group().decode() for m in NEEDS_GUARD.finditer(content)} & KNOWN_GUARDED
    return GUARD_NAME + GUARD_SUBSET + ",".join(sorted(named))


def guard_for(path: str) -> str | None:
    """The source of the guard imported as `path` (guard_path's), None for any other path."""
    if path == GUARD_NAME:
        return GUARD_SOURCE
    if not path.startswith(GUARD_NAME + GUARD_SUBSET):
        return None
    return _subset_source(path.removeprefix(GUARD_NAME + GUARD_SUBSET))


@functools.lru_cache(maxsize=256)
def _subset_source(names: str) -> str:
    return guard_source(frozenset(names.split(",")) & KNOWN_GUARDED)


def needs_guard(content: bytes) -> bool:
    """Whether the file names a function the guard replaces (or std.thisFile), or uses `std`
    in a way that may reach one by a computed name."""
    return NEEDS_GUARD.search(content) is not None or _STD_AS_VALUE.search(content) is not None


def guard_prelude(path: str, content: bytes) -> bytes:
    """The line-1 prelude `content` needs (empty when it names nothing guarded)."""
    if not needs_guard(content):
        return b""
    prelude = _PRELUDE.format(guard=guard_path(content), file=json.dumps(path, ensure_ascii=False))
    return prelude.encode()
