"""The TANKA_BOT_MCP_CONFIG file: which external MCP servers the agent may use, validated at start.

    servers:
      ops:                          # [a-z0-9_-]+
        command: [mcp-ops, --stdio] # a stdio server; or url: http://host/mcp (streamable HTTP)
        env: {OPS_TOKEN: "${OPS_TOKEN}"}   # all a stdio server gets, plus PATH, HOME and LANG
        headers: {Authorization: "Bearer ${OPS_TOKEN}"}   # url servers only
        tools: [firing_alerts]      # optional allowlist; without it, readOnlyHint tools only
        timeout: 30                 # seconds per call (and to start)

`${VAR}` in `env` and `headers` is replaced from the bot's environment when the file is loaded;
the values are kept as secrets (never in a repr, a log line or an error message). Every problem
is reported at once, each naming its key (`servers.ops.command: ...`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator

from bot.errors import UserError
from bot.settings_file import read_yaml

SERVER_NAME = re.compile(r"^[a-z0-9_-]+$")
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
# What a stdio server gets from the bot's own environment besides its `env`.
PASSED_THROUGH = ("PATH", "HOME", "LANG")
DEFAULT_TIMEOUT = 30.0


class McpConfigError(UserError, ValueError):
    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


class _ServerEntry(BaseModel):
    """One server as written in the file (before `${VAR}` expansion)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    command: list[str] | None = None
    url: str | None = None
    env: dict[str, str] = Field(default_factory=dict)
    headers: dict[str, str] = Field(default_factory=dict)
    tools: list[str] | None = None
    timeout: float = Field(DEFAULT_TIMEOUT, gt=0, le=600)

    @field_validator("command")
    @classmethod
    def _command(cls, value: list[str] | None) -> list[str] | None:
        if value is not None and (not value or not all(part.strip() for part in value)):
            raise ValueError("must be a non-empty list: the program, then its arguments")
        return value

    @field_validator("url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("http://", "https://")):
            raise ValueError(f"must be an http(s) URL (got {value!r})")
        return value


class McpServer(BaseModel):
    """One server, ready to start: variables expanded, secrets wrapped."""

    model_config = ConfigDict(frozen=True)

    name: str
    command: tuple[str, ...] | None = None
    url: str | None = None
    env: dict[str, SecretStr] = Field(default_factory=dict)  # the whole process environment
    headers: dict[str, SecretStr] = Field(default_factory=dict)
    tools: tuple[str, ...] | None = None  # the allowlist, by the server's own tool names
    timeout: float = DEFAULT_TIMEOUT

    @property
    def transport(self) -> str:
        return "stdio" if self.command is not None else "http"


class McpConfig(BaseModel):
    model_config = ConfigDict(frozen=True)

    path: str
    servers: tuple[McpServer, ...] = ()


def load_mcp_config(path: str | Path, environ: Mapping[str, str]) -> McpConfig:
    """Read, validate and expand the file; McpConfigError lists every problem by key."""
    data, unreadable = read_yaml(path)
    if unreadable:
        raise McpConfigError([unreadable])
    if not isinstance(data, dict) or set(data) != {"servers"}:
        raise McpConfigError(["the file must hold one key, servers: a mapping of name to server"])
    servers = data["servers"]
    if not isinstance(servers, dict) or not servers:
        raise McpConfigError(["servers: must map each server's name to its settings"])
    problems: list[str] = []
    parsed: list[McpServer] = []
    for name, entry in servers.items():
        server = _server(str(name), entry, environ, problems)
        if server is not None:
            parsed.append(server)
    if problems:
        raise McpConfigError(problems)
    return McpConfig(path=str(path), servers=tuple(parsed))


def _server(
    name: str, entry: Any, environ: Mapping[str, str], problems: list[str]
) -> McpServer | None:
    key = f"servers.{name}"
    before = len(problems)
    if not SERVER_NAME.match(name):
        problems.append(f"{key}: a server name may hold only a-z, 0-9, _ and -")
    if not isinstance(entry, dict):
        problems.append(f"{key}: must be a mapping (command or url, env, tools, timeout)")
        return None
    try:
        raw = _ServerEntry.model_validate(entry)
    except ValidationError as exc:
        for error in exc.errors():
            where = ".".join(str(p) for p in error["loc"])
            message = str(error["msg"]).removeprefix("Value error, ")
            problems.append(f"{key}.{where}: {message}")
        return None
    if (raw.command is None) == (raw.url is None):
        problems.append(f"{key}: set exactly one of command (stdio) and url (streamable HTTP)")
    if raw.command is not None and raw.headers:
        problems.append(f"{key}.headers: only for url servers; a stdio server takes env")
    if raw.url is not None and raw.env:
        problems.append(f"{key}.env: only for command servers; a url server takes headers")
    env = _expand(f"{key}.env", raw.env, environ, problems)
    headers = _expand(f"{key}.headers", raw.headers, environ, problems)
    if len(problems) > before:
        return None
    if raw.command is not None:
        for variable in PASSED_THROUGH:
            if variable not in env and environ.get(variable):
                env[variable] = SecretStr(environ[variable])
    return McpServer(
        name=name,
        command=tuple(raw.command) if raw.command is not None else None,
        url=raw.url,
        env=env,
        headers=headers,
        tools=tuple(raw.tools) if raw.tools is not None else None,
        timeout=raw.timeout,
    )


def _expand(
    key: str, values: Mapping[str, str], environ: Mapping[str, str], problems: list[str]
) -> dict[str, SecretStr]:
    out: dict[str, SecretStr] = {}
    for name, value in values.items():
        missing = [v for v in _VARIABLE.findall(value) if v not in environ]
        if missing:
            problems.append(
                f"{key}.{name}: uses {', '.join('${' + v + '}' for v in missing)}, which the "
                "bot's environment does not set; set it or remove the reference"
            )
            continue
        out[name] = SecretStr(_VARIABLE.sub(lambda m: environ[m.group(1)], value))
    return out
