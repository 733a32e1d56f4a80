"""Evaluating Jsonnet as tk does: the import callback, the worker processes, the wrappers.

Owns the go-jsonnet binding and the process pool (timeouts, memory caps, crash recovery).
May import natives, project and errors; knows nothing of manifests or YAML.
"""
