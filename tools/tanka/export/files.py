"""`tk export`: one YAML file per manifest, named by the --format template, plus manifest.json.

Naming follows pkg/tanka/export.go: every `/` outside `{{ }}` in the format is a directory
separator (tk swaps it for BEL before executing the template), every `/` produced by a value
becomes `-` (`apps/v1` -> `apps-v1`), and the extension is appended. An existing file stops the
export (`file '<path>' already exists. Aborting`), which is also how two resources with the same
name are reported. manifest.json maps each written file to its environment's entrypoint path,
merged with an existing one, 4-space indented, sorted, without a final newline.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tools.tanka.errors import TankaError
from tools.tanka.export import DEFAULT_EXTENSION, DEFAULT_FORMAT
from tools.tanka.export.template import render_template
from tools.tanka.gojson import decode as go_decode
from tools.tanka.gojson.encode import go_string
from tools.tanka.goyaml.emit import dump_yaml

if TYPE_CHECKING:
    from tools.tanka.env.spec import Environment

MANIFEST_FILE = "manifest.json"
_BEL = "\a"

Manifest = Mapping[str, Any]
ExportJob = tuple["Environment", Sequence[Manifest]]


def diff_key(manifest: Manifest) -> tuple[str, str, str, str]:
    """(apiVersion, kind, namespace, name or generateName): a resource's identity for diffs."""
    metadata = manifest.get("metadata")
    meta: Mapping[str, Any] = metadata if isinstance(metadata, Mapping) else {}

    def text(value: Any) -> str:
        return value if isinstance(value, str) else ""

    name = text(meta.get("name")) or text(meta.get("generateName"))
    return (
        text(manifest.get("apiVersion")),
        text(manifest.get("kind")),
        text(meta.get("namespace")),
        name,
    )


def _protect_slashes(format_: str) -> str:
    """tk's replaceTmplText: `/` in the literal text (not inside actions) becomes BEL."""
    parts: list[str] = []
    rest = format_
    while "{{" in rest and "}}" in rest and rest.index("{{") < rest.index("}}") + 2:
        left, right = rest.index("{{"), rest.index("}}") + 2
        parts += [rest[:left].replace("/", _BEL), rest[left:right]]
        rest = rest[right:]
    parts.append(rest.replace("/", _BEL))
    return "".join(parts)


def file_name(manifest: Manifest, format_: str, env_fields: Mapping[str, Any]) -> str:
    """The relative file name (without extension) tk gives `manifest`."""
    rendered = render_template(_protect_slashes(format_), manifest, env_fields)
    return rendered.replace("/", "-").replace(_BEL, "/")


def ensure_dir(out_dir: Path) -> bool:
    """tk's dirEmpty: create a missing output directory; whether it is empty."""
    if not out_dir.exists():
        out_dir.mkdir(parents=True)
        return True
    return not any(out_dir.iterdir())


def _check_target(out_dir: Path) -> None:
    if not ensure_dir(out_dir):
        raise TankaError(
            f"output dir `{out_dir}` not empty. Pass a different --merge-strategy to ignore this"
        )


def _write(path: Path, data: str) -> None:
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    path.write_text(data, encoding="utf-8")
    os.chmod(path, 0o644)


def export_env(
    out_dir: Path, env: Environment, manifests: Sequence[Manifest], format_: str, extension: str
) -> dict[str, str]:
    """Write one environment's files; relative path -> entrypoint path, for manifest.json."""
    written: dict[str, str] = {}
    if not manifests:
        return written
    env_fields = env.to_go_dict(with_data=False)
    for manifest in manifests:
        relative = f"{file_name(manifest, format_, env_fields)}.{extension}"
        path = out_dir / relative
        if path.exists():
            raise TankaError(f"file '{path}' already exists. Aborting")
        _write(path, dump_yaml(manifest))
        written[relative] = env.metadata_namespace
    return written


def read_manifest_json(out_dir: Path) -> dict[str, str] | None:
    """<out>/manifest.json as a map (file -> entrypoint path), None when there is none."""
    path = out_dir / MANIFEST_FILE
    if not path.exists():
        return None
    try:
        value = go_decode.loads(path.read_bytes())
    except go_decode.GoJsonError as exc:
        raise TankaError(str(exc)) from None
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise TankaError("json: cannot unmarshal into Go value of type map[string]string")
    return {str(k): v for k, v in value.items()}


def update_manifest_json(
    out_dir: Path, files: Mapping[str, str], deleted: Sequence[str] = ()
) -> None:
    """tk's exportManifestFile: merge `files` into <out>/manifest.json and drop `deleted`;
    Go's MarshalIndent (4 spaces, sorted keys), no final newline. Nothing to do: no write."""
    if not files and not deleted:
        return
    try:
        current = read_manifest_json(out_dir) or {}
    except TankaError as exc:
        raise TankaError(f"unmarshalling existing manifest file: {exc}") from None
    current.update(files)
    for key in deleted:
        current.pop(key, None)
    if not current:
        body = "{}"
    else:
        rows = (f"    {go_string(k)}: {go_string(current[k])}" for k in sorted(current))
        body = "{\n" + ",\n".join(rows) + "\n}"
    _write(out_dir / MANIFEST_FILE, body)


def write_manifest_json(out_dir: Path, files: Mapping[str, str]) -> None:
    """Merge `files` into <out>/manifest.json (Go MarshalIndent, 4 spaces, no final newline)."""
    update_manifest_json(out_dir, files)


def write_export(
    out_dir: Path,
    jobs: Sequence[ExportJob],
    *,
    format: str = DEFAULT_FORMAT,  # tk's flag name
    extension: str = DEFAULT_EXTENSION,
    skip_manifest: bool = False,
) -> list[Path]:
    """`tk export` for already processed environments; returns the files written, in order."""
    _check_target(out_dir)
    files: dict[str, str] = {}
    for env, manifests in jobs:
        files.update(export_env(out_dir, env, manifests, format, extension))
    if not skip_manifest:
        write_manifest_json(out_dir, files)
    return [out_dir / relative for relative in files]
