"""jsonnet-lint's type checker (go-jsonnet's linter), in-process.

Jsonnet has no static types, but for each expression an upper bound of the values it can take
can be inferred, and some misuses follow from it: calling a non-function, wrong arity, indexing
what cannot be indexed, a field an object surely lacks. It is conservative: when unsure, it
says nothing. Two phases: build and solve a graph of type placeholders over the whole program
(every file reachable by imports) - `build_graph`, `process_graph`; then check each expression
of one file against the solution - `check`.
"""

from tools.tanka.source.jsonnet.types.check import ErrorSink, check

__all__ = ["ErrorSink", "check"]
