from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from tools.context import PullRequestInfo, ToolContext
from tools.github import NOT_CONFIGURED, TITLE_CHARS, TOOLS
from tools.registry import ToolRegistry


class Source:
    def __init__(self, pulls: Sequence[PullRequestInfo] = (), error: Exception | None = None):
        self.pulls = pulls
        self.error = error
        self.calls = 0

    def open_pull_requests(self) -> Sequence[PullRequestInfo]:
        self.calls += 1
        if self.error is not None:
            raise self.error
        return self.pulls


def run(
    tmp_path: Path, source: Source | None, arguments: dict[str, object] | None = None
) -> tuple[str, bool]:
    ctx = ToolContext(root=tmp_path, pull_requests=source)
    outcome = ToolRegistry(TOOLS).execute(ctx, "github_pr_list", arguments or {})
    return outcome.content, outcome.is_error


def pr(number: int, **fields: object) -> PullRequestInfo:
    values: dict[str, object] = {
        "title": f"Change {number}",
        "head": f"feature-{number}",
        "base": "main",
        "author": "ana",
        "url": f"https://github.com/acme/infra/pull/{number}",
    }
    values.update(fields)
    return PullRequestInfo(number=number, **values)  # type: ignore[arg-type]


def test_spec_takes_no_parameters() -> None:
    [spec] = ToolRegistry(TOOLS).specs()
    assert spec.name == "github_pr_list"
    assert spec.input_schema["properties"] == {}
    assert "Read-only" in spec.description


def test_lists_pull_requests_one_per_line(tmp_path: Path) -> None:
    source = Source([
        pr(12, title="Bump redis", draft=True, updated_at="2030-01-02T03:04:05+00:00"),
        pr(7, head="tanka-bot/1.2-grafana", author=""),
    ])  # fmt: skip
    content, is_error = run(tmp_path, source)

    assert not is_error
    assert content.splitlines() == [
        "2 open pull request(s), most recently updated first:",
        "#12 Bump redis (feature-12 -> main, by ana, draft, updated 2030-01-02T03:04:05+00:00) "
        "https://github.com/acme/infra/pull/12",
        "#7 Change 7 (tanka-bot/1.2-grafana -> main) https://github.com/acme/infra/pull/7",
    ]


def test_no_open_pull_requests(tmp_path: Path) -> None:
    assert run(tmp_path, Source([])) == ("No open pull requests.", False)


def test_long_or_multiline_titles_stay_on_one_short_line(tmp_path: Path) -> None:
    content, _ = run(tmp_path, Source([pr(1, title="x" * 500 + "\nsecond line")]))
    line = content.splitlines()[1]
    assert "\u2026" in line
    assert line.count("x") == TITLE_CHARS - 1


def test_not_configured_says_how_to_configure(tmp_path: Path) -> None:
    content, is_error = run(tmp_path, None)
    assert (content, is_error) == (NOT_CONFIGURED, False)
    assert "GITHUB_TOKEN" in content
    assert "TANKA_BOT_GITHUB_REPO" in content


def test_source_failure_is_a_clean_tool_error(tmp_path: Path) -> None:
    source = Source(error=RuntimeError("list the open pull requests: GitHub is failing (502)"))
    content, is_error = run(tmp_path, source)
    assert is_error
    assert content == (
        "github_pr_list failed: could not list open pull requests: "
        "list the open pull requests: GitHub is failing (502)"
    )


def test_unknown_arguments_are_refused(tmp_path: Path) -> None:
    source = Source([pr(1)])
    content, is_error = run(tmp_path, source, {"state": "closed"})
    assert is_error
    assert "state" in content
    assert source.calls == 0
