"""The read set of a render: what its evaluations read, to tell later whether it still holds.

A render is a function of the files its evaluations looked up (the import callback's candidates,
found or not: importer.Importer.looked_up), the evaluation options and the environment's location
(root, base, spec.json). `ReadSet` gathers the first across all the evaluations of one render
(an inline entrypoint takes several, in threads). An evaluation without a read set - one that
failed, or called a native reading files the callback never sees (helmTemplate reads a whole
chart directory and runs helm) - makes the whole set `opaque`: such a render is never reused.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping


class ReadSet:
    def __init__(self) -> None:
        self.files: dict[str, str] = {}  # absolute path looked up -> Importer.outcome
        self.opaque = False
        self._lock = threading.Lock()

    def add(self, reads: Mapping[str, str] | None) -> None:
        """One evaluation's reads; None: it has none (see the module docstring)."""
        with self._lock:
            if reads is None:
                self.opaque = True
            else:
                self.files.update(reads)
