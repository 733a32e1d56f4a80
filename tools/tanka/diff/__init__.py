"""Rendered-manifest diffs: per resource between two renders, and per environment between a
commit (materialised read-only, renders cached by commit) and the working tree.
"""
