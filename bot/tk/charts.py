"""`tanka-bot tk tool charts status`: the charts chartfile.yaml requires against what is vendored.

Read-only and offline: tk's `tool charts vendor`, `add` and `version-check` reach Helm
repositories over the network, which tanka-bot does not do, so they are not here; `status` says
which of them to run. Exit status 1 when a required chart is missing or at another version.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from tools.tanka import chartfile as cf


def run_status(args: argparse.Namespace) -> int:
    path = Path(args.path) / cf.FILENAME
    if not path.is_file():
        raise cf.ChartfileError(
            f"{path}: no such file; `tk tool charts init` creates one (run where it should be)"
        )
    chartfile = cf.load(path)
    rows = cf.vendored(chartfile)
    out = sys.stdout
    out.write(f"{path}: {len(rows)} chart(s) required into {chartfile.directory}/\n")
    for row in rows:
        where = os.path.relpath(row.path, path.parent)
        if row.ok:
            state = "ok"
        elif row.found:
            state = f"vendored {row.found}"
        else:
            state = "missing"
        out.write(f"  {state:<20} {row.requirement!s:<40} {where}\n")
    for name in cf.unrequired(chartfile):
        out.write(f"  {'not required':<20} {'':<40} {chartfile.directory}/{name}\n")
    bad = [row for row in rows if not row.ok]
    if bad:
        out.write(
            f"{len(bad)} chart(s) not as required: run `{cf.VENDOR_COMMAND}` in "
            f"{path.parent} (it downloads them; tanka-bot does not)\n"
        )
        return 1
    return 0
