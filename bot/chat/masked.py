"""The chat's output stream: everything written to the terminal passes the session's SecretMask.

One place for every line the chat prints (tool calls and results, the answer, diffs, errors,
approval messages), so none can forget the mask. Text is held until a line ends (or `flush`), so
a value written in pieces is still masked whole; a value spanning lines is masked line by line
(tools/redaction/mask.py masks each long line of a multi-line value).
"""

from __future__ import annotations

import io
import threading
from typing import TextIO

from tools.redaction import SecretMask


class MaskedWriter(io.TextIOBase, TextIO):
    def __init__(self, out: TextIO, mask: SecretMask) -> None:
        super().__init__()
        self._out = out
        self._mask = mask
        self._pending = ""
        self._lock = threading.Lock()  # the turn's thread and the main thread both print

    def write(self, text: str) -> int:
        with self._lock:
            self._pending += text
            cut = self._pending.rfind("\n") + 1
            if cut:
                ready, self._pending = self._pending[:cut], self._pending[cut:]
                self._out.write(self._mask.apply(ready))
        return len(text)

    def flush(self) -> None:
        with self._lock:
            if self._pending:
                self._out.write(self._mask.apply(self._pending))
                self._pending = ""
            self._out.flush()

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return self._out.isatty()
