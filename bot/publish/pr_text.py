"""The words of a published change: the bot's branch name and the pull request description.

The request and what the model wrote about it are untrusted text, quoted so that GitHub does
not act on it (`quiet`): a closing keyword before an issue reference ("Closes #1") would close
that issue when the pull request or its squashed commit merges, and an @mention of a user or a
team would notify them. A word joiner (U+2060, invisible) inside the keyword or after the `@`
keeps both readable and inert, in titles, bodies and commit messages alike.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

BRANCH_PREFIX = "tanka-bot/"
SLUG_MAX = 40
KEY_MAX = 64
MAX_FILES_LISTED = 50
BODY_LIMIT = 65_536  # GitHub refuses a longer pull request body
REQUEST_SHOWN = 4000
REVIEW_SHOWN = 6000  # the reviewer's findings; the diffs themselves are in the PR
NOTHING_APPLIED = (
    "Nothing was applied to any cluster: this change takes effect only when it is merged and "
    "deployed the usual way."
)


WORD_JOINER = "\u2060"
# GitHub's closing keywords, then an optional colon and an issue reference: #N, GH-N,
# owner/repo#N or an issue URL. Linear: each lookahead stops at the first character it rejects.
_REFERENCE = r"\s*(?::\s*)?(?:#\d|gh-\d|[\w.-]+/[\w.-]+#\d|https?://)"
_CLOSING = re.compile(rf"\b(?=(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?){_REFERENCE})(\w)", re.I)
# An @ that GitHub would read as a user or team mention (after a letter or digit it is an email).
_MENTION = re.compile(r"(?<![A-Za-z0-9])@(?=[A-Za-z0-9])")


def quiet(text: str) -> str:
    """`text` with closing keywords and @mentions made inert for GitHub (see the module doc)."""
    text = _CLOSING.sub(lambda m: m.group(1) + WORD_JOINER, text)
    return _MENTION.sub("@" + WORD_JOINER, text)


def slugify(text: str, limit: int = SLUG_MAX) -> str:
    """Lowercase ASCII words joined by '-', at most `limit` characters, cut between words."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    words = re.findall(r"[a-z0-9]+", ascii_text.lower())
    slug = ""
    for word in words:
        candidate = f"{slug}-{word}" if slug else word
        if len(candidate) > limit:
            break
        slug = candidate
    if not slug and words:  # a single very long first word: cut it
        slug = words[0][:limit]
    return slug or "change"


def _safe_key(key: str) -> str:
    # git check-ref-format: no control chars, spaces, ~^:?*[\, no "..", "@{", no leading '.'.
    cleaned = re.sub(r"[^A-Za-z0-9._-]+", "-", key)
    cleaned = re.sub(r"\.{2,}", ".", cleaned).strip(".-")[:KEY_MAX].strip(".-")
    return cleaned or "session"


def branch_name(key: str, request_text: str) -> str:
    """`tanka-bot/<key>-<slug>`: the session key (e.g. a Slack thread_ts) and the request's words.

    Always a valid git branch name, whatever the inputs.
    """
    return f"{BRANCH_PREFIX}{_safe_key(key)}-{slugify(request_text)}"


def pr_title(request_text: str, limit: int = 72) -> str:
    """A one-line title from the request: its first line, shortened at a word, `quiet`."""
    first = " ".join(request_text.strip().splitlines()[0].split()) if request_text.strip() else ""
    if not first:
        return "tanka-bot change"
    if len(first) <= limit:
        return quiet(first)
    return quiet(first[: limit - 1].rsplit(" ", 1)[0].rstrip(" ,.;:") + "…")


def _code(text: str) -> str:
    return "`" + text.replace("`", "'") + "`"


def _bullets(items: Sequence[str]) -> list[str]:
    lines = [f"- {_code(item)}" for item in items[:MAX_FILES_LISTED]]
    if len(items) > MAX_FILES_LISTED:
        lines.append(f"- … and {len(items) - MAX_FILES_LISTED} more")
    return lines


def pr_body(
    *,
    summary: str,
    files: Sequence[str],
    requester: str,
    approver: str,
    environments: Sequence[str] = (),
    thread_url: str | None = None,
    request: str = "",
    review: str = "",
    guards: Sequence[str] = (),
) -> str:
    """The pull request description (GitHub Markdown), under BODY_LIMIT characters: a long
    request, review or summary is cut, with a pointer to the Slack thread. Those three are
    untrusted text: `quiet`."""
    request, review, summary = quiet(request), quiet(review), quiet(summary)
    where = f"the Slack thread: {thread_url}" if thread_url else "the Slack thread"
    note = f"… (cut to fit GitHub's limit; the whole text is in {where})"
    head: list[str] = []
    if request.strip():
        quoted = "\n".join(f"> {line}" for line in request.strip().splitlines())
        head += ["**Request**", "", _cut(quoted, REQUEST_SHOWN, note), ""]
    if review.strip():  # what the reviewer sub-agent found, as the proposal showed it
        head += ["**Review**", "", _cut(review.strip(), REVIEW_SHOWN, note), ""]
    lines: list[str] = []
    lines += [f"**Files changed ({len(files)})**", "", *_bullets(files), ""]
    if environments:
        lines += [f"**Environments affected ({len(environments)})**", "", *_bullets(environments)]
        lines.append("")
    if guards:  # freezes overridden and policies waived (bot.guards): on the record
        lines += ["**Guardrails**", "", *(quiet(g) for g in guards), ""]
    lines.append(f"Requested by {requester} · approved by {approver}")
    if thread_url:
        lines.append(f"Slack thread: {thread_url}")
    lines += ["", "---", f"Opened by tanka-bot. {NOTHING_APPLIED}"]
    if summary.strip():
        fixed = len("\n".join(head + lines)) + 200  # headings, newlines, and a margin
        head += ["**Summary**", "", _cut(summary.strip(), BODY_LIMIT - fixed, note), ""]
    return "\n".join(head + lines) + "\n"


def _cut(text: str, limit: int, note: str) -> str:
    """`text` within `limit` characters, cut at a line end, with `note` after it."""
    if len(text) <= limit:
        return text
    kept = text[: max(limit - len(note) - 1, 0)]
    if "\n" in kept:
        kept = kept[: kept.rfind("\n")]
    return f"{kept}\n{note}"
