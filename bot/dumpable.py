"""Keep the service's secrets out of its children's reach: the process made non-dumpable."""

from __future__ import annotations

import sys


def not_dumpable() -> bool:
    """Mark this process non-dumpable (Linux `prctl(PR_SET_DUMPABLE, 0)`); False elsewhere.

    The service holds every token in memory. A non-dumpable process's `/proc/<pid>/` files
    (environ, mem, maps) belong to root and cannot be ptraced, so a child it runs (git, Helm,
    a Jsonnet worker evaluating repository code) cannot read the parent's secrets even as the
    same user. Children get their own dumpable state back when they exec.
    """
    if not sys.platform.startswith("linux"):
        return False
    import ctypes  # noqa: PLC0415 - start-up: 3 ms that every command would pay (cli imports this module)

    libc = ctypes.CDLL(None, use_errno=True)
    return int(libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)) == 0


_PR_SET_DUMPABLE = 4
