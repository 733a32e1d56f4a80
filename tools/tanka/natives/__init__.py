"""Tanka's native functions (`std.native(...)`) with the semantics of tk's Go code.

May import gojson and goyaml; helmTemplate/kustomizeBuild run the real binaries (exec.py).
"""
