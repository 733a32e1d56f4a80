"""Tanka environments: where they live on disk, their spec, how they are found, chosen and
loaded, label selectors, and the Tanka version they expect."""
