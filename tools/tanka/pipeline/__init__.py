"""From an environment to YAML: process the extracted manifests in tk's order, apply `-t`
targets, render (the glue behind `tk show`, `tk export` and diffs); rendered.py is the value
render makes and the diffs compare."""
