"""Staleness decided (bot.guards.staleness): a base move makes a proposal stale only when one
of its environments reads a moved file, or when its environments are not known."""

from __future__ import annotations

from bot.guards.staleness import Moved, stale, touched

PROD = ("environments/prod",)


def test_a_move_under_what_the_proposal_renders() -> None:
    readers = ["environments/dev/main.jsonnet", "environments/prod/main.jsonnet"]
    envs = touched(PROD, readers)
    assert envs == PROD
    assert stale("new", "old", ["lib/app.libsonnet"], envs) == Moved(
        "new", ("lib/app.libsonnet",), PROD
    )


def test_a_move_elsewhere_or_no_move_changes_nothing() -> None:
    assert (
        stale("new", "old", ["docs/x.md"], touched(PROD, ["environments/dev/main.jsonnet"])) is None
    )
    assert stale("old", "old", [], touched(None, [])) is None


def test_unknown_environments_are_rendered_again() -> None:
    assert stale("new", "old", ["docs/x.md"], touched(None, [])) == Moved("new", ("docs/x.md",), ())
