"""A proposal: the change exactly as it was shown in the thread, the one value every layer uses.

bot.publish.proposal makes it from a checkout (`make_proposal`) and checks that the checkout still
holds it (`check_unchanged`); bot.handlers.turn posts it (bot.slack.blocks renders it) and keeps
it in the session; an approval publishes it.

Stored with the session under the same JSON field names a `ProposalRecord` had, so sessions
stored before it still load. What was shown but may be long or sensitive stays out of the store:
the diff text, the checks' findings and the note (`Field(exclude=True)`); read back from the
store, they are empty.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Proposal(BaseModel):
    model_config = ConfigDict(frozen=True)

    # The proposal message, set when it is posted: the approve reaction must be on this one.
    ts: str = ""
    # Identity: an approval binds the base commit, the tree and the exact patch's hash.
    base_commit: str
    tree: str  # git tree id of the proposed working tree: the content, exactly
    diff_hash: str  # sha256 of the exact binary patch from the base commit to the tree
    files: tuple[str, ...]  # paths added, modified or deleted (both sides of a rename)
    # What was shown, for approval rules, the commit message and the PR body.
    envs: tuple[str, ...] = ()  # the environments that render differently
    title: str = ""
    summary: str = ""  # per-environment summary: the commit message and the PR body
    created: float = 0.0  # Unix time
    # The environments the change may affect (the importers analysis), for approval rules;
    # None: not known (the analysis failed, or a session stored before rules existed).
    affected: tuple[str, ...] | None = None
    approved_by: tuple[str, ...] = ()  # set when it became a pull request (the store counts)
    review: str = ""  # the reviewer's findings as the proposal showed them (for the PR body)
    # The policy rules that denied it (tk check's `main.deny...`): each blocks approval until
    # waived (bot.guards.waivers). Stored: another replica may take the approval.
    denied: tuple[str, ...] = ()
    # Shown, never stored.
    diff: str = Field(default="", exclude=True)  # the unified diff (base commit -> tree)
    checks: str = Field(default="", exclude=True)  # schema and policy findings (tk check)
    note: str = Field(default="", exclude=True)  # e.g. why a rendered diff is not available

    @property
    def empty(self) -> bool:
        return not self.files
