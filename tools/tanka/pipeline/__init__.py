"""From an evaluated environment to YAML: extract the manifests, process them in tk's order,
apply `-t` targets, render (the glue behind `tk show`, `tk export` and diffs)."""
