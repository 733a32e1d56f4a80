"""What `import "tk"` gives a Jsonnet file: tk's own library (the environment being evaluated),
served by the importer, read by the linter and named by the import graph."""

TK_LIBRARY = "tk"
TK_LIBRARY_PATH = "<internal>/tk.libsonnet"
TK_LIBRARY_SOURCE = b'{\n  env: std.extVar("tanka.dev/environment"),\n}\n'
