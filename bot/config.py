"""Settings: the one place that reads the environment.

Every environment variable the bot reads maps to one field. `load_settings` merges the optional
YAML file at `TANKA_BOT_CONFIG` with the environment (the environment wins), validates everything
at once and raises `ConfigError` with one line per problem, each naming the variable to set.

Every secret (a `SecretStr` field: tokens, keys, the signing and webhook secrets, `REDIS_URL`)
may instead come from a file named by `NAME_FILE`, as a Kubernetes Secret mounted as files gives
it, so the service's own environment (which its child processes and `/proc` could show) holds
none. The file's text is the value, without surrounding whitespace.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal, NamedTuple

from pydantic import (
    Field,
    SecretStr,
    SkipValidation,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from bot.domain.prices import Price, parse_prices
from bot.errors import ConfigError as ConfigError  # noqa: PLC0414 - re-exported: defined in bot.errors
from bot.guards.config import GUARD_KEYS, GuardSettings, parse_guards
from bot.mcp.config import McpConfig, McpConfigError, load_mcp_config
from bot.policy.teams import TEAM_KEYS, Teams, parse_teams
from bot.settings_file import read_yaml
from tools.context import DEFAULT_PROTECTED_PATHS
from tools.tanka.evaluation.implementation import choose as choose_jsonnet

Provider = Literal["anthropic", "gemini", "openai"]

DEFAULT_MODELS: Mapping[str, str] = {
    "anthropic": "claude-opus-4-6",
    "gemini": "gemini-2.0-flash",
    "openai": "gpt-4o",
}

_SLACK_PRINCIPAL = re.compile(r"^[USW][A-Z0-9]{2,}$")
_GITHUB_REPO = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")


def _split_csv(value: object) -> object:
    if isinstance(value, str):
        return tuple(part.strip() for part in value.split(",") if part.strip())
    if isinstance(value, list):
        return tuple(str(part).strip() for part in value if str(part).strip())
    return value


class Settings(BaseSettings):
    """Frozen, validated configuration. Field aliases are the environment variable names."""

    model_config = SettingsConfigDict(frozen=True, populate_by_name=True, extra="ignore")

    slack_bot_token: SecretStr | None = Field(None, alias="SLACK_BOT_TOKEN")
    slack_signing_secret: SecretStr | None = Field(None, alias="SLACK_SIGNING_SECRET")
    slack_app_token: SecretStr | None = Field(None, alias="SLACK_APP_TOKEN")
    slack_api_url: str = Field("https://slack.com/api/", alias="TANKA_BOT_SLACK_API_URL")

    repo_url: str | None = Field(None, alias="TANKA_BOT_REPO_URL")
    github_repo: str | None = Field(None, alias="TANKA_BOT_GITHUB_REPO")
    base_branch: str = Field("main", alias="TANKA_BOT_BASE_BRANCH", min_length=1)
    github_token: SecretStr | None = Field(None, alias="GITHUB_TOKEN")
    github_app_id: str | None = Field(None, alias="GITHUB_APP_ID")
    github_app_private_key: SecretStr | None = Field(None, alias="GITHUB_APP_PRIVATE_KEY")
    github_app_private_key_path: Path | None = Field(None, alias="GITHUB_APP_PRIVATE_KEY_PATH")
    github_app_installation_id: int | None = Field(None, alias="GITHUB_APP_INSTALLATION_ID")
    github_api_url: str = Field("https://api.github.com", alias="GITHUB_API_URL")
    # unset: /github/webhook answers 404 (CONTRACT: GITHUB_WEBHOOK_SECRET)
    github_webhook_secret: SecretStr | None = Field(None, alias="GITHUB_WEBHOOK_SECRET")
    # Alertmanager's bearer token; unset: /alerts/alertmanager answers 404 (bot.inbound.alerts)
    alerts_token: SecretStr | None = Field(None, alias="TANKA_BOT_ALERTS_TOKEN")

    provider: Provider = Field("anthropic", alias="TANKA_BOT_PROVIDER")
    model: str | None = Field(None, alias="TANKA_BOT_MODEL")
    anthropic_api_key: SecretStr | None = Field(None, alias="ANTHROPIC_API_KEY")
    anthropic_base_url: str | None = Field(None, alias="ANTHROPIC_BASE_URL")
    gemini_api_key: SecretStr | None = Field(None, alias="GEMINI_API_KEY")
    google_api_key: SecretStr | None = Field(None, alias="GOOGLE_API_KEY")
    gemini_base_url: str | None = Field(None, alias="TANKA_BOT_GEMINI_BASE_URL")
    openai_api_key: SecretStr | None = Field(None, alias="OPENAI_API_KEY")
    openai_base_url: str | None = Field(None, alias="OPENAI_BASE_URL")

    redis_url: SecretStr | None = Field(None, alias="REDIS_URL")
    workdir: Path = Field(Path("~/.cache/tanka-bot"), alias="TANKA_BOT_WORKDIR")

    approve_emoji: str = Field("white_check_mark", alias="TANKA_BOT_APPROVE_EMOJI", min_length=1)
    cancel_emoji: str = Field("x", alias="TANKA_BOT_CANCEL_EMOJI", min_length=1)
    approvers: tuple[str, ...] = Field((), alias="TANKA_BOT_APPROVERS")
    allow_self_approval: bool = Field(True, alias="TANKA_BOT_ALLOW_SELF_APPROVAL")
    protected_paths: tuple[str, ...] = Field(
        DEFAULT_PROTECTED_PATHS, alias="TANKA_BOT_PROTECTED_PATHS"
    )

    max_steps: int = Field(40, alias="TANKA_BOT_MAX_STEPS", gt=0)
    max_tokens: int = Field(400_000, alias="TANKA_BOT_MAX_TOKENS", gt=0)
    turn_timeout: float = Field(600.0, alias="TANKA_BOT_TURN_TIMEOUT", gt=0)
    session_ttl: float = Field(86_400.0, alias="TANKA_BOT_SESSION_TTL", gt=0)
    # A thread's lease while a turn runs; renewed every third of it. After a crash another
    # replica takes the thread over once it expires.
    lease_ttl: float = Field(60.0, alias="TANKA_BOT_LEASE_TTL", ge=3)
    workers: int = Field(8, alias="TANKA_BOT_WORKERS", gt=0, le=256)  # turns at once per replica

    policy_dir: str = Field("policy", alias="TANKA_BOT_POLICY_DIR", min_length=1)
    kubernetes_version: str | None = Field(None, alias="TANKA_BOT_KUBERNETES_VERSION")

    # Teams (bot.policy.teams): channels, who may steer, approval rules; only the settings file
    # sets it.
    teams: Annotated[Teams, SkipValidation] = Field(default_factory=Teams)
    # Guardrails (bot.guards): freezes, policy owners, budgets; only the settings file sets it.
    guards: Annotated[GuardSettings, SkipValidation] = Field(default_factory=GuardSettings)
    prices: str | None = Field(None, alias="TANKA_BOT_PRICES")
    # The audit log keeps events this many seconds, and at most this many events.
    audit_retention: float = Field(90 * 86_400.0, alias="TANKA_BOT_AUDIT_RETENTION", gt=0)
    audit_max_events: int = Field(1_000_000, alias="TANKA_BOT_AUDIT_MAX_EVENTS", ge=1000)
    # The operator web view (bot/web/): off without TANKA_BOT_WEB_URL.
    web_url: str | None = Field(None, alias="TANKA_BOT_WEB_URL")
    oidc_issuer: str = Field("https://slack.com", alias="TANKA_BOT_OIDC_ISSUER")
    oidc_client_id: str | None = Field(None, alias="TANKA_BOT_OIDC_CLIENT_ID")
    oidc_client_secret: SecretStr | None = Field(None, alias="TANKA_BOT_OIDC_CLIENT_SECRET")
    web_secret: SecretStr | None = Field(None, alias="TANKA_BOT_WEB_SECRET")
    history_days: float = Field(90.0, alias="TANKA_BOT_HISTORY_DAYS", gt=0)
    # Sub-agents and external MCP tools (bot/mcp/, bot/agent/review.py).
    mcp_config: Path | None = Field(None, alias="TANKA_BOT_MCP_CONFIG")
    review: bool = Field(True, alias="TANKA_BOT_REVIEW")
    # The Jsonnet evaluator: jrsonnet with go-jsonnet answering wherever they could differ, or
    # go-jsonnet alone (tools/tanka/evaluation/implementation.py).
    jsonnet: Literal["go", "rust"] = Field("rust", alias="TANKA_BOT_JSONNET")
    # The servers of TANKA_BOT_MCP_CONFIG, validated and ${VAR}-expanded by load_settings.
    mcp: McpConfig | None = Field(None, exclude=True, repr=False)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # load_settings is the only reader of the environment, so tests pass a plain mapping.
        return (init_settings,)

    _csv = field_validator("approvers", "protected_paths", mode="before")(_split_csv)

    @field_validator("approvers")
    @classmethod
    def _check_approvers(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        bad = [v for v in value if not _SLACK_PRINCIPAL.match(v)]
        if bad:
            raise ValueError(f"not Slack user (U...) or user group (S...) ids: {', '.join(bad)}")
        return value

    @field_validator("github_repo")
    @classmethod
    def _check_github_repo(cls, value: str | None) -> str | None:
        if value is not None and not _GITHUB_REPO.match(value):
            raise ValueError(f"must look like owner/name (got {value!r})")
        return value

    @field_validator("prices")
    @classmethod
    def _check_prices(cls, value: str | None) -> str | None:
        if value:
            parse_prices(value)  # ValueError names every bad entry
        return value or None

    @field_validator("workdir")
    @classmethod
    def _expand_workdir(cls, value: Path) -> Path:
        # Absolute: git and the render engine run in other directories (the checkout), where a
        # relative path would put caches and base trees inside the user's repository.
        return Path(os.path.abspath(value.expanduser()))

    @field_validator("policy_dir")
    @classmethod
    def _check_policy_dir(cls, value: str) -> str:
        # Relative to each repository the bot works on, and inside it.
        path = Path(value)
        if path.is_absolute() or ".." in path.parts:
            raise ValueError("must be a folder relative to the repository root, inside it")
        return value

    @field_validator("kubernetes_version")
    @classmethod
    def _check_kubernetes_version(cls, value: str | None) -> str | None:
        if not value:
            return None
        from tools.tanka.check.schema import resolve_version, version_problem  # noqa: PLC0415 - start-up: the schemas, 0.13 s and 100 modules, load only when a Kubernetes version is set

        problem = version_problem(value)
        if problem is not None:
            raise ValueError(problem)
        return resolve_version(value)

    @field_validator("web_url")
    @classmethod
    def _check_web_url(cls, value: str | None) -> str | None:
        if value and not value.startswith(("http://", "https://")):
            raise ValueError(f"must be the view's http(s) base URL (got {value!r})")
        return value.rstrip("/") if value else None

    @field_validator("slack_api_url", "github_api_url", "oidc_issuer")
    @classmethod
    def _check_url(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError(f"must be an http(s) URL (got {value!r})")
        return value

    @model_validator(mode="after")
    def _check_github_app(self) -> Settings:
        if self.github_app_private_key and self.github_app_private_key_path:
            raise ValueError(
                "set only one of GITHUB_APP_PRIVATE_KEY and GITHUB_APP_PRIVATE_KEY_PATH"
            )
        return self

    @property
    def model_id(self) -> str:
        return self.model or DEFAULT_MODELS[self.provider]

    @property
    def gemini_key(self) -> SecretStr | None:
        return self.gemini_api_key or self.google_api_key

    @property
    def price_table(self) -> dict[str, Price]:
        return parse_prices(self.prices) if self.prices else {}

    def channel_settings(self, channel: str) -> Settings | None:
        """These settings as `channel` sees them (its repository, base branch, approvers); None
        when the settings file lists channels and not this one."""
        config = self.teams.channel(channel)
        if config is None:
            return None
        update: dict[str, Any] = {}
        if config.repo_url is not None:
            update["repo_url"] = config.repo_url
            update["github_repo"] = config.github_repo  # None: parsed from the channel's URL
        elif config.github_repo is not None:
            update["github_repo"] = config.github_repo
        if config.base_branch is not None:
            update["base_branch"] = config.base_branch
        if config.approvers is not None:
            update["approvers"] = config.approvers
        return self.model_copy(update=update) if update else self

    def missing_for_provider(self) -> list[str]:
        """Problems that stop the agent from talking to its model provider."""
        key = {
            "anthropic": (self.anthropic_api_key, "ANTHROPIC_API_KEY"),
            "gemini": (self.gemini_key, "GEMINI_API_KEY (or GOOGLE_API_KEY)"),
            "openai": (self.openai_api_key, "OPENAI_API_KEY"),
        }[self.provider]
        if key[0] is None:
            return [f"{key[1]}: required for TANKA_BOT_PROVIDER={self.provider}; set it"]
        return []

    def missing_for_serve(self, *, socket_mode: bool) -> list[str]:
        """Problems that stop `tanka-bot serve` (in HTTP or Socket Mode)."""
        problems = self.missing_for_provider()
        if self.slack_bot_token is None:
            problems.append("SLACK_BOT_TOKEN: required by serve; set the bot token (xoxb-...)")
        if socket_mode and self.slack_app_token is None:
            problems.append("SLACK_APP_TOKEN: required by --socket-mode; set an app token")
        if not socket_mode and self.slack_signing_secret is None:
            problems.append("SLACK_SIGNING_SECRET: required in HTTP mode; set the signing secret")
        channels = self.teams.channels
        if not self.repo_url and (
            channels is None or any(c.repo_url is None for c in channels.values())
        ):
            problems.append(
                "TANKA_BOT_REPO_URL: required by serve; set the repository URL "
                "(or repo_url for every channel in the settings file)"
            )
        if self.github_token is None and self.github_app_id is None:
            problems.append(
                "GITHUB_TOKEN: required to push and open pull requests; set it "
                "(or GITHUB_APP_ID with GITHUB_APP_PRIVATE_KEY)"
            )
        if self.github_app_id and not (
            self.github_app_private_key or self.github_app_private_key_path
        ):
            problems.append(
                "GITHUB_APP_PRIVATE_KEY: required with GITHUB_APP_ID; set the PEM text "
                "or GITHUB_APP_PRIVATE_KEY_PATH"
            )
        return problems + self.missing_for_web()

    def missing_for_web(self) -> list[str]:
        """Problems of the web view's settings (none when TANKA_BOT_WEB_URL is unset: no view)."""
        if not self.web_url:
            return []
        problems = [
            f"{name}: required with TANKA_BOT_WEB_URL; set {what}"
            for name, value, what in (
                ("TANKA_BOT_OIDC_CLIENT_ID", self.oidc_client_id, "the OIDC client id"),
                ("TANKA_BOT_OIDC_CLIENT_SECRET", self.oidc_client_secret, "its secret"),
                ("TANKA_BOT_WEB_SECRET", self.web_secret, "a random key of 32 bytes or more"),
            )
            if not value
        ]
        if self.web_secret is not None and len(self.web_secret.get_secret_value()) < 32:
            problems.append("TANKA_BOT_WEB_SECRET: must be 32 bytes or more; make a longer key")
        return problems

    def require(self, problems: list[str]) -> Settings:
        if problems:
            raise ConfigError(problems)
        return self


def _alias_names() -> set[str]:
    return {f.alias for f in Settings.model_fields.values() if f.alias}


def _secret_names() -> set[str]:
    return {
        f.alias
        for f in Settings.model_fields.values()
        if f.alias and "SecretStr" in str(f.annotation)
    }


class _Structured(NamedTuple):
    """The settings file's structured parts: teams and guards."""

    teams: Teams
    guards: GuardSettings


def _read_yaml(path: str) -> tuple[dict[str, Any], _Structured, list[str]]:
    """The file's settings, its structured parts, and every problem with its keys (none
    raised)."""
    data, unreadable = read_yaml(path)
    if unreadable:
        raise ConfigError([f"TANKA_BOT_CONFIG: {unreadable}"])
    if data is None:
        return {}, _Structured(Teams(), GuardSettings()), []
    if not isinstance(data, dict):
        raise ConfigError([f"TANKA_BOT_CONFIG: {path} must hold a mapping of settings"])
    team_data = {str(k): v for k, v in data.items() if str(k) in TEAM_KEYS}
    teams, team_problems = parse_teams(team_data)
    guards, guard_problems = parse_guards({str(k): v for k, v in data.items() if k in GUARD_KEYS})
    problems = [f"TANKA_BOT_CONFIG: {p}" for p in team_problems + guard_problems]
    rest = {str(k): v for k, v in data.items() if str(k) not in TEAM_KEYS + GUARD_KEYS}
    known = _alias_names()
    problems += [
        f"TANKA_BOT_CONFIG: unknown key {k!r} in {path}; see the README"
        for k in sorted(k for k in rest if k.upper() not in known)
    ]
    values = {k.upper(): v for k, v in rest.items() if k.upper() in known}
    return values, _Structured(teams, guards), problems


FILE_SUFFIX = "_FILE"


def _secret_files(env: Mapping[str, str]) -> tuple[dict[str, str], list[str]]:
    """The secrets given as `NAME_FILE` (read from those files), and every problem with them."""
    values: dict[str, str] = {}
    problems: list[str] = []
    for name in sorted(_secret_names()):
        path = env.get(name + FILE_SUFFIX, "")
        if not path:
            continue
        where = f"{name}{FILE_SUFFIX}"
        if env.get(name, ""):
            problems.append(f"{name} and {where} are both set; keep only one (the file keeps "
                            "the secret out of the environment)")  # fmt: skip
            continue
        try:
            text = Path(path).expanduser().read_text(encoding="utf-8").strip()
        except OSError as exc:
            problems.append(f"{where}: cannot read {path}: {exc.strerror or exc}; mount the "
                            "secret there or fix the path")  # fmt: skip
            continue
        except UnicodeDecodeError:
            problems.append(f"{where}: {path} is not UTF-8 text; put the secret in it as text")
            continue
        if not text:
            problems.append(f"{where}: {path} is empty; put the secret in it")
            continue
        values[name] = text
    return values, problems


def _describe(error: Mapping[str, Any]) -> str:
    loc = error.get("loc") or ()
    name = str(loc[0]) if loc else "settings"
    value = error.get("input")
    shown = "" if isinstance(value, dict) or value is None else f" (got {value!r})"
    if name in _secret_names():
        shown = ""  # never echo secret values
    msg = str(error.get("msg", "invalid")).removeprefix("Value error, ")
    return f"{name}: {msg}{shown}"


def load_settings(environ: Mapping[str, str] | None = None) -> Settings:
    """Read the YAML file (if any) and the environment once; raise ConfigError on any problem."""
    env = dict(os.environ if environ is None else environ)
    values: dict[str, Any] = {}
    problems: list[str] = []
    structured = _Structured(Teams(), GuardSettings())
    if env.get("TANKA_BOT_CONFIG"):
        from_file, structured, problems = _read_yaml(env["TANKA_BOT_CONFIG"])
        values.update(from_file)
    known = _alias_names()
    values.update({k: v for k, v in env.items() if k in known and v != ""})
    from_files, file_problems = _secret_files(env)
    values.update(from_files)
    problems += file_problems
    try:
        settings = Settings(**values, teams=structured.teams, guards=structured.guards)
    except ValidationError as exc:
        raise ConfigError(problems + [_describe(e) for e in exc.errors()]) from None
    if problems:
        raise ConfigError(problems)
    if "TANKA_BOT_JSONNET" in values:  # unset: the engine's own default stands
        choose_jsonnet(settings.jsonnet)
    if settings.mcp_config is not None:
        try:
            mcp = load_mcp_config(settings.mcp_config, env)
        except McpConfigError as exc:
            raise ConfigError([f"TANKA_BOT_MCP_CONFIG: {p}" for p in exc.problems]) from None
        settings = settings.model_copy(update={"mcp": mcp})
    return settings
