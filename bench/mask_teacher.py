"""What teaching a session's SecretMask before its first tool output costs (tools/mask_teacher).

The generated repository of bench/tanka_diff.py (fakes/tanka_envs.py: ENVS environments, each
with a Secret), one environment edited in the working tree. Timed:
* cold: a session's first tool call on a fresh differ (base tree, every environment rendered at
  the base, the change's environments on both sides),
* warm: the next session on the same differ (the Slack service keeps one; base renders cached),
* a tool output masked with what was learned.
Run: .venv/bin/python bench/mask_teacher.py [ENVS]
"""

from __future__ import annotations

import shutil
import sys

from tanka_diff import WORK, build, edit, timed

from fakes.tanka_envs import env_dir
from tools.mask_teacher import MaskTeacher
from tools.redaction import SecretMask
from tools.tanka.base_tree import BaseTrees
from tools.tanka.diff.revision import RevisionDiffer


def main() -> None:
    envs = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    repo = timed(f"generate and commit {envs} environments", lambda: build(envs))
    trees = WORK.parent / "mask_teacher_trees"
    shutil.rmtree(trees, ignore_errors=True)
    differ = RevisionDiffer(trees=BaseTrees(trees))
    edit(repo, 3)
    first = SecretMask()
    timed("teach, cold (first session on this differ)", MaskTeacher(repo, "HEAD", first, differ))
    print(f"  {first.size} forms learned")
    second = SecretMask()
    timed("teach, warm (next session, cached base renders)",
          MaskTeacher(repo, "HEAD", second, differ))  # fmt: skip
    text = (repo / env_dir(7) / "main.jsonnet").read_text() * 2000
    timed(f"mask a {len(text) // 1024} KiB tool output", lambda: second.apply(text))


if __name__ == "__main__":
    main()
