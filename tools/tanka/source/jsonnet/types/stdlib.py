"""The types jsonnet-lint assumes for the `std` object: which functions exist, their
parameters and what they return. `std` has exactly these fields, so `std.nope` is reported.

Each entry is a result type and the parameter names; a trailing `?` marks an optional one.
Result types are coarse on purpose (e.g. `join` may return anything), as in jsonnet-lint.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tools.tanka.source.jsonnet.types import placeholder as ph
from tools.tanka.source.jsonnet.types.desc import (
    FieldMap,
    ObjectDesc,
    ParamSpec,
    TypeDesc,
    concrete_tp,
)
from tools.tanka.source.jsonnet.types.placeholder import STDLIB_TYPE, PlaceholderID

if TYPE_CHECKING:
    from tools.tanka.source.jsonnet.types.graph import TypeGraph

ANY, BOOL, NUMBER, STRING = ph.ANY_TYPE, ph.BOOL_TYPE, ph.NUMBER_TYPE, ph.STRING_TYPE
ANY_ARRAY, NUMBER_ARRAY, BOOL_ARRAY = ph.ANY_ARRAY_TYPE, ph.NUMBER_ARRAY_TYPE, ph.BOOL_ARRAY_TYPE
ANY_OBJECT, ANY_FUNCTION = ph.ANY_OBJECT_TYPE, ph.ANY_FUNCTION_TYPE

# In this order (placeholder ids follow it). A bare type is a non-function field.
STDLIB: dict[str, PlaceholderID | tuple[PlaceholderID, str]] = {
    # External variables
    "extVar": (ANY, "x"),
    # Types and reflection
    "thisFile": STRING,
    "type": (STRING, "x"),
    "length": (NUMBER, "x"),
    "objectHas": (BOOL, "o f"),
    "objectFields": (ANY_ARRAY, "o"),
    "objectValues": (ANY_ARRAY, "o"),
    "objectKeysValues": (ANY_ARRAY, "o"),
    "objectHasAll": (BOOL, "o f"),
    "objectFieldsAll": (ANY_ARRAY, "o"),
    "objectValuesAll": (ANY_ARRAY, "o"),
    "objectKeysValuesAll": (ANY_ARRAY, "o"),
    "prune": (ANY_OBJECT, "a"),
    "mapWithKey": (ANY_OBJECT, "func obj"),
    "get": (ANY, "o f default? inc_hidden?"),
    # isSomething
    "isArray": (BOOL, "v"),
    "isBoolean": (BOOL, "v"),
    "isFunction": (BOOL, "v"),
    "isNumber": (BOOL, "v"),
    "isObject": (BOOL, "v"),
    "isString": (BOOL, "v"),
    "isEven": (BOOL, "x"),
    "isOdd": (BOOL, "x"),
    "isInteger": (BOOL, "x"),
    "isDecimal": (BOOL, "x"),
    # Mathematical utilities
    "abs": (NUMBER, "n"),
    "sign": (NUMBER, "n"),
    "max": (NUMBER, "a b"),
    "min": (NUMBER, "a b"),
    "pow": (NUMBER, "x n"),
    "exp": (NUMBER, "x"),
    "log": (NUMBER, "x"),
    "exponent": (NUMBER, "x"),
    "mantissa": (NUMBER, "x"),
    "floor": (NUMBER, "x"),
    "ceil": (NUMBER, "x"),
    "sqrt": (NUMBER, "x"),
    "sin": (NUMBER, "x"),
    "cos": (NUMBER, "x"),
    "tan": (NUMBER, "x"),
    "asin": (NUMBER, "x"),
    "acos": (NUMBER, "x"),
    "atan": (NUMBER, "x"),
    "round": (NUMBER, "x"),
    # Assertions and debugging
    "assertEqual": (BOOL, "a b"),
    # String Manipulation
    "toString": (STRING, "a"),
    "codepoint": (NUMBER, "str"),
    "char": (STRING, "n"),
    "substr": (STRING, "str from len"),
    "findSubstr": (NUMBER_ARRAY, "pat str"),
    "startsWith": (BOOL, "a b"),
    "endsWith": (BOOL, "a b"),
    "stripChars": (STRING, "str chars"),
    "lstripChars": (STRING, "str chars"),
    "rstripChars": (STRING, "str chars"),
    "split": (ANY_ARRAY, "str c"),
    "splitLimit": (ANY_ARRAY, "str c maxsplits"),
    "splitLimitR": (ANY_ARRAY, "str c maxsplits"),
    "strReplace": (STRING, "str from to"),
    "asciiUpper": (STRING, "str"),
    "asciiLower": (STRING, "str"),
    "stringChars": (STRING, "str"),
    "format": (STRING, "str vals"),
    "isEmpty": (BOOL, "str"),
    "equalsIgnoreCase": (BOOL, "str1 str2"),
    "trim": (STRING, "str"),
    "escapeStringBash": (STRING, "str_"),
    "escapeStringDollars": (STRING, "str_"),
    "escapeStringJson": (STRING, "str_"),
    "escapeStringPython": (STRING, "str"),
    # Parsing
    "parseInt": (NUMBER, "str"),
    "parseOctal": (NUMBER, "str"),
    "parseHex": (NUMBER, "str"),
    "parseJson": (ANY, "str"),
    "parseYaml": (ANY, "str"),
    "encodeUTF8": (NUMBER_ARRAY, "str"),
    "decodeUTF8": (STRING, "arr"),
    # Manifestation
    "manifestIni": (STRING, "ini"),
    "manifestPython": (STRING, "v"),
    "manifestPythonVars": (STRING, "conf"),
    "manifestTomlEx": (STRING, "value indent"),
    "manifestJsonEx": (STRING, "value indent"),
    "manifestJsonMinified": (STRING, "value"),
    "manifestYamlDoc": (STRING, "value indent_array_in_object? quote_keys?"),
    "manifestYamlStream": (ANY_ARRAY, "value indent_array_in_object? c_document_end? quote_keys?"),
    "manifestXmlJsonml": (STRING, "value"),
    # Arrays
    "makeArray": (ANY_ARRAY, "sz func"),
    "count": (NUMBER, "arr x"),
    "member": (BOOL, "arr x"),
    "find": (NUMBER_ARRAY, "value arr"),
    "map": (ANY_ARRAY, "func arr"),
    "mapWithIndex": (ANY_ARRAY, "func arr"),
    "filterMap": (ANY_ARRAY, "filter_func map_func arr"),
    "flatMap": (ANY_ARRAY, "func arr"),
    "filter": (ANY_ARRAY, "func arr"),
    "foldl": (ANY, "func arr init"),
    "foldr": (ANY, "func arr init"),
    "repeat": (ANY_ARRAY, "what count"),
    "slice": (ANY_ARRAY, "indexable index end step"),
    "range": (NUMBER_ARRAY, "from to"),
    "join": (ANY, "sep arr"),
    "lines": (ANY_ARRAY, "arr"),
    "flattenArrays": (ANY_ARRAY, "arrs"),
    "reverse": (ANY_ARRAY, "arrs"),
    "sort": (ANY_ARRAY, "arr keyF?"),
    "uniq": (ANY_ARRAY, "arr keyF?"),
    "sum": (NUMBER, "arr"),
    "minArray": (ANY_ARRAY, "arr keyF?"),
    "maxArray": (ANY_ARRAY, "arr keyF?"),
    "contains": (BOOL, "arr elem"),
    "avg": (NUMBER, "arr"),
    "all": (BOOL_ARRAY, "arr"),
    "any": (BOOL_ARRAY, "arr"),
    "remove": (ANY_ARRAY, "arr elem"),
    "removeAt": (ANY_ARRAY, "arr i"),
    # Sets
    "set": (ANY_ARRAY, "arr keyF?"),
    "setInter": (ANY_ARRAY, "a b keyF?"),
    "setUnion": (ANY_ARRAY, "a b keyF?"),
    "setDiff": (ANY_ARRAY, "a b keyF?"),
    "setMember": (BOOL, "x arr keyF?"),
    # Objects
    "objectRemoveKey": (ANY_OBJECT, "obj key"),
    # Encoding
    "base64": (STRING, "input"),
    "base64DecodeBytes": (NUMBER, "str"),
    "base64Decode": (STRING, "str"),
    "md5": (STRING, "s"),
    "sha1": (STRING, "s"),
    "sha256": (STRING, "s"),
    "sha512": (STRING, "s"),
    "sha3": (STRING, "s"),
    # JSON Merge Patch
    "mergePatch": (ANY, "target patch"),
    # Debugging
    "trace": (ANY, "str rest"),
    # Not in the documented library
    "manifestJson": (STRING, "value"),
    "objectHasEx": (BOOL, "obj fname hidden"),
    "objectFieldsEx": (ANY_ARRAY, "obj hidden"),
    "modulo": (NUMBER, "x y"),
    "primitiveEquals": (BOOL, "x y"),
    "mod": (ANY, "a b"),
    "native": (ANY_FUNCTION, "x"),
    "$objectFlatMerge": (ANY_OBJECT, "x"),
    # Boolean
    "xor": (BOOL, "x y"),
    "xnor": (BOOL, "x y"),
}


def prepare_stdlib(g: TypeGraph) -> None:
    """Create the `std` placeholder (STDLIB_TYPE) and one placeholder per function in it."""
    stdlib = g.new_placeholder()
    if stdlib != STDLIB_TYPE:
        raise AssertionError("the base types must be created before the standard library")
    fields = FieldMap()
    for name, entry in STDLIB.items():
        if isinstance(entry, int):
            fields[name] = [entry]
            continue
        result, signature = entry
        names = signature.split()
        if any(n.endswith("?") for n in names):
            params = [ParamSpec(n.rstrip("?"), has_default=n.endswith("?")) for n in names]
            fields[name] = [g.new_func_type(result, params)]
        else:
            fields[name] = [g.new_simple_func_type(result, *names)]
    desc = ObjectDesc(unknown_contain=[], field_contains=fields, all_fields_known=True)
    g.placeholders[STDLIB_TYPE] = concrete_tp(TypeDesc(object_desc=desc))
