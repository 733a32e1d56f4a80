"""Tanka environments: their spec, how they are found, listed, chosen and loaded, label
selectors, and the Tanka version they expect. Where they live on disk is tools.tanka.project's."""
