"""jsonnet-bundler in Python: jsonnetfile formats, git fetching, vendor/ and the lock file.

A library: the jb_* agent tools that use it live in tools.engine_tools.jb.
"""
