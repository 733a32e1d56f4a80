"""Tanka's read-only core in-process: environments, evaluation, manifests, YAML, export, diffs.

A library: it imports nothing from bot/ and nothing from tools.agent (the adapters that expose it
to the model). Top-level modules are the pipeline (project -> environments -> evaluation ->
manifests -> process -> render); the subpackages are its families.
"""
