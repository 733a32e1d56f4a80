"""What the bot posts, as Slack text and blocks. Pure: values in, message payloads out.

Slack's documented limits shape everything here: a section's text is at most 3,000 characters, a
message at most 50 blocks, `text` is cut at 40,000 characters, and messages with more than about
12,000 characters of blocks are refused. A diff that does not fit inline in one section goes into
a snippet file instead, and is never split across messages (split code fences render broken).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bot.domain.alerts import quiet_broadcasts
from bot.domain.pr_state import escape
from bot.domain.proposal import Proposal
from tools.tanka.diff.groups import EnvGroup, group_envs, named
from tools.tanka.diff.resources import Change, EnvDiff

SECTION_LIMIT = 3000
BLOCKS_TEXT_LIMIT = 12_000  # all the blocks' text in one message
INLINE_DIFF_LIMIT = 2500  # a diff inline in one section, with room for the fence and a heading
TEXT_LIMIT = 3900  # fallback `text` and plain messages: short enough to read, far under 40,000
SUMMARY_ENV_LINES = 20
MAX_BLOCKS = 50
BUTTONS_ROOM = 40  # characters of blocks left for a proposal's buttons
INLINE_GROUPS = 10  # past this many groups of environments, the diffs go to a file

Block = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Snippet:
    filename: str
    title: str
    content: str


@dataclass(frozen=True, slots=True)
class Rendered:
    """A message: fallback text, blocks, and snippet files to upload before it."""

    text: str
    blocks: list[Block]
    snippets: tuple[Snippet, ...] = ()


def clip(text: str, limit: int, note: str = "\n… (cut; the full text is in the snippet)") -> str:
    """`text` cut to `limit` characters at a line boundary when possible, with a note."""
    if len(text) <= limit:
        return text
    room = max(limit - len(note), 0)
    cut = text[:room]
    newline = cut.rfind("\n")
    if newline > room // 2:
        cut = cut[:newline]
    return cut + note[: max(limit - len(cut), 0)]


def section(text: str) -> Block:
    return {"type": "section", "text": {"type": "mrkdwn", "text": clip(text, SECTION_LIMIT)}}


def context(text: str) -> Block:
    return {"type": "context", "elements": [{"type": "mrkdwn", "text": clip(text, SECTION_LIMIT)}]}


def _fence(body: str) -> str:
    # A ``` inside the diff would close the fence early; a zero-width joiner keeps it visible.
    # Splitting every "``" (not only "```") leaves no run of three, even in "````".
    # Slack reads `<!channel>` and `<url|label>` inside a fence too: escaped, a file's text
    # pings nobody and hides nothing behind a label.
    return "```\n" + escape(body).replace("``", "`\u200d`").rstrip("\n") + "\n```"


BASE_FAILURE = "already failing at the base, not this change's doing"


def env_summary(env: EnvDiff) -> str:
    # An environment's name (a directory) and its render error (a Jsonnet `error '…'`) are the
    # repository's words: shown as written, never as Slack syntax.
    name = escape(env.env)
    if env.already_failing:
        return f"• `{name}`: {BASE_FAILURE}: {escape(clip(env.base_failure, 300, ' …'))}"
    if env.error is not None:
        return f"• `{name}`: cannot render: {escape(clip(env.error, 300, ' …'))}"
    counts = ", ".join(f"{env.count(c)} {c.value}" for c in Change)
    tail = f" (environment {env.env_change.value})" if env.env_change is not None else ""
    return f"• `{name}`: {counts}{tail}"


def group_summary(group: EnvGroup) -> str:
    """A summary line for a group of environments with the same diff."""
    if len(group.envs) == 1:
        return env_summary(group.first)
    first = group.first
    names = clip(named([f"`{escape(n)}`" for n in group.names], 5), 600, " …")
    if first.already_failing:
        failure = escape(clip(first.base_failure, 300, " …"))
        return f"• *{len(group.envs)} environments* ({names}): {BASE_FAILURE}: {failure}"
    if first.error is not None:
        error = escape(clip(first.error, 300, " …"))
        return f"• *{len(group.envs)} environments* ({names}): cannot render: {error}"
    counts = ", ".join(f"{first.count(c)} {c.value}" for c in Change)
    return f"• *{len(group.envs)} environments* ({names}): {counts} each"


def proposal(
    p: Proposal,
    *,
    number: int,
    envs: Sequence[EnvDiff],
    rendered: str,
    emoji: str,
    approvals: str = "",
) -> Rendered:
    """The proposal message. `number`: 1 for the thread's first proposal; `envs` and `rendered`
    come from its render (`rendered`: the full rendered diff text, the summary then each group's
    diff once, tools.tanka.diff.groups.grouped_text); `emoji`: the approve reaction's;
    `approvals`: who may approve and how many approvals it needs (bot.policy.rules)."""
    shown = [e for e in envs if e.has_changes or e.error is not None]
    # Environments that fail at the base too are listed last and counted apart: the change
    # did not break them, and nothing of theirs was compared.
    affected = [e for e in shown if not e.already_failing]
    failing = len(shown) - len(affected)
    groups = group_envs(affected)
    head = (
        f"*Proposal {number}*: {len(p.files)} file(s) changed, "
        f"{len(affected)} environment(s) affected"
    )
    if len(groups) < len(affected):
        resources = sum(len(e.resources) for e in affected)
        head += (
            f" ({resources} resource(s) changed), in {len(groups)} group(s) with the same "
            "rendered diff but for each environment's own values (name, namespace, spec.json)"
        )
    if failing:
        head += f"; {failing} environment{'s' if failing > 1 else ''} already failing at the "
        head += "base (not compared)"
    groups += group_envs([e for e in shown if e.already_failing])
    lines = [group_summary(g) for g in groups[:SUMMARY_ENV_LINES]]
    if len(groups) > SUMMARY_ENV_LINES:
        lines.append(f"• … and {len(groups) - SUMMARY_ENV_LINES} more group(s) "
                     "(see the rendered diff file)")  # fmt: skip
    if not affected:
        lines.append("• no Tanka environment renders differently")
    if p.note:
        lines.append(p.note)
    blocks = [section(head + "\n" + "\n".join(lines))]
    snippets: list[Snippet] = []
    for title, filename, body in (
        ("Git diff", "changes.diff", p.diff),
        ("Rendered-manifest diff", "rendered.diff", rendered if shown else ""),
    ):
        if not body.strip():
            continue
        inline = f"*{title}*\n{_fence(body)}"
        # Past INLINE_GROUPS groups the diffs go to a file however short they are.
        many = title.startswith("Rendered") and len(groups) > INLINE_GROUPS
        # Escaping backticks lengthens the text: a fence clipped by `section` would stay open.
        if not many and len(body) <= INLINE_DIFF_LIMIT and len(inline) <= SECTION_LIMIT:
            blocks.append(section(inline))
        else:
            snippets.append(Snippet(filename, f"{title} (proposal {number})", body))
            blocks.append(
                section(f"*{title}*: {len(body.splitlines())} lines, in `{filename}` above")
            )
    if p.checks:
        head_line, _, rest = p.checks.partition("\n")
        blocks.append(
            section(f"*Checks* {head_line}" + (f"\n{_fence(rest)}" if rest.strip() else ""))
        )
    if p.review:
        blocks.append(review_section(p.review))
    approve = f"React with :{emoji}: to open a pull request"
    if approvals:  # teams: the approval rules' needs, just above the approve line
        approve = f"{approvals}\n{approve}"
    blocks.append(section(approve))
    text = clip(f"{head}\n" + "\n".join(lines) + f"\n{approve}", TEXT_LIMIT, "\n…")
    # Room is left for the buttons (bot.slack.interactive) that end the message: a block, and
    # their labels' characters.
    return fit(Rendered(text, blocks, tuple(snippets)), max_blocks=MAX_BLOCKS - 1,
               max_chars=BLOCKS_TEXT_LIMIT - BUTTONS_ROOM)  # fmt: skip


def block_chars(value: Any) -> int:
    """Characters of text in blocks, as Slack counts them against its ~12,000 per message."""
    if isinstance(value, dict):
        return sum(len(v) if k == "text" and isinstance(v, str) else block_chars(v)
                   for k, v in value.items())  # fmt: skip
    if isinstance(value, list):
        return sum(block_chars(v) for v in value)
    return 0


def fit(
    message: Rendered, *, max_blocks: int = MAX_BLOCKS, max_chars: int = BLOCKS_TEXT_LIMIT
) -> Rendered:
    """The message within Slack's limits: at most MAX_BLOCKS blocks and BLOCKS_TEXT_LIMIT
    characters of blocks (the first and last blocks are kept whole: the summary and the line
    people act on), `text` at most TEXT_LIMIT. Messages already within them are unchanged."""
    blocks = list(message.blocks)
    if len(blocks) > max_blocks:
        dropped = len(blocks) - max_blocks + 1
        blocks = [*blocks[: max_blocks - 2], section(f"… {dropped} more part(s) left out"),
                  blocks[-1]]  # fmt: skip
    while block_chars(blocks) > max_chars and len(blocks) > 2:
        # Shorten the longest block in the middle; drop it when that is not enough.
        middle = max(range(1, len(blocks) - 1), key=lambda i: block_chars(blocks[i]))
        excess = block_chars(blocks) - max_chars
        size = block_chars(blocks[middle])
        if size - excess >= 200 and blocks[middle].get("type") == "section":
            text = blocks[middle]["text"]["text"]
            blocks[middle] = section(clip(text, len(text) - excess - 40, "\n… (cut)"))
        else:
            del blocks[middle]
    if block_chars(blocks) > max_chars:
        blocks = [section(clip(message.text, SECTION_LIMIT, "\n…"))]
    return Rendered(clip(message.text, TEXT_LIMIT, "\n…"), blocks, message.snippets)


REVIEW_LIMIT = 1500  # the review's share of the proposal's ~12,000 characters of blocks


def review_section(review: str) -> Block:
    # The reviewer read the diff (the repository's words): its findings broadcast to nobody.
    headline, _, findings = quiet_broadcasts(review).partition("\n")
    body = clip(findings.strip(), REVIEW_LIMIT, "\n… (review cut)")
    return section(f"*Review*: {headline}" + (f"\n{body}" if body else ""))


def plain(text: str) -> Rendered:
    """A message of text: one section when it fits, else several (never over the block limit)."""
    text = text.strip() or "(no answer)"
    if len(text) <= SECTION_LIMIT:
        return Rendered(text, [section(text)])
    parts: list[str] = []
    rest = text
    # Every section is at most SECTION_LIMIT: this many keep the blocks' text under Slack's
    # ~12,000 characters per message (more is refused with msg_blocks_too_long).
    while rest and len(parts) < BLOCKS_TEXT_LIMIT // SECTION_LIMIT:
        piece = clip(rest, SECTION_LIMIT, "")
        parts.append(piece)
        rest = rest[len(piece) :].lstrip("\n")
    if rest:
        parts[-1] = clip(parts[-1], SECTION_LIMIT - 40, "") + "\n… (answer cut)"
    return Rendered(clip(text, TEXT_LIMIT, "\n…"), [section(p) for p in parts])


def usage_line(
    *, input_tokens: int, output_tokens: int, tool_calls: int, seconds: float,
    cost: str = "",
) -> str:  # fmt: skip
    return (
        f"{_tokens(input_tokens)} tokens in · {_tokens(output_tokens)} out · "
        + (f"{cost} · " if cost else "")
        + f"{tool_calls} tool call(s) · {seconds:.0f} s"
    )


def _tokens(n: int) -> str:
    return f"{n / 1000:.1f}k" if n >= 1000 else str(n)


def progress(step: int, action: str, context_share: float | None) -> str:
    share = f" · context {context_share:.0%}" if context_share is not None else ""
    # The action names the model's argument (a path it chose): shown as written.
    return f":hourglass_flowing_sand: step {step}: {escape(clip(action, 200, '…'))}{share}"
