"""`tanka-bot serve` marks its process non-dumpable, so children cannot read its /proc files."""

from __future__ import annotations

import subprocess
import sys

import pytest

PROBE = """
import ctypes
from bot.dumpable import not_dumpable
libc = ctypes.CDLL(None)
before = libc.prctl(3, 0, 0, 0, 0)  # PR_GET_DUMPABLE
print(before, not_dumpable(), libc.prctl(3, 0, 0, 0, 0))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl is Linux's")
def test_serve_process_becomes_not_dumpable() -> None:
    # In a child interpreter: the flag is process-wide and would stick to the test runner.
    out = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, check=True, timeout=60
    ).stdout.split()
    assert out == ["1", "True", "0"]
