"""Checks on the conversation as a provider received it (the bodies the real SDKs sent)."""

from __future__ import annotations

from typing import Any

JSON = dict[str, Any]


def anthropic_pairing_problems(messages: list[JSON]) -> list[str]:
    """Every assistant tool_use must be answered, in order, at the head of the next user turn."""
    problems = []
    for i, message in enumerate(messages):
        if message["role"] != "assistant":
            continue
        uses = [b["id"] for b in message["content"] if b.get("type") == "tool_use"]
        if not uses:
            continue
        following = messages[i + 1]["content"] if i + 1 < len(messages) else []
        heads = [b.get("tool_use_id") for b in following[: len(uses)]]
        if heads != uses:
            problems.append(f"messages.{i + 1}: results {heads} do not answer calls {uses}")
    return problems


def gemini_pairing_problems(contents: list[JSON]) -> list[str]:
    """Every model turn's function calls answered by the next user turn, same names, same order."""
    problems = []
    for i, content in enumerate(contents):
        if content.get("role") != "model":
            continue
        calls = [p["functionCall"] for p in content["parts"] if "functionCall" in p]
        if not calls:
            continue
        following = contents[i + 1]["parts"] if i + 1 < len(contents) else []
        answers = [p["functionResponse"] for p in following if "functionResponse" in p]
        want = [(c.get("id"), c["name"]) for c in calls]
        got = [(r.get("id"), r.get("name")) for r in answers]
        if got != want:
            problems.append(f"contents.{i + 1}: responses {got} do not answer calls {want}")
    return problems
