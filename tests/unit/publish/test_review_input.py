"""What the reviewer sub-agent reads of a proposal (bot.publish.change.review_input)."""

from __future__ import annotations

from bot.domain.proposal import Proposal
from bot.publish.change import review_input
from tools.tanka.diff.resources import Change, EnvDiff, ResourceDiff, ResourceKey
from tools.tanka.diff.revision import RevisionDiff


def _env(i: int) -> EnvDiff:
    ns = f"tenant-{i}"
    key = ResourceKey("v1", "ConfigMap", ns, "web-config")
    text = (
        f"--- v1.ConfigMap.{ns}.web-config\tbase\n+++ v1.ConfigMap.{ns}.web-config\tworking tree\n"
        f"@@ -1 +1 @@\n-url: web.{ns}.svc\n+url: web.{ns}.svc.local\n"
    )
    identity = (("directory", f"envs/cell-{i}"), ("spec.namespace", ns))
    return EnvDiff(f"envs/cell-{i}", [ResourceDiff(key, Change.CHANGED, text)], identity=identity)


def test_the_reviewer_reads_a_wide_change_grouped_as_the_proposal_shows_it() -> None:
    proposal = Proposal(base_commit="0" * 40, tree="1" * 40, diff_hash="2" * 64, files=("lib",))
    diff = RevisionDiff("0" * 40, [_env(i) for i in range(2000)])
    rendered = review_input("move the url", proposal, diff).rendered_diff
    assert rendered.startswith("2000 environments in 1 group, 2000 resources changed")
    # The change once, as the first environment's real diff; the others by name.
    assert rendered.count("+url: web.") == 1
    assert "+url: web.tenant-0.svc.local" in rendered
    assert len(rendered) < 2000


def test_without_a_rendered_diff_the_reviewer_reads_why() -> None:
    proposal = Proposal(
        base_commit="0" * 40, tree="1" * 40, diff_hash="2" * 64, files=("lib",),
        note=":warning: rendered diff not available: boom",
    )  # fmt: skip
    assert review_input("x", proposal, None).rendered_diff == proposal.note
