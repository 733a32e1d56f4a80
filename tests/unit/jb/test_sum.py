"""hashDir against the sums jb's own tests hard-code, and its walk quirks."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tools.jb.spec import init_content
from tools.jb.sum import hash_dir


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        (1, "qUJDskVRtmkTms2udvFpLi1t5YKVbGmMSyiZnPjXsMo="),  # frozen-lib@9f40207
        (2, "OraOcUvDIx9Eikaihi8XsRNRsVehO75Ek35im/jYoSA="),  # frozen-lib@ed7c1af
    ],
)
def test_frozen_lib_sums(tmp_path: Path, version: int, expected: str) -> None:
    # frozen-lib holds jb's init output and a one-field object (sums computed with jb).
    (tmp_path / "jsonnetfile.json").write_bytes(init_content())
    (tmp_path / "main.libsonnet").write_text(f"{{\n  version: {version},\n}}\n")
    assert hash_dir(tmp_path) == expected


def _tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def test_only_bytes_in_walk_order_count(tmp_path: Path) -> None:
    one = _tree(tmp_path / "one", {"a": "x", "b/c": "y", "ba": "z"})
    # Walk order is a, b/c, ba: the same bytes in that order give the same sum.
    two = _tree(tmp_path / "two", {"a": "", "b/c": "xy", "bz": "z"})
    assert hash_dir(one) == hash_dir(two)
    three = _tree(tmp_path / "three", {"a": "x", "b/c": "z", "ba": "y"})
    assert hash_dir(one) != hash_dir(three)


def test_walk_stops_at_a_dangling_link(tmp_path: Path) -> None:
    full = _tree(tmp_path / "full", {"a": "x"})
    broken = _tree(tmp_path / "broken", {"a": "x", "c": "never read"})
    os.symlink("missing", broken / "b")
    assert hash_dir(broken) == hash_dir(full)


def test_links_inside_are_followed_links_outside_are_not_read(tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text("SECRET")
    inside = _tree(tmp_path / "in", {"a": "x"})
    os.symlink("a", inside / "b")
    assert hash_dir(inside) == hash_dir(_tree(tmp_path / "plain", {"a": "x", "b": "x"}))
    outside = _tree(tmp_path / "out", {"a": "x"})
    os.symlink(str(secret), outside / "b")
    copied = _tree(tmp_path / "copied", {"a": "x", "b": "SECRET"})
    assert hash_dir(outside) == hash_dir(_tree(tmp_path / "only-a", {"a": "x"}))
    assert hash_dir(outside) != hash_dir(copied)
