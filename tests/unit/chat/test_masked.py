"""MaskedWriter: what the chat prints passes the mask, even when a value is written in pieces."""

from __future__ import annotations

import io

from bot.chat.masked import MaskedWriter
from tools.redaction import REDACTED, SecretMask

VALUE = "dummy-secret-Zz9"


def test_lines_are_masked_when_complete_and_the_rest_on_flush() -> None:
    out = io.StringIO()
    writer = MaskedWriter(out, SecretMask([VALUE]))
    writer.write("a dummy-se")
    assert out.getvalue() == ""
    writer.write("cret-Zz9 b\nprompt dummy-secret")
    assert out.getvalue() == f"a {REDACTED} b\n"
    writer.write("-Zz9")
    writer.flush()
    assert out.getvalue() == f"a {REDACTED} b\nprompt {REDACTED}"


def test_values_learned_after_the_writer_was_made_are_masked() -> None:
    mask = SecretMask()
    out = io.StringIO()
    writer = MaskedWriter(out, mask)
    mask.add(VALUE)
    print(f"answer: {VALUE}", file=writer)
    assert out.getvalue() == f"answer: {REDACTED}\n"
    assert writer.writable()
    assert not writer.isatty()
