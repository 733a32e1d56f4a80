"""The Jsonnet side of Tanka's native functions, for files evaluated through the binding.

The gojsonnet binding passes only primitive arguments to Python callbacks and replaces a
callback's exception text with "failed to execute native callback". So files that call
`std.native` get `std` shadowed by `SHIM_SOURCE(std)`, whose `native(name)` returns a Jsonnet
function with tk's parameter names that
* serialises object arguments (`opts` of helmTemplate / kustomizeBuild) to JSON text, and
* calls a private callback that returns `{ok: value}` or `{error: message}`, raising the message
  with Jsonnet's `error` so the user sees the Go function's own text.
Names tk does not register fall through to the real std.native.
"""

from __future__ import annotations

SHIM_NAME = "<internal>/tanka-natives.libsonnet"
SAFE_PREFIX = "__tk_safe_"

# The callbacks behind each public name, with tk's parameter names (order matters).
PARAMS: dict[str, tuple[str, ...]] = {
    "parseJson": ("json",),
    "parseYaml": ("yaml",),
    "manifestJsonFromJson": ("json", "indent"),
    "manifestYamlFromJson": ("json",),
    "escapeStringRegex": ("str",),
    "regexMatch": ("regex", "string"),
    "regexSubst": ("regex", "src", "repl"),
    "sha256": ("str",),
    "helmTemplate": ("name", "chart", "opts"),
    "kustomizeBuild": ("path", "opts"),
}
# Arguments that are objects in Jsonnet and cross the binding as JSON text.
OBJECT_ARGS = frozenset({"opts"})


def _wrapper(name: str, params: tuple[str, ...]) -> str:
    args = ", ".join(f"s.manifestJsonEx({p}, '')" if p in OBJECT_ARGS else p for p in params)
    call = f"s.native('{SAFE_PREFIX}{name}')({args})"
    return f"    {name}({', '.join(params)}):: unwrap({call}),\n"


def _source() -> str:
    wrappers = "".join(_wrapper(n, p) for n, p in PARAMS.items())
    return (
        "function(s)\n"
        "  local unwrap(r) = if std.objectHas(r, 'error') then error r['error'] else r.ok;\n"
        "  local natives = {\n"
        f"{wrappers}"
        "  };\n"
        "  s {\n"
        "    native(name):: if std.objectHasAll(natives, name) then natives[name]\n"
        "                   else s.native(name),\n"
        "  }\n"
    )


SHIM_SOURCE = _source()
