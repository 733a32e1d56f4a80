"""`tanka-bot tk` as a daily tool (issue 9): what start-up loads, diff exit codes and output,
messages that name our own commands, --version."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from bot import cli
from bot.cli import main
from tests.git import git
from tools.tanka.base_tree import BaseTrees
from tools.tanka.diff import revision
from tools.tanka.diff.render_cache import RenderOptions
from tools.tanka.diff.revision import RevisionDiffer, render_in_repository

FIXTURE = Path(__file__).parents[2] / "fixtures" / "tanka_diff" / "repo"
TANKA_BOT = Path(sys.executable).parent / "tanka-bot"
BROKEN = "{ broken: }\n"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(FIXTURE, root)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "base")
    monkeypatch.chdir(root)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # base trees and their sidecars
    monkeypatch.delenv("TANKA_BOT_CONFIG", raising=False)
    monkeypatch.delenv("TANKA_BOT_BASE_BRANCH", raising=False)
    monkeypatch.delenv("TANKA_BOT_WORKDIR", raising=False)
    return root


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["tk", *args])
    out, err = capsys.readouterr()
    return code, out, err


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def break_at_base(repo: Path, env: str) -> None:
    (repo / env / "main.jsonnet").write_text(BROKEN)
    git(repo, "commit", "-qam", f"break {env}")


# --- start-up -------------------------------------------------------------------------------


LOADED = """
import json, sys
from bot import cli
from bot.cli import main
code = main(sys.argv[1:])
import tools.tanka.evaluation.pool as pool
print(json.dumps({"code": code, "modules": sorted(sys.modules), "pool": pool._DEFAULT is not None}))
"""


def loaded_by(repo: Path, *args: str) -> dict[str, object]:
    proc = subprocess.run(
        [sys.executable, "-c", LOADED, *args], cwd=repo, capture_output=True, text=True, check=True
    )
    result: dict[str, object] = json.loads(proc.stdout.splitlines()[-1])
    return result


@pytest.mark.parametrize(
    "args", [("tk", "env", "list"), ("tk", "show", "environments/prod"), ("tk", "fmt", "lib")]
)
def test_tk_commands_load_no_settings_agent_or_worker(repo: Path, args: tuple[str, ...]) -> None:
    loaded = loaded_by(repo, *args)
    assert loaded["code"] == 0
    modules = loaded["modules"]
    assert isinstance(modules, list)
    for heavy in ("pydantic_settings", "bot.config", "bot.chat.command", "tools.catalog"):
        assert heavy not in modules, heavy
    assert loaded["pool"] is False  # evaluated in-process: no worker was started


def test_tk_show_loads_no_other_command_nor_pyyaml(repo: Path) -> None:
    """Start-up: the command named is the only one whose modules load (the audit log's Redis
    client, chat's and eval's arguments stay out), and an evaluation that calls no YAML native
    does not load PyYAML or the socket and sandbox modules of the worker processes."""
    loaded = loaded_by(repo, "tk", "show", "environments/prod")
    assert loaded["code"] == 0
    modules = loaded["modules"]
    assert isinstance(modules, list)
    for other in (
        "bot.audit_command", "redis", "bot.chat.arguments", "bot.eval.arguments",
        "yaml", "tools.sandbox", "multiprocessing.connection", "socket",
    ):  # fmt: skip
        assert other not in modules, other


def test_tk_diff_loads_no_settings_without_a_settings_file(repo: Path) -> None:
    """TANKA_BOT_BASE_BRANCH is read from the environment: building the settings (pydantic)
    would cost a run more than a small environment's diff."""
    loaded = loaded_by(repo, "tk", "diff", "--base", "HEAD")
    assert loaded["code"] == 0
    modules = loaded["modules"]
    assert isinstance(modules, list)
    for heavy in ("pydantic_settings", "bot.config"):
        assert heavy not in modules, heavy


@pytest.mark.parametrize(
    "argv", [["--help"], ["-v", "--help"], ["audit", "--help"], ["tk", "--help"], ["nope"]]
)
def test_help_and_errors_read_as_before(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """The top-level help lists every command; a command's own help and an unknown command's
    error are what the whole parser gives."""
    with pytest.raises(SystemExit):
        main(argv)
    out, err = capsys.readouterr()
    with pytest.raises(SystemExit):
        cli._parser(None, None).parse_args(argv)  # every command's parser
    full_out, full_err = capsys.readouterr()
    assert (out, err) == (full_out, full_err)
    if argv[-1] == "--help" and len(argv) < 3 and argv[0] in ("--help", "-v"):
        for command in ("serve", "chat", "tk", "eval", "audit"):
            assert f"    {command} " in out


def test_version_prints_the_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("tanka-bot ")
    assert out.strip() != "tanka-bot"


# --- diff: exit codes, labels, totals --------------------------------------------------------


def test_diff_labels_its_sides_and_ends_with_a_total(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = git(repo, "rev-parse", "HEAD").strip()
    edit(repo / "lib/app.libsonnet", "nginx:1.25", "nginx:1.27")
    code, out, err = run(capsys, "diff", "--base", "HEAD")
    assert code == 16
    assert err == ""
    assert f"--- apps-v1.Deployment.prod.web\tbase {base[:12]}\n" in out
    assert "+++ apps-v1.Deployment.prod.web\tworking tree\n" in out
    assert "LIVE-" not in out
    assert "MERGED-" not in out
    assert out.endswith("\n1 environment compared; resources: 0 added, 2 changed, 0 removed\n")


def test_an_environment_failing_on_both_sides_is_reported_once_and_is_no_error(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    break_at_base(repo, "environments/dev")
    base = git(repo, "rev-parse", "HEAD").strip()
    edit(repo / "environments/dev/main.jsonnet", "broken", "still_broken")
    edit(repo / "environments/prod/main.jsonnet", "'web', 3", "'web', 5")
    code, out, err = run(capsys, "diff", "--base", "HEAD")
    assert code == 16
    assert err.count("already failing") == 1
    assert err.startswith(f"tanka-bot: environments/dev: already failing at {base[:12]}")
    assert err.count("\n") == 1  # the first line of the error, no Jsonnet trace
    assert "environments/dev" not in out
    assert out.startswith("environments/prod: 0 added, 1 changed, 0 removed\n")
    assert out.endswith("2 environments compared; resources: 0 added, 1 changed, 0 removed\n")


def test_already_failing_alone_is_no_difference(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    break_at_base(repo, "environments/dev")
    edit(repo / "environments/dev/main.jsonnet", "broken", "still_broken")
    code, out, err = run(capsys, "diff", "--base", "HEAD")
    assert (code, out) == (0, "")
    assert err.splitlines()[-1] == "No differences."
    assert "already failing" in err


def test_an_environment_the_change_breaks_is_an_error_printed_once(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "environments/dev/main.jsonnet").write_text(BROKEN)
    edit(repo / "environments/prod/main.jsonnet", "'web', 3", "'web', 5")
    code, out, err = run(capsys, "diff", "--base", "HEAD")
    assert code == 1
    assert err.startswith("tanka-bot: error: environments/dev: working tree: ")
    assert err.count("tanka-bot: error:") == 1
    assert "environments/dev" not in out  # stdout holds the diff of the others only
    assert out.startswith("environments/prod: 0 added, 1 changed, 0 removed\n")


def test_an_environment_the_change_fixes_is_a_change(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = (repo / "environments/dev/main.jsonnet").read_text()
    break_at_base(repo, "environments/dev")
    (repo / "environments/dev/main.jsonnet").write_text(good)
    code, _, err = run(capsys, "diff", "--base", "HEAD")
    assert code == 16
    assert "tanka-bot: environments/dev: renders now; it failed at " in err
    assert "error" not in err.split(":")[1]


def test_a_second_diff_reuses_the_stored_base(
    repo: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    edit(repo / "lib/app.libsonnet", "nginx:1.25", "nginx:1.27")
    first = run(capsys, "diff", "--base", "HEAD")
    base = git(repo, "rev-parse", "HEAD").strip()
    trees = next(tmp_path.glob("tanka-bot-base-trees-*"))
    stored = sorted(p.name.removeprefix(base) for p in trees.glob(f"{base}.*"))
    assert ".imports.json" in stored
    assert any(name.startswith(".render-") for name in stored)
    assert run(capsys, "diff", "--base", "HEAD") == first


def test_diff_uses_the_base_the_bots_maintenance_prepared_in_its_workdir(
    repo: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    edit(repo / "lib/app.libsonnet", "nginx:1.25", "nginx:1.27")
    private = run(capsys, "diff", "--base", "HEAD")
    bare = tmp_path / "cache.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(bare))
    workdir = tmp_path / "bot-workdir"
    prepared = RevisionDiffer(trees=BaseTrees(workdir / "base-trees"), persist=True)
    prepared.prepare_base(bare, git(repo, "rev-parse", "HEAD").strip())
    rendered: list[Path] = []

    def counted(entrypoint: Path, repository: Path, options: RenderOptions) -> object:
        rendered.append(repository)
        return render_in_repository(entrypoint, repository, options)

    monkeypatch.setattr(revision, "render_in_repository", counted)
    monkeypatch.setenv("TANKA_BOT_WORKDIR", str(workdir))
    assert run(capsys, "diff", "--base", "HEAD") == private
    assert rendered == [repo]  # the working tree only: the base side was prepared


def test_a_checkout_with_an_ignored_vendor_keeps_out_of_the_bots_cache(
    repo: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its base trees hold a copy of its vendor/ under the commit's name: in the bot's workdir
    the bot would take that copy for the commit's files, so the diff keeps to its own cache."""
    (repo / ".gitignore").write_text("vendor/\n")
    (repo / "vendor").mkdir()
    (repo / "vendor" / "extra.libsonnet").write_text("{}\n")
    git(repo, "add", ".gitignore")
    git(repo, "commit", "-qm", "vendor/ is installed, not committed")
    workdir = tmp_path / "bot-workdir"
    monkeypatch.setenv("TANKA_BOT_WORKDIR", str(workdir))
    edit(repo / "lib/app.libsonnet", "nginx:1.25", "nginx:1.27")
    code, _, _ = run(capsys, "diff", "--base", "HEAD")
    assert code == 16
    assert not (workdir / "base-trees").exists()
    (repo / "vendor" / "extra.libsonnet").unlink()
    (repo / "vendor").rmdir()
    assert run(capsys, "diff", "--base", "HEAD")[0] == 16
    assert (workdir / "base-trees").is_dir()  # the commit's files alone: shared with the bot


# --- messages that name our commands ---------------------------------------------------------


def test_no_matching_environment_names_our_env_list(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "show", "environments/multi", "--name", "purple")
    assert code == 1
    assert "run `tanka-bot tk env list environments/multi`" in err
    assert "'tk env list" not in err


def test_export_of_a_missing_path_names_the_path(
    repo: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = run(capsys, "export", str(tmp_path / "out"), "no/such/env")
    assert code == 1
    assert err.startswith("tanka-bot: error: ")
    assert "no/such/env: no such file or directory" in err
    assert "project root" not in err


def test_export_into_a_non_empty_dir_names_the_flag_that_allows_it(
    repo: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("x")
    code, _, err = run(capsys, "export", str(out), "environments/dev")
    assert code == 1
    # tk's words, and our export has the flag they point to (--merge-strategy replace-envs).
    assert "not empty. Pass a different --merge-strategy to ignore this" in err


def test_diff_outside_git_names_our_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "diff", "--base", "HEAD")
    assert code == 1
    assert "run `tanka-bot tk diff` from a checkout" in err


def test_console_script_version() -> None:
    proc = subprocess.run(
        [str(TANKA_BOT), "--version"], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0
    assert proc.stdout.startswith("tanka-bot ")
