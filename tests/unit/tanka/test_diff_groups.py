"""Grouping environments whose rendered diffs are identical (tools.tanka.diff.groups)."""

from __future__ import annotations

from tools.tanka.diff.groups import group_envs, grouped_summary, grouped_text
from tools.tanka.diff.resources import Change, EnvDiff, ResourceDiff, ResourceKey, full_text


def _env(name: str, replicas: int, kind: str = "Deployment") -> EnvDiff:
    key = ResourceKey("apps/v1", kind, "apps", "grafana")
    diff = f"diff -u -N LIVE-x MERGED-x\n-replicas: 1\n+replicas: {replicas}\n"
    return EnvDiff(name, [ResourceDiff(key, Change.CHANGED, diff)])


def test_identical_diffs_share_a_group_in_first_seen_order() -> None:
    envs = [_env(f"environments/gen-{i:03d}", 2 + i % 4) for i in range(300)]
    envs.append(EnvDiff("environments/untouched"))
    groups = group_envs(envs)
    assert [len(g.envs) for g in groups] == [75, 75, 75, 75]
    assert groups[0].names[:2] == ("environments/gen-000", "environments/gen-004")
    assert groups[1].resources == 1


def test_errors_and_whole_environment_changes_are_not_mixed_with_plain_diffs() -> None:
    plain = _env("environments/a", 3)
    added = _env("environments/b", 3)
    added.env_change = Change.ADDED
    broken = EnvDiff("environments/c", error="RUNTIME ERROR: boom")
    also_broken = EnvDiff("environments/d", error="RUNTIME ERROR: boom")
    groups = group_envs([plain, added, broken, also_broken])
    assert [g.names for g in groups] == [
        ("environments/a",),
        ("environments/b",),
        ("environments/c", "environments/d"),
    ]
    assert "2 environments: cannot render: RUNTIME ERROR: boom" in grouped_summary(groups)


def test_without_shared_diffs_the_text_is_tk_diffs() -> None:
    envs = [_env("environments/a", 2), _env("environments/b", 3)]
    assert grouped_text(group_envs(envs)) == full_text(envs)


def test_a_group_is_summarised_once_with_its_environments_and_its_diff_shown_once() -> None:
    envs = [_env(f"environments/e{i}", 5) for i in range(25)]
    text = grouped_text(group_envs(envs))
    assert text.startswith(
        "25 environments in 1 group, 25 resources changed; within a group the diffs differ "
        "only in each environment's own name, namespace and spec.json values\n"
        "25 environments: 0 added, 1 changed, 0 removed each\n"
    )
    assert "environments/e19 and 5 more" in text
    assert "  changed  Deployment apps/grafana (apps/v1)" in text
    assert text.count("+replicas: 5") == 1
    assert grouped_summary([]) == "No differences.\n"


def test_environments_failing_at_the_base_are_a_group_of_their_own_and_say_so() -> None:
    error = "working tree: RUNTIME ERROR: boom"
    before = [EnvDiff(f"environments/old-{i}", error=error, already_failing=True) for i in range(2)]
    now = EnvDiff("environments/new", error=error)
    groups = group_envs([*before, now])
    assert [g.names for g in groups] == [
        ("environments/old-0", "environments/old-1"),
        ("environments/new",),
    ]
    assert grouped_summary(groups).split("\n", 1)[1] == (
        "2 environments: already failing at the base: RUNTIME ERROR: boom\n"
        "  environments/old-0, environments/old-1\n"
        "environments/new: cannot render: working tree: RUNTIME ERROR: boom\n"
    )
