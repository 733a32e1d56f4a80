"""go-jsonnet's text for a static error (ErrorFormatter.Format without colour): the error line,
then the line(s) of source it points at."""

from __future__ import annotations

from tools.tanka.source.jsonnet.ast import Location, LocationRange
from tools.tanka.source.jsonnet.errors import StaticError


def _snippet(loc: LocationRange) -> str:
    """The source bytes `loc` covers (columns count bytes), as go-jsonnet's GetSnippet."""
    if loc.begin.line == 0 or loc.file is None:
        return ""
    out: list[bytes] = []
    for line_no in range(loc.begin.line, loc.end.line + 1):
        line = loc.file.lines[line_no - 1].encode("utf-8", "surrogatepass")
        begin = loc.begin.column if line_no == loc.begin.line else 1
        end = loc.end.column if line_no == loc.end.line else len(line)
        out.append(line[begin - 1 : end - 1])
        if line_no != loc.end.line:
            out.append(b"\n")
    return b"".join(out).decode("utf-8", "replace")


def format_static_error(err: StaticError) -> str:
    loc = err.loc
    text = str(err) + "\n"
    if loc.with_code() and loc.file is not None:
        line_end = len(loc.file.lines[loc.end.line - 1].encode("utf-8", "surrogatepass"))
        before = LocationRange(loc.file_name, loc.file, Location(loc.begin.line, 1), loc.begin)
        after = LocationRange(loc.file_name, loc.file, loc.end, Location(loc.end.line, line_end))
        text += "\n" + _snippet(before) + _snippet(loc) + _snippet(after) + "\n"
    return text + "\n"
