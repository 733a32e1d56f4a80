"""Label selectors (-l) and spec.expectVersions.tanka constraints."""

from __future__ import annotations

import pytest

from tools.tanka.env.selector import SelectorError, selector
from tools.tanka.env.versions import VersionError, check_version, satisfies

LABELS = {"type": "static", "tier": "3", "app.kubernetes.io/name": "web"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", True),
        ("type=static", True),
        ("type==static", True),
        ("type!=static", False),
        ("team!=a", True),
        ("type", True),
        ("!type", False),
        ("!team", True),
        ("type in (inline, static)", True),
        ("type notin (inline,static)", False),
        ("team notin (a)", True),
        ("tier>2", True),
        ("tier<3", False),
        ("app.kubernetes.io/name=web,type=static", True),
        ("app.kubernetes.io/name=web,type=inline", False),
        ("type in (static),tier", True),
    ],
)
def test_selector(text: str, expected: bool) -> None:
    assert selector(text)(LABELS) is expected


@pytest.mark.parametrize("text", ["type in (", "type=a b", "=x", "tier>x", "a,,b", "type in x"])
def test_bad_selectors_use_tk_text(text: str) -> None:
    with pytest.raises(SelectorError, match=r"^Could not parse selector \(-l\) "):
        selector(text)


@pytest.mark.parametrize(
    ("constraint", "expected"),
    [
        (">= 0.38", True),
        (">=0.38.0, <0.39", True),
        (">0.38", False),
        (">0.37", True),
        ("0.38.x", True),
        ("0.37.x", False),
        ("~0.38.0", True),
        ("~0.37.1", False),
        ("^0.30.0", True),  # v1 caret: same major
        ("^1.0.0", False),
        ("<= 0.38", True),
        ("< 0.38.0", False),
        ("!= 0.38.0", False),
        ("0.37 - 0.40", True),
        ("< 0.30 || >= 0.38", True),
        ("*", True),
    ],
)
def test_version_constraints(constraint: str, expected: bool) -> None:
    assert satisfies((0, 38, 0), constraint) is expected


def test_check_version_texts() -> None:
    check_version("")
    check_version(">= 0.20")
    with pytest.raises(VersionError) as raised:
        check_version(">= 1.0")
    assert str(raised.value) == (
        "current version '0.38.0' does not satisfy the version required by the environment: "
        "'>= 1.0'. You likely need to use another version of Tanka"
    )
    with pytest.raises(VersionError, match=r"^parsing version constraint: 'improper constraint"):
        check_version("at least one")
