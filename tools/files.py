r"""The agent's file tools: read, write, edit, list, search and delete inside the checkout.

Every path goes through `tools.sandbox`, so nothing here can leave the checkout, touch `.git/` or
write a protected path. Long results are paged with the headers of the `tk agent` design, e.g.
`[lib/app.libsonnet: lines 1\u2013500 of 1200] (700 more lines, use offset=500 to continue)`
(an en dash between the numbers, as the design shows).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from tools import sandbox
from tools.context import ToolContext
from tools.errors import ToolError
from tools.registry import Tool

# Below the registry's truncation size, so a page is never cut in the middle; the header then says
# exactly where to continue.
PAGE_CHARS = 24_000
LINE_CHARS = 2_000  # minified JSON is one line: show its start, not 5 MB
MATCH_CHARS = 300
DASH = "\u2013"  # the `tk agent` CLI's headers use an en dash: "lines 1\u2013500 of 1200"


class ReadInput(BaseModel):
    path: str = Field(description="File path relative to the repository root.")
    offset: int = Field(0, ge=0, description="First line to show, counting from 0.")
    limit: int = Field(500, ge=1, le=500, description="How many lines to show (at most 500).")


class WriteInput(BaseModel):
    path: str = Field(description="File path relative to the repository root.")
    content: str = Field(description="The complete new content of the file.")


class EditInput(BaseModel):
    path: str = Field(description="File path relative to the repository root.")
    old_text: str = Field(description="Exact text to replace; must occur exactly once.")
    new_text: str = Field(description="Replacement text (may be empty to delete old_text).")


class ListInput(BaseModel):
    glob_pattern: str = Field(description="Glob relative to the root; ** spans directories.")
    offset: int = Field(0, ge=0, description="Index of the first path to show.")
    limit: int = Field(200, ge=1, le=1000, description="How many paths to show.")


class SearchInput(BaseModel):
    glob_pattern: str = Field(description="Which files to search, e.g. **/*.jsonnet.")
    text_query: str = Field(min_length=1, description="Literal text to find (case-sensitive).")
    offset: int = Field(0, ge=0, description="Index of the first match to show.")
    limit: int = Field(200, ge=1, le=1000, description="How many matches to show.")


class DeleteInput(BaseModel):
    path: str = Field(description="File path relative to the repository root.")


def _more(shown_end: int, total: int, unit: str = "") -> str:
    left = total - shown_end
    what = f"{left} more {unit}" if unit else f"{left} more"
    return f" ({what}, use offset={shown_end} to continue)" if left > 0 else ""


def _clip(line: str, width: int) -> str:
    return line if len(line) <= width else f"{line[:width]}… [{len(line) - width} more chars]"


def read_file(ctx: ToolContext, params: ReadInput) -> str:
    path = sandbox.resolve(ctx.root, params.path, protected=ctx.protected_paths)
    lines = sandbox.read_text(path, shown=params.path).splitlines()
    if not lines:
        return f"[{params.path}: empty file (0 lines)]"
    if params.offset >= len(lines):
        raise ToolError(
            f"offset={params.offset} is past the end of {params.path} ({len(lines)} lines); "
            f"use an offset below {len(lines)}"
        )
    body: list[str] = []
    size = 0
    for line in lines[params.offset : params.offset + params.limit]:
        clipped = _clip(line, LINE_CHARS)
        if body and size + len(clipped) > PAGE_CHARS:
            break  # keep the page whole; the header says where to continue
        body.append(clipped)
        size += len(clipped) + 1
    end = params.offset + len(body)
    header = f"[{params.path}: lines {params.offset + 1}{DASH}{end} of {len(lines)}]"
    return header + _more(end, len(lines), "lines") + "\n" + "\n".join(body)


def write_file(ctx: ToolContext, params: WriteInput) -> str:
    path = sandbox.resolve(ctx.root, params.path, for_write=True, protected=ctx.protected_paths)
    data = params.content.encode("utf-8")
    if len(data) > sandbox.MAX_WRITE_BYTES:
        raise ToolError(
            f"content is {len(data)} bytes, over the {sandbox.MAX_WRITE_BYTES}-byte limit "
            "for one write; split the file into smaller ones"
        )
    if path.is_dir():
        raise ToolError(f"{params.path} is a directory; give a file path inside it")
    existed = path.exists()
    _write(path, data, params.path)
    verb = "replaced" if existed else "created"
    return f"{verb} {params.path} ({len(params.content.splitlines())} lines, {len(data)} bytes)"


def _write(path: Path, data: str | bytes, shown: str) -> None:
    """atomic_write, with OS failures told in the model's terms (no absolute paths)."""
    try:
        sandbox.atomic_write(path, data)
    except (FileExistsError, NotADirectoryError):
        raise ToolError(
            f"cannot write {shown}: a parent of it is a file, not a directory; choose another "
            "path (file_list shows what exists)"
        ) from None
    except OSError as exc:
        raise ToolError(f"cannot write {shown}: {exc.strerror or type(exc).__name__}") from None


def edit_file(ctx: ToolContext, params: EditInput) -> str:
    path = sandbox.resolve(ctx.root, params.path, for_write=True, protected=ctx.protected_paths)
    if not params.old_text:
        raise ToolError("old_text is empty; copy the exact text to replace from file_read")
    text = sandbox.read_text(path, shown=params.path)
    count = text.count(params.old_text)
    if count == 0:
        raise ToolError(
            f"old_text was not found in {params.path} (it occurred 0 times); read the file "
            "again and copy the text exactly, including indentation and line breaks"
        )
    if count > 1:
        raise ToolError(
            f"old_text occurred {count} times in {params.path}; it must occur exactly once. "
            "Include more surrounding lines to make it unique"
        )
    start = text.index(params.old_text)
    _write(path, text.replace(params.old_text, params.new_text, 1), params.path)
    first = text.count("\n", 0, start) + 1
    last = first + params.new_text.count("\n")
    return f"edited {params.path}: replaced 1 occurrence (now lines {first}{DASH}{last})"


def delete_file(ctx: ToolContext, params: DeleteInput) -> str:
    entry = sandbox.resolve_entry(ctx.root, params.path, protected=ctx.protected_paths)
    if entry.is_dir() and not entry.is_symlink():
        raise ToolError(
            f"{params.path} is a directory; delete the files in it one by one (file_list "
            f"'{params.path.rstrip('/')}/**' lists them); empty directories disappear by themselves"
        )
    if not entry.exists() and not entry.is_symlink():
        raise ToolError(f"{params.path} does not exist; use file_list to see which files exist")
    entry.unlink()
    _prune_empty_dirs(entry.parent, Path(ctx.root).resolve())
    return f"deleted {params.path}"


def _prune_empty_dirs(directory: Path, root: Path) -> None:
    # git does not track directories; an empty one left behind would only confuse file_list.
    while directory != root and directory.is_relative_to(root) and not any(directory.iterdir()):
        directory.rmdir()
        directory = directory.parent


def _check_pattern(pattern: str) -> str:
    cleaned = pattern.strip()
    if not cleaned:
        raise ToolError("glob_pattern is empty; use e.g. '**/*.jsonnet' or 'environments/**'")
    if cleaned.startswith(("/", "~")) or ".." in cleaned.split("/"):
        raise ToolError(
            f"glob_pattern {pattern!r} refused: patterns are relative to the repository root "
            "and may not contain '..'"
        )
    return cleaned


def walk_files(root: Path) -> Iterator[str]:
    """Every file below `root` (symlinked directories are not followed, .git is skipped), sorted."""
    root = root.resolve()
    for current, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d.casefold() != ".git")
        base = Path(current).relative_to(root)
        for name in sorted(files):
            yield (base / name).as_posix()


def list_files(ctx: ToolContext, params: ListInput) -> str:
    pattern = _check_pattern(params.glob_pattern)
    matches = [rel for rel in walk_files(ctx.root) if sandbox.glob_match(pattern, rel)]
    if not matches:
        return f'[0 files matching "{pattern}"] try a broader pattern such as "**/{pattern}"'
    if params.offset >= len(matches):
        raise ToolError(f"offset={params.offset} is past the {len(matches)} matching files")
    page = matches[params.offset : params.offset + params.limit]
    end = params.offset + len(page)
    header = f'[{params.offset + 1}{DASH}{end} of {len(matches)} files matching "{pattern}"]'
    return header + _more(end, len(matches)) + "\n" + "\n".join(page)


def _search_lines(ctx: ToolContext, pattern: str, query: str) -> tuple[list[str], list[str]]:
    found: list[str] = []
    skipped: list[str] = []
    for rel in walk_files(ctx.root):
        if not sandbox.glob_match(pattern, rel):
            continue
        try:
            path = sandbox.resolve(ctx.root, rel)
            text = sandbox.read_text(path, shown=rel)
        except ToolError:
            skipped.append(rel)  # binary, oversized, or a symlink leading outside
            continue
        for number, line in enumerate(text.splitlines(), start=1):
            if query in line:
                found.append(f"{rel}:{number}: {_clip(line.strip(), MATCH_CHARS)}")
    return found, skipped


def search_files(ctx: ToolContext, params: SearchInput) -> str:
    pattern = _check_pattern(params.glob_pattern)
    found, skipped = _search_lines(ctx, pattern, params.text_query)
    note = f"\n({len(skipped)} binary, oversized or unreadable files skipped)" if skipped else ""
    query = params.text_query
    if not found:
        return f'[0 matches for "{query}" in files matching "{pattern}"]{note}'
    if params.offset >= len(found):
        raise ToolError(f"offset={params.offset} is past the {len(found)} matches")
    page = found[params.offset : params.offset + params.limit]
    end = params.offset + len(page)
    header = f'[{params.offset + 1}{DASH}{end} of {len(found)} matches for "{query}"]'
    return header + _more(end, len(found)) + note + "\n" + "\n".join(page)


TOOLS: list[Tool[Any]] = [
    Tool(
        "file_read",
        "Read a text file of the repository, 500 lines per call at most. The first line of the "
        "result is a header like '[lib/app.libsonnet: lines 1"
        + DASH
        + "500 of 1200] (700 more lines, use "
        "offset=500 to continue)': call again with that offset to read on. Read a file before "
        "editing it. Binary files, files over 8 MB and anything under .git/ are refused.",
        ReadInput,
        read_file,
        page_hint="call file_read again with a later offset or a smaller limit",
    ),
    Tool(
        "file_write",
        "Create a file or replace its whole content (parent directories are created). Prefer "
        "file_edit for changing part of an existing file: it keeps the diff small and reviewable. "
        "Protected paths (such as .github/**) and .git/ cannot be written.",
        WriteInput,
        write_file,
    ),
    Tool(
        "file_edit",
        "Replace one exact piece of text in a file with new text. old_text must occur exactly "
        "once in the file, character for character (indentation and line breaks included): copy "
        "it from file_read and include neighbouring lines if it could occur more than once. To "
        "make several changes, call file_edit once per change.",
        EditInput,
        edit_file,
    ),
    Tool(
        "file_list",
        "List files whose path (relative to the root) matches a glob. '*' stays within one "
        "directory, '**' spans any number of them: 'environments/**/main.jsonnet', "
        "'**/*.libsonnet', 'lib/*'. Results are sorted and paged with a header that says how to "
        "continue (offset=...).",
        ListInput,
        list_files,
        page_hint="call file_list again with an offset or a narrower glob_pattern",
    ),
    Tool(
        "file_search",
        "Find lines containing text_query (literal, case-sensitive) in the files matching "
        "glob_pattern. Each result is 'path:line: text'. Use it to find where a value, image, "
        "resource name or import is defined before reading the file. Paged like file_list.",
        SearchInput,
        search_files,
        page_hint="call file_search again with an offset, a narrower glob or a longer query",
    ),
    Tool(
        "file_delete",
        "Delete one file (or symlink). Directories are not deleted at once: delete their files; "
        "a directory left empty disappears. Protected paths cannot be deleted.",
        DeleteInput,
        delete_file,
    ),
]
