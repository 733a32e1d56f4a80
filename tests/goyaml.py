"""Reading YAML the way tk's output is read back: YAML 1.1, every number a Go float64.

The oracle for the byte-for-byte YAML writers: load what tk (or the engine) printed, emit it
again, compare.
"""

from __future__ import annotations

import re
from typing import Any

import yaml


class GoLoader(yaml.SafeLoader):
    """YAML 1.1 loader that reads numbers as Go's float64 (`1e+06` included), as tk decodes JSON."""


GoLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:int"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
GoLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$"),
    list("-+0123456789."),
)


def load(text: str) -> Any:
    """One YAML document, numbers as float."""
    return yaml.load(text, Loader=GoLoader)  # noqa: S506 - a SafeLoader subclass
