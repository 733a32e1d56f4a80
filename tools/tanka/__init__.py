"""Tanka's read-only core in-process: environments, evaluation, manifests, YAML, export, diffs.

A library: it imports nothing from bot/ and nothing from tools.engine_tools (the adapters that
expose it to the model). project.py says where a project lives, env/ finds and loads environments,
evaluation/ runs Jsonnet, manifests.py extracts the manifests and pipeline/ turns them into YAML
(process -> targets -> render); the other subpackages are the commands' families (export, diff,
check, source, imports) and Go's formats (gojson, goyaml).
"""
