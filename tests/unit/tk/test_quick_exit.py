"""The `tanka-bot` program's exit: `tk` commands skip the interpreter's teardown (bot.cli.console)
yet keep everything a caller sees: the whole output, the exit code, stderr and the exit hooks."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.git import committed_copy

FIXTURE = Path(__file__).parents[2] / "fixtures" / "tanka_diff" / "repo"
EXPECTED = Path(__file__).parents[2] / "fixtures" / "tanka_diff" / "expected"
TANKA_BOT = Path(sys.executable).parent / "tanka-bot"
# The program with two witnesses: an exit hook (must run) and an object finalised only by the
# interpreter's teardown (runs on the ordinary exit alone), each printing to stderr.
WITNESSED = """
import atexit, sys
atexit.register(lambda: print("exit hook ran", file=sys.stderr))
class Witness:
    def __del__(self):
        print("teardown ran", file=sys.stderr)
witness = Witness()
from bot.cli import console
console()
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return committed_copy(FIXTURE, tmp_path / "repo")


def witnessed(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-c", WITNESSED, *args]
    return subprocess.run(argv, cwd=repo, capture_output=True, text=True, check=False)


def test_tk_show_output_is_whole_when_redirected_to_a_file(repo: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.yaml"
    with out.open("w") as handle:
        done = subprocess.run(
            [str(TANKA_BOT), "tk", "show", "environments/prod"],
            cwd=repo,
            stdout=handle,
            stderr=subprocess.PIPE,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    assert out.read_text() == (EXPECTED / "environments_prod.yaml").read_text()


def test_tk_command_skips_teardown_but_runs_exit_hooks(repo: Path) -> None:
    done = witnessed(repo, "tk", "show", "environments/prod")
    assert done.returncode == 0
    assert done.stdout == (EXPECTED / "environments_prod.yaml").read_text()
    assert done.stderr == "exit hook ran\n"


def test_tk_failure_keeps_its_code_and_message(repo: Path) -> None:
    done = witnessed(repo, "tk", "show", "no/such/env")
    assert done.returncode == 1
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert lines[0].startswith("tanka-bot: error: no/such/env: no such directory")
    assert lines[1:] == ["exit hook ran"]


def test_tk_diff_exit_code_survives(repo: Path) -> None:
    main_file = repo / "environments/prod/main.jsonnet"
    main_file.write_text(main_file.read_text().replace("'web', 3", "'web', 5"))
    done = witnessed(repo, "tk", "diff", "--base", "HEAD")
    assert done.returncode == 16, done.stderr  # tk's "changes found"
    assert "-  replicas: 3\n+  replicas: 5\n" in done.stdout
    assert done.stderr.endswith("exit hook ran\n")


def test_other_commands_take_the_ordinary_exit(repo: Path) -> None:
    done = witnessed(repo, "--version")
    assert done.returncode == 0
    assert done.stdout.startswith("tanka-bot ")
    assert "exit hook ran" in done.stderr
    assert "teardown ran" in done.stderr


def test_tk_commands_collect_garbage_less_often(repo: Path) -> None:
    # The collector's first threshold, as the command ran (read by an exit hook).
    program = (
        "import atexit, gc, sys\n"
        "atexit.register(lambda: print('threshold', gc.get_threshold()[0], file=sys.stderr))\n"
        "from bot.cli import console\n"
        "console()\n"
    )

    def threshold(*args: str) -> str:
        argv = [sys.executable, "-c", program, *args]
        done = subprocess.run(argv, cwd=repo, capture_output=True, text=True, check=False)
        return done.stderr.splitlines()[-1]

    assert threshold("tk", "show", "environments/prod") == "threshold 20000"
    assert threshold("--version") == "threshold 700"
