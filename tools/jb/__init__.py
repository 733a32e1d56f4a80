"""jsonnet-bundler in Python: jsonnetfile formats, git fetching, vendor/ and the jb_* tools."""
