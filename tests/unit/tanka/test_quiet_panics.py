"""rjsonnet's panic messages are kept off standard error (tools/tanka/evaluation/quiet_panics.py);
everything else written there while jrsonnet runs still gets out, in order."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tools.tanka.evaluation.quiet_panics import panics_unprinted
from tools.tanka.evaluation.worker import EvalRequest, evaluate

SHORT = (
    b"\nthread '<unnamed>' panicked at src/lib.rs:154:22:\n"
    b'called `Result::unwrap()` on an `Err` value: LocError((RuntimeError("boom"), ...))\n'
    b"note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n"
)
WITH_BACKTRACE = (
    b"\nthread '<unnamed>' panicked at src/lib.rs:143:54:\n"
    b"called `Result::unwrap()` on an `Err` value: LocError((StackOverflow, ...))\n"
    b"stack backtrace:\n   0: rust_begin_unwind\n   1: core::panicking::panic_fmt\n"
    b"note: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.\n"
)


@pytest.mark.parametrize("panic", [SHORT, WITH_BACKTRACE])
def test_a_panic_message_is_dropped_and_the_rest_kept_in_order(
    capfd: pytest.CaptureFixture[str], panic: bytes
) -> None:
    with panics_unprinted():
        os.write(2, b"TRACE: main.jsonnet:1 before\n")
        os.write(2, panic)
        os.write(2, b"TRACE: main.jsonnet:2 after\n")
    assert capfd.readouterr().err == "TRACE: main.jsonnet:1 before\nTRACE: main.jsonnet:2 after\n"


def test_an_unfinished_panic_message_is_kept(capfd: pytest.CaptureFixture[str]) -> None:
    # No `note:` line ends it (RUST_BACKTRACE=full): nothing is dropped rather than too much.
    with panics_unprinted():
        os.write(2, b"thread '<unnamed>' panicked at x:\nmessage\nTRACE: main.jsonnet:3 kept\n")
    assert "TRACE: main.jsonnet:3 kept" in capfd.readouterr().err


def test_a_value_jrsonnet_cannot_hand_to_a_native_prints_no_panic(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    # A guarded std call given an object with a failing field: rjsonnet panics converting it.
    source = "std.manifestJsonEx({ a: error 'boom' }, '  ')"
    main = str(tmp_path / "m.jsonnet")
    replies = [
        evaluate(EvalRequest(main, source, str(tmp_path), (), implementation=implementation))
        for implementation in ("go", "rust")
    ]
    assert replies[0].error == replies[1].error
    assert replies[1].fallback is not None
    assert "panicked" in replies[1].fallback or "unwrap" in replies[1].fallback
    assert "panicked" not in capfd.readouterr().err
