"""A Python port of go-jsonnet's front end (lexer, parser, desugarer, static analysis) and linter.

The node classes, their fields and the order of findings mirror go-jsonnet's, so messages and
positions match `jsonnet-lint` exactly; see docs in each module for what is ported from where.
"""
