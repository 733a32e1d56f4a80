"""Static import analysis: scanning Jsonnet for imports, the import graph, `tk tool importers`,
and which environments a change between a commit and the working tree affects.

Never evaluates Jsonnet; may import project and environments.
"""
