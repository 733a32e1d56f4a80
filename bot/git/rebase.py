"""Moving a session's change to a newer base commit: its patch re-applied with a 3-way merge.

A session's patch (`Checkout.save_patch`) records the full blob ids of what it changes, and the
checkout borrows every object of the repo cache, so `git apply --3way` can merge each file from
the patch's preimage, the new base and the patched version. Files changed on both sides in
overlapping places come back as conflicts; the caller decides what to keep.
"""

from __future__ import annotations

import re

from bot.git.checkout import Checkout
from tools.gitrun import GitError

# `git apply` names a file it could not patch at all (no preimage blob to merge from) this way.
_FAILED = re.compile(
    r"^error: (?:patch failed: (?P<at>.+):\d+"
    r"|(?P<path>.+): (?:does not exist in index|already exists in (?:index|working directory)"
    r"|patch does not apply|does not match index))$",
    re.MULTILINE,
)


def reapply(checkout: Checkout, patch: bytes) -> tuple[str, ...]:
    """Apply `patch` (made against an older base) to the fresh `checkout` with a 3-way merge.

    Returns the files that conflict, sorted; () when the patch applied cleanly. After a clean
    apply the index is reset to HEAD, leaving the checkout as `RepoCache.restore` does (the
    change in the working tree only). Raises GitError when git fails for another reason.
    """
    if not patch.strip():
        return ()
    git = checkout.git
    try:
        git.run("apply", "--3way", "--binary", "--whitespace=nowarn", "-", input_bytes=patch)
    except GitError as exc:
        unmerged = git.out("diff", "--name-only", "--diff-filter=U").splitlines()
        failed = [m["at"] or m["path"] for m in _FAILED.finditer(exc.reason)]
        conflicts = sorted({p for p in [*unmerged, *failed] if p})
        if not conflicts:
            raise
        return tuple(conflicts)
    git.run("reset", "--quiet")
    return ()
