"""A session's SecretMask taught before anything of the session is shown.

Renders teach the mask as they happen (tanka_show, tanka_diff, a proposal's diff), but a value
can be shown before the render that would reveal it as secret: a file_read of the source that
holds it, a git diff, another environment whose ConfigMap copies it, a working tree that no
longer has the Secret its ConfigMap copied. `MaskTeacher` renders what the session can render
(every environment at the base commit, the environments the change affects on both sides:
`RevisionDiffer.learn_secrets`) once, before the first tool call runs, so before its output
leaves (tools/registry.py calls it through `ToolContext.teach_mask`; not after the call, or a
first edit of a shared library would have it render every affected environment that the
change's diff renders again), and before a front end prints or posts anything.

It runs once per teacher; if it cannot run (no base commit, the base tree cannot be made) it
says so in the log and tries again on the next call, while renders still teach as they go.
Rendering every environment at a new base commit takes a while (bench/mask_teacher.py: 13 s for
200 environments on 2 cores, then 0.1 s from the cache), so the Slack turn `start`s it when
the turn begins: it runs while the model thinks, and the first tool call waits only for what
is left.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path

from tools.errors import ToolError
from tools.redaction.mask import SecretMask
from tools.tanka.diff.revision import RevisionDiffer
from tools.tanka.errors import TankaError

log = logging.getLogger(__name__)


class MaskTeacher:
    def __init__(
        self, root: Path, base: str | None, mask: SecretMask, differ: RevisionDiffer | None
    ) -> None:
        self.root, self.base, self.mask, self.differ = root, base, mask, differ
        self._done = False
        self._lock = threading.Lock()  # a turn's tools and the front end may both ask

    def start(self) -> None:
        """Begin teaching in the background; the next call waits for it to finish."""
        threading.Thread(target=self._background, name="mask-teacher", daemon=True).start()

    def _background(self) -> None:
        try:
            self()
        except Exception:  # unexpected: the next call, on the turn's thread, tries again
            log.exception("teaching the session's SecretMask failed")

    def __call__(self) -> None:
        if not self.base:
            return  # a repository without commits: only the working tree's renders teach
        with self._lock:
            if self._done:
                return
            try:
                (self.differ or RevisionDiffer()).learn_secrets(self.root, self.base, self.mask)
            except (TankaError, ToolError, OSError) as exc:
                log.warning("the session's Secret values could not all be learned: %s", exc)
                return
            self._done = True


def nothing_to_teach() -> None:
    """The default `ToolContext.teach_mask`: renders alone teach the mask."""
