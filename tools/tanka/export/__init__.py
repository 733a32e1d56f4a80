"""`tk export`: one file per manifest named by the --format template, plus manifest.json.

tk's defaults live here, not in files.py, so the command line can show them without loading the
writer (templates, YAML) on every `tanka-bot tk` start.
"""

DEFAULT_FORMAT = "{{.apiVersion}}.{{.kind}}-{{or .metadata.name .metadata.generateName}}"
DEFAULT_EXTENSION = "yaml"
