"""The address-space cap a process that evaluates Jsonnet sets on itself: a Jsonnet bomb ends in
a MemoryError there, not in the machine's memory."""

from __future__ import annotations

import resource


def cap_memory(memory_mb: int) -> None:
    """Allow this process `memory_mb` more address space than it has now (RLIMIT_AS)."""
    current = vm_size_bytes()
    limit = current + memory_mb * 1024 * 1024
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def vm_size_bytes() -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0
