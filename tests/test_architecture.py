"""The layout's import rules (docs/design.md, "Layout"), checked on the source with `ast`.

- tools/ is a library for the agent: it never imports bot/.
- The agent core (bot/agent/) never imports the settings or a front end.
- Each SDK is imported only by its adapter.
- bench/ and fakes/ never import tests/.

Imports inside functions count too: a lazy import is still a dependency.
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

FRONT_ENDS = (
    "bot.chat",
    "bot.cli",
    "bot.tk",
    "bot.slack",
    "bot.inbound",
    "bot.handlers",
    "bot.runtime.runner",
    "bot.app",
)
SETTINGS = ("bot.config", "bot.compose")
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


RULES = (
    Rule("tools/", ("bot",), "tools/ is the agent's library; bot/ may import tools, never back"),
    Rule("bot/agent/", SETTINGS, "the agent core takes its budgets and provider as arguments"),
    Rule("bot/agent/", FRONT_ENDS, "the agent core knows no front end"),
    Rule("bench/", ("tests",), "benchmarks stand alone; tests may change under them"),
    Rule("fakes/", ("tests",), "the fakes serve tests and benchmarks alike"),
)


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
        for path in (p for top in ("bot/", "tools/", "bench/") for p in _files(root, top)):
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
        "tools/tanka/engine.py": "from bot.config import Settings\n",
        "bot/agent/agent.py": "def f():\n    import bot.chat.command\n",
        "bot/agent/budget.py": "from bot import config\n",
        "bot/chat/command.py": "import anthropic\nfrom github import Github\n",
        "bot/agent/providers/gemini.py": "from google import genai\nfrom ..messages import x\n",
        "bot/store/redis.py": "import redis\n",
        "bench/publish.py": "import fakes.github_server\nfrom tests.tree import digest\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)

    assert violations(tmp_path) == [
        "bench/publish.py:2: imports tests.tree (benchmarks stand alone; tests may change under "
        "them)",
        "bot/agent/agent.py:2: imports bot.chat.command (the agent core knows no front end)",
        "bot/agent/budget.py:1: imports bot.config (the agent core takes its budgets and provider "
        "as arguments)",
        "bot/chat/command.py:1: imports anthropic (only bot/agent/providers/ may)",
        "bot/chat/command.py:2: imports github (only bot/github/ may)",
        "tools/tanka/engine.py:1: imports bot.config (tools/ is the agent's library; bot/ may "
        "import tools, never back)",
    ]
