"""Property: whatever path or symlink layout the model throws at the tools, nothing outside the
checkout is read or written, nothing under .git/ changes, and protected files stay as they were."""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.property.conftest import CASES
from tools import sandbox
from tools.context import ToolContext
from tools.errors import ToolError
from tools.files import TOOLS as FILE_TOOLS
from tools.registry import ToolRegistry

REGISTRY = ToolRegistry(FILE_TOOLS)
SENTINEL = "OUTSIDE-SENTINEL-7f3a"  # the content of the file outside the checkout
QUERY = "SENTINEL-7f3a"  # what the tools look for: echoing it back does not reveal SENTINEL
PROPERTY_SETTINGS = settings(
    max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

segment = st.one_of(
    st.sampled_from(
        [
            "..",
            ".",
            "",
            ".git",
            ".GIT",
            ".github",
            "lib",
            "a.jsonnet",
            "~",
            "link",
            "out",
            "loop",
            "gitlink",
            "abs",
            "protlink",
            "up",
            "..\\..",
            "sub",
            "x\x00y",
            "C:",
        ]
    ),
    st.text(alphabet="ab./\\~-_", min_size=1, max_size=6),
)
hostile_path = st.builds(
    lambda lead, parts: lead + "/".join(parts),
    st.sampled_from(["", "/", "./", "../", "~/", "\\"]),
    st.lists(segment, min_size=1, max_size=6),
)
# Where symlinks inside the checkout may point: inside, outside (relative and absolute), into
# .git and protected directories, at themselves.
link_target = st.sampled_from(
    ["lib", "lib/app.libsonnet", "../outside", "../outside/secret.txt", "{outside}", "/etc",
     ".git", ".git/config", ".github", "loop", "sub/../..", "nowhere", "."]
)  # fmt: skip
link_place = st.sampled_from(["link", "out", "loop", "gitlink", "abs", "protlink", "sub/up"])
layout = st.lists(st.tuples(link_place, link_target), max_size=5, unique_by=lambda t: t[0])


@dataclass
class Sandbox:
    root: Path
    outside: Path

    def snapshot(self) -> dict[str, str]:
        """Hashes of everything that must never change: outside, .git and protected files."""
        found: dict[str, str] = {}
        for top in (self.outside, self.root / ".git", self.root / ".github"):
            for current, _dirs, files in os.walk(top):
                for name in files:
                    path = Path(current) / name
                    found[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
        return found


@contextmanager
def checkout(links: list[tuple[str, str]]) -> Iterator[Sandbox]:
    with tempfile.TemporaryDirectory() as scratch:
        base = Path(scratch)
        outside = base / "outside"
        outside.mkdir()
        (outside / "secret.txt").write_text(SENTINEL + "\n")
        root = base / "repo"
        for rel, text in {
            "lib/app.libsonnet": "{}\n",
            ".git/config": "[core]\n",
            ".github/ci.yml": "on: push\n",
            "sub/keep.txt": "k\n",
        }.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)
        for place, target in links:
            (root / place).symlink_to(target.replace("{outside}", str(outside)))
        yield Sandbox(root, outside)


def _inside(box: Sandbox, path: Path) -> bool:
    real = Path(os.path.realpath(path))
    root = Path(os.path.realpath(box.root))
    return real == root or (
        real.is_relative_to(root) and ".git" not in real.relative_to(root).parts
    )


@PROPERTY_SETTINGS
@given(links=layout, rel=hostile_path, for_write=st.booleans())
def test_resolve_lands_inside_or_refuses(
    links: list[tuple[str, str]], rel: str, for_write: bool
) -> None:
    CASES["resolve"] += 1
    with checkout(links) as box:
        try:
            path = sandbox.resolve(box.root, rel, for_write=for_write, protected=(".github/**",))
        except ToolError as exc:
            refusal = str(exc)  # every refusal says why
            assert refusal, rel
            return
        assert _inside(box, path)
        if for_write:
            rel_real = Path(os.path.realpath(path)).relative_to(os.path.realpath(box.root))
            assert rel_real.parts[:1] != (".github",)


operation = st.one_of(
    st.builds(lambda p: ("file_read", {"path": p}), hostile_path),
    st.builds(lambda p: ("file_write", {"path": p, "content": "PWNED"}), hostile_path),
    st.builds(
        lambda p: ("file_edit", {"path": p, "old_text": QUERY, "new_text": "PWNED"}),
        hostile_path,
    ),
    st.builds(lambda p: ("file_delete", {"path": p}), hostile_path),
    st.builds(lambda g: ("file_list", {"glob_pattern": g}), hostile_path),
    st.builds(lambda g: ("file_search", {"glob_pattern": g, "text_query": QUERY}), hostile_path),
)


@PROPERTY_SETTINGS
@given(links=layout, ops=st.lists(operation, min_size=1, max_size=6))
def test_tools_never_touch_outside_git_or_protected(
    links: list[tuple[str, str]], ops: list[tuple[str, dict[str, str]]]
) -> None:
    CASES["file tools"] += 1
    with checkout(links) as box:
        before = box.snapshot()
        ctx = ToolContext(root=box.root, protected_paths=(".github/**", ".git/**"))
        for name, args in ops:
            outcome = REGISTRY.execute(ctx, name, args)
            assert SENTINEL not in outcome.content, (name, args, outcome.content)
        assert box.snapshot() == before
        assert not any(box.outside.iterdir()) or sorted(p.name for p in box.outside.iterdir()) == [
            "secret.txt"
        ]
