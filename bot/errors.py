"""The error tree of bot/ and tools/, and how a front end presents an expected failure.

Four roots. Every error raised on purpose sits under one of them; the specific errors live
beside the code that raises them and subclass their root (bot/'s two here, tools/'s two in
tools.errors, as tools/ never imports bot/):

    Exception
     ├── BotError                 expected: str(exc) says what is wrong and how to fix it
     │    ├── UserError           the person can fix it: the message is the answer
     │    │    ├── ConfigError             bot.errors: settings cannot be loaded (exit 2)
     │    │    ├── CheckUsageError         bot.tk.check
     │    │    ├── TaskFileError           bot.eval.tasks
     │    │    ├── RenderFailed            bot.eval.checks: an environment does not render
     │    │    ├── McpConfigError          bot.mcp.config (also a ValueError)
     │    │    ├── PayloadError            bot.inbound.github_webhook (also a ValueError)
     │    │    ├── AlertPayloadError       bot.domain.alerts (also a ValueError)
     │    │    ├── FrameTooLarge           bot.inbound.socket_frames (also an OSError)
     │    │    ├── SigninRefused           bot.web.oidc: the web view's sign-in cannot complete
     │    │    ├── Refused                 bot.handlers.approve: the approval does not count
     │    │    └── PublishError            bot.publish.errors (ProposalChanged, PushFailed, ...)
     │    └── ServiceUnavailable  something the bot depends on failed: try again later
     │         │                  (`dependency` names it; `retryable`, where the error has
     │         │                  one, says whether waiting helps)
     │         ├── StoreUnavailable        bot.store: the session store
     │         ├── QueueFull               bot.runtime.admission: too many requests wait
     │         ├── ChatError               bot.domain.ports: Slack
     │         ├── CodeHostError           bot.github.errors: GitHub (AuthError, NotFound, ...)
     │         ├── AgentError              bot.agent.errors: the model (its `kind` says how)
     │         ├── McpFault                bot.mcp.hub: an MCP server
     │         ├── WorkspaceError          bot.workspace: a session's checkout (git, disk)
     │         └── PullRequestLocked       bot.handlers.ci: a PR's state stayed locked
     ├── Bug                      the bot's own state is wrong: logged with its traceback
     │    ├── SessionCorrupt               bot.domain.sessions (also a ValueError)
     │    └── BadWork                      bot.runtime.work: a queued request that cannot be
     │                                     read back (also a ValueError)
     ├── ToolError (tools.errors) the agent's tools' failures, reported to the model as is
     │    ├── GitError                     tools.gitrun
     │    └── JbError                      tools.jb.errors
     └── EngineError (tools.errors) the engines' failures; their callers catch each branch
          ├── TankaError                   tools.tanka.errors: tk's own wording (PathNotFound,
          │    │                           NoRoot, Spec, JsonnetError (EvalTimeout, EvalMemory,
          │    │                           EvalCrashed), NativeError, ...), and beside the
          │    │                           code: ManifestSchemaError, TemplateError,
          │    │                           ChartfileError, SelectorError, VersionError,
          │    │                           RevisionError, EnvPathError, CheckSetupError
          ├── StaticError                  tools.tanka.source.jsonnet.errors: Jsonnet that does
          │                                not parse or analyse (ParseError)
          ├── FormatError                  tools.tanka.errors: the formatter's
          │                                (FormatterUnavailable)
          ├── ImportRefused                tools.tanka.evaluation.importer: an import outside
          │                                the project
          ├── ImportFailure                tools.tanka.source.jsonnet.linter: an import the
          │                                linter cannot open
          ├── ImportersError               tools.tanka.errors: the importers analysis's (also
          │                                a ValueError)
          ├── HelmLibraryError             tools.tanka.natives.helm_lib
          ├── BadConfig                    tools.tanka.natives.kustomize_plugins: an inline
          │                                kustomize config that is not YAML (a ValueError)
          └── GoJsonError                  tools.tanka.gojson.decode (also a ValueError)

Errors do not decide how they are shown. Two places do, by these roots: `describe` below for
the CLI (message and exit code; None, so the traceback shows, for anything not a BotError) and
bot.runtime.failures for a Slack thread (the reply and the metric's kind). The `tk` commands
and the agent-tool adapters translate the engines' errors into these.
"""

from __future__ import annotations

EXIT_ERROR = 1
EXIT_CONFIG = 2


class BotError(Exception):
    """An expected failure; the message names what is wrong and how to fix it.

    `exit_code` is the command's exit status when this ends a command (a kind of failure, e.g.
    tk check's 2 for a broken policy; the CLI reads it through `describe`).
    """

    exit_code: int = EXIT_ERROR


class UserError(BotError):
    """Bad input, missing setting, unusable repository: the person can fix it."""


class ServiceUnavailable(BotError):
    """A service the bot depends on failed or refused; the message names it and the cause.

    `dependency` is what failed, as the errors metric counts it.
    """

    dependency: str = "service"


class Bug(Exception):
    """A state the bot should never be in (e.g. a stored record it cannot read back)."""


class ConfigError(UserError):
    """Start-up cannot continue; the message lists every problem and the variable to set.

    Defined here rather than in bot.config so that the CLI's error boundary can name it without
    loading pydantic-settings for commands that read no settings.
    """

    exit_code = EXIT_CONFIG

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        lines = "\n".join(f"  - {p}" for p in problems)
        super().__init__(f"invalid configuration ({len(problems)} problem(s)):\n{lines}")


def describe(exc: BaseException) -> tuple[str, int] | None:
    """The message to show and the exit code for an expected failure; None for anything else."""
    if isinstance(exc, BotError):
        return str(exc), exc.exit_code
    return None
