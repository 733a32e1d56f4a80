"""The walls around every tool: path confinement, size caps, text-only I/O, safe subprocesses.

API (other tool modules import these; all failures raise `tools.registry.ToolError` with a message
that says what is wrong and how to fix it):

- `resolve(root, rel, *, for_write=False, protected=()) -> Path`: the real path (symlinks
  followed) of `rel` inside the checkout `root`. Refuses absolute paths, `..`, anything under
  `.git/`, symlinks that lead outside `root` and, when `for_write`, paths matching a protected
  glob (checked on both the requested and the resolved path, so a symlink cannot launder a write).
- `resolve_entry(root, rel, *, protected=()) -> Path`: like `resolve(for_write=True)` but does not
  follow a symlink in the last component: the directory entry itself (what a delete removes).
- `relative(root, path) -> str`: a resolved path as the POSIX path the model sees.
- `glob_match(pattern, rel) -> bool`: `*`, `?`, `[...]` within a segment, `**` across segments;
  `dir/**` also matches `dir` itself.
- `read_text(path, *, max_bytes=MAX_READ_BYTES) -> str`: UTF-8 text; binary or oversized refused.
- `atomic_write(path, data)`: temp file in the same directory, fsync, rename: readers never see a
  half-written file, and a crash leaves the old content.
- `scrubbed_env(extra=None) -> dict[str, str]`: a minimal environment (PATH, locale, TMPDIR) with no
  credentials from the service's own environment.
- `run(argv, *, cwd, timeout, env=None, input_bytes=None) -> CommandResult`: a subprocess with a
  timeout (the whole process group is killed, `CommandTimeout` raised) and a scrubbed environment
  by default.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path, PurePosixPath

from tools import linear_re
from tools.errors import ToolError
from tools.linear_re import error as re2_error

# Reads are paged by line, so a bigger file is fine to read; beyond this it is data, not config.
MAX_READ_BYTES = 8 * 1024 * 1024
# One write is one file the model typed out: a larger one is a mistake or a runaway.
MAX_WRITE_BYTES = 2 * 1024 * 1024
# Sniffing the head is how git and grep tell binary files apart; NUL never appears in text.
_SNIFF_BYTES = 8192


# --- path confinement ---------------------------------------------------------------------------


def _clean_parts(rel: str) -> tuple[str, ...]:
    """Split a model-supplied path into safe segments, refusing every escape route lexically."""
    if not isinstance(rel, str) or not rel.strip():
        raise ToolError(
            "empty path: give a path relative to the repository root, e.g. lib/app.libsonnet"
        )
    if "\x00" in rel:
        raise ToolError("path contains a NUL byte; give a plain relative path")
    if rel.startswith(("/", "\\", "~")) or re.match(r"^[A-Za-z]:", rel):
        raise ToolError(
            f"absolute path {rel!r} refused: paths are relative to the repository root "
            "(drop the leading '/' or '~')"
        )
    parts = tuple(p for p in rel.replace("\\", "/").split("/") if p not in ("", "."))
    if ".." in parts:
        raise ToolError(f"path {rel!r} refused: '..' may not be used; give the path from the root")
    _refuse_git_dir(parts, rel)
    return parts


def _refuse_git_dir(parts: Iterable[str], shown: str) -> None:
    # .git holds config and hooks that git executes: writing there is code execution, and reading
    # it is never what a config change needs. Case-folded for case-insensitive filesystems.
    if any(p.casefold() == ".git" for p in parts):
        raise ToolError(f"path {shown!r} refused: nothing under .git/ may be read or written")


def _real(path: Path, shown: str) -> Path:
    try:
        return path.resolve(strict=False)
    except (OSError, RuntimeError) as exc:  # symlink loops
        raise ToolError(
            f"path {shown!r} cannot be resolved ({exc}); it may be a symlink loop"
        ) from exc


def _confine(root_real: Path, real: Path, shown: str) -> str:
    if real != root_real and not real.is_relative_to(root_real):
        raise ToolError(
            f"path {shown!r} refused: it leads outside the repository (through a symlink)"
        )
    inside = real.relative_to(root_real).as_posix()
    _refuse_git_dir(PurePosixPath(inside).parts, shown)
    return "" if inside == "." else inside


def _check_protected(rels: Iterable[str], protected: Sequence[str], shown: str) -> None:
    for rel in rels:
        for pattern in protected:
            if rel and glob_match(pattern, rel):
                raise ToolError(
                    f"path {shown!r} is protected (matches {pattern!r}): it may be read but not "
                    "changed; ask a human to change it in a separate pull request"
                )


def resolve(
    root: Path, rel: str, *, for_write: bool = False, protected: Sequence[str] = ()
) -> Path:
    """The real path of `rel` inside `root`, or ToolError saying why it is refused."""
    parts = _clean_parts(rel)
    root_real = _real(root, str(root))
    real = _real(root_real.joinpath(*parts), rel)
    inside = _confine(root_real, real, rel)
    if for_write:
        if not inside:
            raise ToolError("the repository root itself cannot be written; name a file in it")
        _check_protected(("/".join(parts), inside), protected, rel)
    return real


def resolve_entry(root: Path, rel: str, *, protected: Sequence[str] = ()) -> Path:
    """The directory entry `rel` names (a final symlink is not followed), confined for writing."""
    parts = _clean_parts(rel)
    if not parts:
        raise ToolError("the repository root itself cannot be changed; name a file in it")
    root_real = _real(root, str(root))
    parent = _real(root_real.joinpath(*parts[:-1]), rel)
    parent_inside = _confine(root_real, parent, rel)
    inside = f"{parent_inside}/{parts[-1]}" if parent_inside else parts[-1]
    _check_protected(("/".join(parts), inside), protected, rel)
    return parent / parts[-1]


def relative(root: Path, path: Path) -> str:
    """`path` (already resolved inside `root`) as the POSIX relative path the model uses."""
    rel = path.relative_to(_real(root, str(root))).as_posix()
    return "." if rel == "" else rel


# --- globs ---------------------------------------------------------------------------------------


@lru_cache(maxsize=256)
def _glob_regex(pattern: str) -> linear_re.Pattern:
    # RE2, linear: the model writes the pattern, and under re `**a**a**a**a**a**a**a**a**b`
    # took 2 s on a 40-character path (each `**` is a `.*` that backtracks), minutes on longer.
    try:
        return linear_re.compile("(?s)" + _glob_source(pattern))
    except re2_error as exc:  # e.g. a reversed range [z-a]
        raise ToolError(
            f"glob pattern {pattern!r} is invalid ({_re2_reason(exc)}); use *, ?, ** and [...] "
            "classes such as [a-z] or [!x]"
        ) from None


def _re2_reason(exc: Exception) -> str:
    reason = exc.args[0] if exc.args else exc
    return reason.decode(errors="replace") if isinstance(reason, bytes) else str(reason)


def _glob_source(pattern: str) -> str:
    pattern = pattern.strip()
    pattern = pattern[2:] if pattern.startswith("./") else pattern
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")  # zero or more whole directories
            i += 3
        elif pattern.startswith("/**", i) and i + 3 == len(pattern):
            out.append("(?:/.*)?")  # 'dir/**' is the directory and everything below it
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        else:
            out.append(_glob_char(pattern, i))
            i += _glob_width(pattern, i)
    return "".join(out) + r"\z"


def _glob_width(pattern: str, i: int) -> int:
    if pattern[i] == "[":
        end = pattern.find("]", i + 2)
        return end - i + 1 if end != -1 else 1
    return 1


def _glob_char(pattern: str, i: int) -> str:
    char = pattern[i]
    if char == "*":
        return "[^/]*"
    if char == "?":
        return "[^/]"
    if char == "[" and _glob_width(pattern, i) > 1:
        body = pattern[i + 1 : i + _glob_width(pattern, i) - 1]
        negate = body.startswith(("!", "^")) and len(body) > 1
        body = body[1:] if negate else body
        return "[" + ("^" if negate else "") + _class_body(body) + "]"
    return re.escape(char)


def _class_body(body: str) -> str:
    # Everything but '-' (ranges) is literal in a glob class; escaping keeps Python's regex set
    # syntax ([, &&, ~~, ||, --) from changing what the class means.
    out = []
    for index, char in enumerate(body):
        literal = char != "-" or (index > 0 and body[index - 1] == "-")
        out.append(re.escape(char) if literal else char)
    return "".join(out)


def glob_match(pattern: str, rel: str) -> bool:
    """Whether POSIX relative path `rel` matches `pattern` (see the module docstring)."""
    return _glob_regex(pattern).match(rel) is not None


# --- text I/O ------------------------------------------------------------------------------------


def is_binary(head: bytes) -> bool:
    return b"\x00" in head[:_SNIFF_BYTES]


def read_text(path: Path, *, max_bytes: int = MAX_READ_BYTES, shown: str | None = None) -> str:
    """The file's UTF-8 text; directories, binary, oversized and non-UTF-8 files are refused."""
    name = shown or path.name
    if not path.exists():
        raise ToolError(f"{name} does not exist; use file_list to see which files exist")
    if not path.is_file():
        raise ToolError(f"{name} is not a regular file (a directory?); use file_list to list it")
    size = path.stat().st_size
    if size > max_bytes:
        raise ToolError(
            f"{name} is too large ({size} bytes, limit {max_bytes}); use file_search to find "
            "the lines you need"
        )
    data = path.read_bytes()
    if is_binary(data):
        raise ToolError(f"{name} is a binary file ({size} bytes); file tools handle text only")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ToolError(f"{name} is not UTF-8 text ({exc.reason} at byte {exc.start})") from exc


def atomic_write(path: Path, data: str | bytes) -> None:
    """Replace `path`'s content all at once, keeping its permission bits if it exists."""
    payload = data.encode("utf-8") if isinstance(data, str) else data
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o7777 if path.exists() else 0o644
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp_name, mode)
        os.replace(tmp_name, path)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise


# --- subprocesses --------------------------------------------------------------------------------

# Only what a tool needs to find binaries and speak UTF-8. Everything else (tokens, cloud
# credentials, proxies holding passwords) stays in the service's own environment.
_PASSED_VARS = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR")


def scrubbed_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    env = {name: os.environ[name] for name in _PASSED_VARS if name in os.environ}
    env.setdefault("PATH", os.defpath)
    env.setdefault("LANG", "C.UTF-8")
    env.update(extra or {})
    return env


class CommandTimeout(ToolError):
    """`run` stopped a command that ran past its timeout."""


class CommandCancelled(ToolError):
    """`run` stopped a command because its caller was cancelled."""


@dataclass(frozen=True, slots=True)
class CommandResult:
    argv: tuple[str, ...]
    returncode: int
    stdout: bytes
    stderr: bytes

    @property
    def ok(self) -> bool:
        return self.returncode == 0

    def text(self) -> str:
        return self.stdout.decode("utf-8", errors="replace")

    def error_text(self) -> str:
        return self.stderr.decode("utf-8", errors="replace").strip()


# After a timeout kill, how long to wait for the remaining output before abandoning the pipes.
DRAIN_SECONDS = 5.0
CANCEL_POLL = 0.25


def run(
    argv: Sequence[str],
    *,
    cwd: Path,
    timeout: float,
    env: Mapping[str, str] | None = None,
    input_bytes: bytes | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> CommandResult:
    """Run `argv` (never a shell) and collect its output; ToolError on timeout or missing binary.

    The child gets its own process group so a timeout kills grandchildren too (git spawns helpers).
    With `cancelled`, it is polled every CANCEL_POLL seconds and the command stopped when it says
    so (CommandCancelled): a cancelled turn must not wait for a long command.
    """
    shown = " ".join(argv[:2])
    try:
        proc = subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=dict(env) if env is not None else scrubbed_env(),
            stdin=subprocess.PIPE if input_bytes is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except FileNotFoundError as exc:
        if not Path(cwd).is_dir():
            raise ToolError(
                f"cannot run {argv[0]}: the working directory {cwd} does not exist"
            ) from exc
        raise ToolError(f"{argv[0]} is not installed (not found on PATH)") from exc
    except OSError as exc:  # not executable, not a program, ...
        raise ToolError(f"cannot run {argv[0]}: {exc.strerror or exc}") from exc
    deadline = time.monotonic() + timeout
    with proc:
        pending = input_bytes  # sent once: communicate() refuses input when called again
        while True:
            left = deadline - time.monotonic()
            try:
                wait = min(left, CANCEL_POLL) if cancelled is not None else left
                out, err = proc.communicate(pending, timeout=max(wait, 0.0))
                break
            except subprocess.TimeoutExpired as exc:
                pending = None
                if cancelled is not None and cancelled():
                    _stop(proc)
                    raise CommandCancelled(f"`{shown}` was stopped: cancelled") from exc
                if time.monotonic() >= deadline:
                    _stop(proc)
                    raise CommandTimeout(
                        f"`{shown}` timed out after {timeout:g} s and was stopped"
                    ) from exc
    return CommandResult(tuple(argv), proc.returncode, out, err)


def run_module(
    module: str,
    payload: object,
    *,
    cwd: Path,
    timeout: float,
    cancelled: Callable[[], bool] | None = None,
) -> CommandResult:
    """`python -m module` of this interpreter with `payload` as JSON on its stdin (`run`'s
    timeout, cancellation and process group). `-P`: `-m` would otherwise put the working
    directory (the agent-written checkout) first on sys.path, so a json.py there would run as the
    child imports json."""
    return run(
        [sys.executable, "-P", "-m", module],
        cwd=cwd,
        timeout=timeout,
        input_bytes=json.dumps(payload).encode(),
        cancelled=cancelled,
    )


def _stop(proc: subprocess.Popen[bytes]) -> None:
    os.killpg(proc.pid, signal.SIGKILL)
    # A descendant in a session of its own may still hold the pipes: abandon them.
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.communicate(timeout=DRAIN_SECONDS)
