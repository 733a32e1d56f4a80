"""Tools over Jsonnet source text: `tk fmt` (go-jsonnet's formatter) and `tk lint`."""
