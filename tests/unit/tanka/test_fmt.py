"""Formatting: go-jsonnet's formatter via the shared library, the jsonnetfmt fallback, `tk fmt`."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import _gojsonnet
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tools.tanka.source import formatter
from tools.tanka.source.fmt import (
    EXIT_WOULD_CHANGE,
    FormatError,
    FormatterUnavailable,
    format_paths,
    format_source,
)
from tools.tanka.source.formatter import cli_formatter

FIXTURES = Path(__file__).parents[2] / "fixtures" / "tanka_tools" / "fmt"
MESSY = (FIXTURES / "messy.jsonnet").read_text()
GOLDEN = (FIXTURES / "messy.fmt.golden").read_text()

# A stand-in `jsonnetfmt` binary: reads stdin, prints the formatted text, exits 1 with the
# error on stderr, naming the input `<stdin>` as the real CLI does.
FAKE_JSONNETFMT = f"""#!{sys.executable}
import sys
from tools.tanka.errors import FormatError
from tools.tanka.source.formatter import format_source
assert sys.argv[1:] == ["-"], sys.argv
try:
    sys.stdout.write(format_source(sys.stdin.read(), "<stdin>"))
except FormatError as exc:
    sys.stderr.write(str(exc) + "\\n")
    sys.exit(1)
"""


def test_default_style_matches_jsonnetfmt_rules() -> None:
    # Import sorting, `#` -> `//`, single quotes unless the text has one, unquoted field names,
    # x['y'] -> x.y, ((e)) -> (e), trailing commas, at most 2 blank lines, blocks untouched.
    assert format_source(MESSY, "messy.jsonnet") == GOLDEN


def test_formatting_is_idempotent_on_the_golden() -> None:
    assert format_source(GOLDEN, "messy.jsonnet") == GOLDEN


def test_a_parse_error_gives_file_line_and_column() -> None:
    with pytest.raises(FormatError) as info:
        format_source("{\n  a: 1\n  b: 2\n}\n", "env/main.jsonnet")
    assert str(info.value).startswith("env/main.jsonnet:3:3")
    assert "Expected a comma before next field" in str(info.value)


def test_nul_bytes_are_refused_before_reaching_c() -> None:
    with pytest.raises(FormatError, match="NUL byte"):
        format_source("{}\x00{}", "x.jsonnet")


json_values: st.SearchStrategy[Any] = st.recursive(
    st.none() | st.booleans() | st.integers(-1000, 1000) | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=60, deadline=None)
@given(value=json_values, indent=st.sampled_from([None, 0, 1, 4]))
def test_formatting_is_idempotent_and_preserves_meaning(value: Any, indent: int | None) -> None:
    source = json.dumps(value, indent=indent)
    once = format_source(source, "gen.jsonnet")
    assert format_source(once, "gen.jsonnet") == once
    assert once.endswith("\n")
    assert not once.endswith("\n\n")
    assert json.loads(_gojsonnet.evaluate_snippet("gen.jsonnet", once)) == value


def _fake_jsonnetfmt(tmp_path: Path) -> Path:
    binary = tmp_path / "bin" / "jsonnetfmt"
    binary.parent.mkdir()
    binary.write_text(FAKE_JSONNETFMT)
    binary.chmod(0o755)
    return binary


def test_cli_fallback_formats_and_reports_errors_with_the_real_file_name(tmp_path: Path) -> None:
    run = formatter.cli_formatter(str(_fake_jsonnetfmt(tmp_path)))
    assert format_source(MESSY, "messy.jsonnet", formatter=run) == GOLDEN
    with pytest.raises(FormatError, match=r"^lib/x\.libsonnet:1:"):
        format_source("{,}", "lib/x.libsonnet", formatter=run)


def test_probe_falls_back_to_path_then_explains_both_options(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(formatter, "_shared_library", lambda: None)
    monkeypatch.setenv("PATH", str(_fake_jsonnetfmt(tmp_path).parent))
    formatter.default_formatter.cache_clear()
    try:
        assert format_source(MESSY, "m.jsonnet") == GOLDEN
        monkeypatch.setenv("PATH", str(tmp_path / "empty"))
        formatter.default_formatter.cache_clear()
        with pytest.raises(FormatterUnavailable, match=r"gojsonnet.*jsonnetfmt"):
            format_source("{}", "m.jsonnet")
    finally:
        formatter.default_formatter.cache_clear()


# --- tk fmt -------------------------------------------------------------------------------


def _tree(root: Path) -> dict[str, Path]:
    files = {
        "environments/prod/main.jsonnet": MESSY,
        "lib/ok.libsonnet": "{ a: 1 }\n",
        "vendor/github.com/x/messy.libsonnet": MESSY,
        "environments/.hidden/messy.jsonnet": MESSY,
        "notes.txt": "{a:1}",
    }
    paths = {}
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        paths[name] = path
    return paths


def test_test_mode_lists_files_that_would_change_and_writes_nothing(tmp_path: Path) -> None:
    files = _tree(tmp_path)
    report = format_paths([tmp_path], test=True)
    assert report.changed == (files["environments/prod/main.jsonnet"],)
    assert set(report.checked) == {
        files["environments/prod/main.jsonnet"],
        files["lib/ok.libsonnet"],
    }
    assert report.exit_code == EXIT_WOULD_CHANGE
    assert report.summary() == (
        "The following files are not properly formatted:\n"
        f"{files['environments/prod/main.jsonnet']}"
    )
    assert files["environments/prod/main.jsonnet"].read_text() == MESSY


def test_format_in_place_rewrites_only_changed_files(tmp_path: Path) -> None:
    files = _tree(tmp_path)
    ok = files["lib/ok.libsonnet"]
    os.utime(ok, ns=(1_000_000_000, 1_000_000_000))
    report = format_paths([tmp_path])
    assert (report.exit_code, report.summary()) == (0, "Formatted 1 files")
    assert files["environments/prod/main.jsonnet"].read_text() == GOLDEN
    assert ok.stat().st_mtime_ns == 1_000_000_000
    assert files["vendor/github.com/x/messy.libsonnet"].read_text() == MESSY
    again = format_paths([tmp_path], test=True)
    assert (again.exit_code, again.changed) == (0, ())
    assert again.summary() == "All discovered files are already formatted. No changes were made"


def test_an_explicit_file_is_formatted_whatever_its_name(tmp_path: Path) -> None:
    files = _tree(tmp_path)
    report = format_paths([files["notes.txt"], files["vendor/github.com/x/messy.libsonnet"]])
    assert len(report.changed) == 2
    assert files["notes.txt"].read_text() == "{ a: 1 }\n"


def test_a_parse_error_anywhere_writes_nothing_and_names_every_bad_file(tmp_path: Path) -> None:
    files = _tree(tmp_path)
    (tmp_path / "lib" / "bad1.libsonnet").write_text("{ a: }")
    (tmp_path / "lib" / "bad2.libsonnet").write_text("local x = ;")
    with pytest.raises(FormatError) as info:
        format_paths([tmp_path])
    assert "bad1.libsonnet:1:" in str(info.value)
    assert "bad2.libsonnet:1:" in str(info.value)
    assert files["environments/prod/main.jsonnet"].read_text() == MESSY


def test_a_missing_path_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match="no such file or directory"):
        format_paths([tmp_path / "missing"])


def test_the_jsonnetfmt_binary_gets_a_scrubbed_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = tmp_path / "jsonnetfmt"
    fake.write_text("#!/bin/sh\nenv\n")
    fake.chmod(0o755)
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_must_not_leak")
    shown = cli_formatter(str(fake))("{}\n", "a.jsonnet")
    assert "ghp_must_not_leak" not in shown
    assert "PATH=" in shown
