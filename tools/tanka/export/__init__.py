"""`tk export`: one file per manifest named by the --format template, plus manifest.json."""
