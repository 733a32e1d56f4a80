"""What a hidden value is replaced with, wherever it was hidden.

One fixed marker for every kind of hidden text (a token in a git message, an API key echoed by a
provider, a Secret's value in a diff): it says that something was held back and nothing about
what. It carries no length, no prefix and no per-value tag, so seeing it never lets anyone confirm
a guess, and two hidden values cannot be told apart.
"""

from __future__ import annotations

REDACTED = "<redacted>"
