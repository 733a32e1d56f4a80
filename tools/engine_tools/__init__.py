"""The agent-facing adapters over the engines: pydantic inputs, ToolErrors, texts for the model.

Each module turns one engine (tools.tanka, tools.jb) into `Tool`s for the registry. The engines
know nothing of tools; only this package (and tools/files.py, git.py, github.py) does.
"""
