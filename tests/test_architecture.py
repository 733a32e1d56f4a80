"""The import rules that `lint-imports` cannot check, and proof that its contracts bite.

The layering and the forbidden imports of bot/, tools/ and fakes/ are import-linter contracts in
pyproject.toml ([tool.importlinter], run by `make test`). bench/ is a folder of scripts, not a
package, so import-linter cannot see it; its rules are checked here on the source with `ast`:

- bench/ never imports tests/ (the tests may change under the benchmarks).
- Each SDK is imported only by its adapter (bench/mcp_call.py compares the bare MCP SDK).

Imports inside functions count too: a lazy import is still a dependency.
"""

from __future__ import annotations

import ast
import functools
import os
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]

# SDK module -> where it may be imported (a package directory or a module file).
SDK_ADAPTERS = {
    "slack_bolt": ("bot/inbound/slack_listeners.py", "bot/app.py"),
    "slack_sdk": ("bot/slack/", "bot/inbound/slack_signature.py", "bot/app.py"),
    "github": ("bot/github/",),
    "anthropic": ("bot/agent/providers/",),
    "google.genai": ("bot/agent/providers/",),
    "openai": ("bot/agent/providers/",),
    "redis": ("bot/store/",),
    "mcp": ("bot/mcp/", "bench/mcp_call.py"),  # bench compares the bare SDK with the tool layer
}


@dataclass(frozen=True, slots=True)
class Rule:
    sources: str  # a directory (ending in /) or a file, relative to the repository root
    forbidden: tuple[str, ...]  # module names; their submodules are forbidden too
    why: str


RULES = (Rule("bench/", ("tests",), "benchmarks stand alone; tests may change under them"),)


def _is_within(module: str, names: tuple[str, ...]) -> bool:
    return any(module == name or module.startswith(name + ".") for name in names)


def _files(root: Path, where: str) -> list[Path]:
    target = root / where
    if where.endswith("/"):
        return sorted(target.rglob("*.py")) if target.is_dir() else []
    return [target] if target.is_file() else []


def violations(root: Path) -> list[str]:
    """`file:line: imports module (why)` for each broken rule in the tree at `root`."""
    found: list[str] = []
    for rule in RULES:
        for path in _files(root, rule.sources):
            found += _check(root, path, rule.forbidden, rule.why)
    for sdk, adapters in SDK_ADAPTERS.items():
        for path in _files(root, "bench/"):
            rel = path.relative_to(root).as_posix()
            if not any(rel == a or rel.startswith(a) for a in adapters):
                found += _check(root, path, (sdk,), f"only {', '.join(adapters)} may")
    return sorted(found)


def _check(root: Path, path: Path, forbidden: tuple[str, ...], why: str) -> list[str]:
    rel = path.relative_to(root)
    found = []
    for line, candidates in _imports(rel.with_suffix("").parts[:-1], path):
        hit = next((c for c in candidates if _is_within(c, forbidden)), None)
        if hit is not None:
            found.append(f"{rel.as_posix()}:{line}: imports {hit} ({why})")
    return found


@functools.cache
def _imports(package: tuple[str, ...], path: Path) -> list[tuple[int, list[str]]]:
    """Per import statement: the modules it may name (`from a import b` may import a.b)."""
    found: list[tuple[int, list[str]]] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, [alias.name]) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else ()
            module = ".".join([*base, *([node.module] if node.module else [])])
            found.append((node.lineno, [module, *(f"{module}.{a.name}" for a in node.names)]))
    return found


def test_the_repository_keeps_its_import_rules() -> None:
    assert violations(REPO) == []


def test_the_checker_finds_each_kind_of_violation(tmp_path: Path) -> None:
    files = {
        "bench/publish.py": "import fakes.github_server\nfrom tests.tree import digest\n",
        "bench/chat.py": "def f():\n    import anthropic\n    from github import Github\n",
        "bench/mcp_call.py": "import mcp\n",
        "bot/chat/command.py": "import anthropic\n",  # bot/ is lint-imports' to check
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)

    assert violations(tmp_path) == [
        "bench/chat.py:2: imports anthropic (only bot/agent/providers/ may)",
        "bench/chat.py:3: imports github (only bot/github/ may)",
        "bench/publish.py:2: imports tests.tree (benchmarks stand alone; tests may change under "
        "them)",
    ]


def _importlinter_ini(config: dict[str, Any], root_packages: list[str]) -> str:
    """pyproject's [tool.importlinter] as an .ini for `lint-imports --config`, limited to
    `root_packages` (the contracts about other packages are left out)."""

    def value(v: object) -> str:
        if isinstance(v, list):
            return "".join(f"\n    {item}" for item in v)
        return str(v)

    lines = ["[importlinter]", f"root_packages ={value(root_packages)}"]
    lines.append(f"include_external_packages = {config['include_external_packages']}")
    for n, contract in enumerate(config["contracts"]):
        sources = contract.get("source_modules", root_packages)
        if not all(s.split(".")[0] in root_packages for s in sources):
            continue
        lines.append(f"[importlinter:contract:{n}]")
        lines += [f"{key} = {value(v)}" for key, v in contract.items()]
    return "\n".join(lines) + "\n"


def _lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(root)}
    lint_imports = str(Path(sys.executable).with_name("lint-imports"))
    return subprocess.run(
        [lint_imports, str(root / "imports.ini"), "--no-cache"],
        cwd=root, env=env, capture_output=True, text=True, check=False, timeout=300,
    )  # fmt: skip


def test_the_import_contracts_fail_on_a_planted_violation(tmp_path: Path) -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]
    for package in ("bot", "tools"):
        shutil.copytree(
            REPO / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    (tmp_path / "imports.ini").write_text(_importlinter_ini(config, ["bot", "tools"]))
    clean = _lint_imports(tmp_path)
    assert clean.returncode == 0, clean.stdout + clean.stderr

    planted = {
        "bot/domain/thread.py": "from bot.runtime import runner\n",  # a layer importing up
        "tools/catalog.py": "import bot.config\n",  # tools/ importing bot/
        "bot/handlers/admin.py": "import redis\nimport bot.chat.changes\n",  # an SDK; a front end
        "bot/handlers/home.py": "import bot.config\n",  # the settings below the wiring
        "bot/tk/flags.py": "import bot.chat.ignores\n",  # a front end importing another
        "bot/stray.py": "",  # a module the layers do not place
    }
    for rel, line in planted.items():
        with (tmp_path / rel).open("a") as f:
            f.write(line)
    broken = _lint_imports(tmp_path)

    assert broken.returncode != 0
    assert "bot.domain.thread -> bot.runtime.runner" in broken.stdout
    assert "tools.catalog -> bot.config" in broken.stdout
    assert "bot.handlers.admin -> redis" in broken.stdout
    assert "bot.handlers.admin -> bot.chat.changes" in broken.stdout
    assert "bot.handlers.home -> bot.config" in broken.stdout
    assert "bot.tk.flags -> bot.chat.ignores" in broken.stdout
    assert "- bot.stray" in broken.stdout  # the layers are exhaustive
    assert "No cycles are allowed in bot." in broken.stdout  # domain -> runtime closes one
    # broken: layers, settings, Slack service, tk's front end, tools/, redis, cycles; the
    # fakes/ contract is left out
    assert "Contracts: 5 kept, 7 broken." in broken.stdout
