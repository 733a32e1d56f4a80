"""What a chat changed, as it prints it: the git diff since the chat began, then the rendered diff.

Rendering the affected environments (at the base and in the working tree) is also how the chat's
SecretMask learns their Secret values, and it must know them before anything of the change is
printed: the git diff may show a source file holding a value, the agent's answer may quote one.
So the rendered diff is made first and kept per state of the working tree: the answer printed
after a turn and the diffs printed next cost one render, not two.
"""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from tools.errors import ToolError
from tools.git import working_diff, working_tree_id
from tools.redaction import SecretMask
from tools.tanka.diff.groups import group_envs, grouped_text
from tools.tanka.diff.revision import RevisionDiffer, rendered_change
from tools.tanka.errors import TankaError


class ChatChanges:
    def __init__(
        self, root: Path, base: str | None, mask: SecretMask, differ: RevisionDiffer | None = None
    ) -> None:
        self.root = root
        self.base = base
        self.mask = mask
        self.differ = differ  # the chat's own, so its base renders are shared with tanka_diff
        self._rendered: tuple[str, str] | None = None  # (working tree id, rendered diff text)

    def learn(self) -> None:
        """Teach the mask the Secret values of the change's renders (rendering it if need be)."""
        self.rendered()

    def show(self, out: TextIO) -> None:
        """The git diff since the chat began, then the rendered-manifest diff."""
        self.print(out, working_diff(self.root, self.base))

    def print(self, out: TextIO, patch: str) -> None:
        """`patch` (the git diff since the base), then the rendered-manifest diff, both masked."""
        if not patch.strip():
            out.write("no changes in the checkout\n")
            return
        rendered = self.rendered()
        out.write("\n── git diff ──\n")
        out.write(self.mask.apply(patch if patch.endswith("\n") else patch + "\n"))
        if rendered is not None:
            out.write("\n── rendered diff ──\n" + self.mask.apply(rendered))
        out.flush()

    def rendered(self) -> str | None:
        """The rendered diff of the environments the change affects (Secrets redacted by kind);
        None without a base commit to compare with."""
        if self.base is None:
            return None  # nothing to compare with in a repository without commits
        try:
            tree: str | None = working_tree_id(self.root)
        except ToolError:
            tree = None
        if tree is not None and self._rendered is not None and self._rendered[0] == tree:
            return self._rendered[1]
        text = _render(self.root, self.base, self.mask, self.differ)
        if tree is not None:
            self._rendered = (tree, text)
        return text


def _render(root: Path, base: str, mask: SecretMask, differ: RevisionDiffer | None) -> str:
    try:
        diff = rendered_change(root, base, mask, differ=differ or RevisionDiffer())
    except (TankaError, ToolError, OSError) as exc:
        return f"not available: {exc}\n"
    if not diff.envs:
        return "no Tanka environment is affected by this change\n"
    # the summary first, then each unified diff once for environments whose diffs are identical
    return grouped_text(group_envs(diff.envs)).rstrip("\n") + "\n"
