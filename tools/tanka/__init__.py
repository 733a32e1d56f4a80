"""Tanka's read-only core in-process: environments, evaluation, manifests, YAML, export, diffs.

A library: it imports nothing from bot/ and nothing from tools.engine_tools (the adapters that
expose it to the model). env/ finds and loads environments (project, spec, loader), evaluation/ runs
Jsonnet, pipeline/ turns the result into YAML (extract -> process -> targets -> render); the other
subpackages are the commands' families (export, diff, check, source, imports) and Go's formats
(gojson, goyaml).
"""
