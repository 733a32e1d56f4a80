"""Static and inline environments: listing, selection, loading, tk's output and error texts."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from tools.tanka.env.loader import (
    EvalSettings,
    find_envs,
    format_env_list,
    list_environments,
    load_environment,
    load_environments,
)
from tools.tanka.errors import (
    JsonnetError,
    MultipleEnvsError,
    NoMatchingEnvError,
    ParallelError,
    SpecError,
    TankaError,
)
from tools.tanka.evaluation.pool import EvalPool

# Every test here runs on go-jsonnet and on jrsonnet (conftest.py).
pytestmark = pytest.mark.usefixtures("evaluator")

FIXTURES = Path(__file__).parents[2] / "fixtures" / "tanka"
STATIC = FIXTURES / "static"
INLINE = FIXTURES / "inline"


@pytest.fixture(scope="module")
def settings() -> Iterator[EvalSettings]:
    pool = EvalPool(size=2)
    yield EvalSettings(pool=pool)
    pool.close()


def test_static_environment_loads_with_tk_env_and_jpath(settings: EvalSettings) -> None:
    loaded = load_environment(STATIC / "environments" / "prod" / "nested", settings=settings)
    env = loaded.env
    assert (env.name, env.namespace, env.api_server) == (
        "environments/prod", "prod", "https://127.0.0.1:6443"
    )  # fmt: skip
    assert env.path == "environments/prod"
    assert env.labels == {"team": "infra"}
    data = loaded.data["config"]["data"]
    assert data["env"] == "environments/prod"  # tk.env sees the directory name, not spec's
    assert data["namespace"] == "environments/prod/main.jsonnet"
    assert data["server"] == "https://127.0.0.1:6443"
    assert data["which"] == "lib"
    assert data["helper"] == "hello"
    assert data["vendored"] == "root-vendor"
    assert data["digest"] == hashlib.sha256(b"tanka").hexdigest()


def test_env_list_table_and_json_are_tk_bytes(settings: EvalSettings) -> None:
    envs = list_environments(STATIC, settings=settings)
    assert format_env_list(envs) == (
        "NAME                 NAMESPACE    SERVER                    \n"
        "environments/prod    prod         https://127.0.0.1:6443    \n"
    )
    assert format_env_list(envs, json=True) == (
        '[{"apiVersion":"tanka.dev/v1alpha1","kind":"Environment","metadata":{"name":'
        '"environments/prod","namespace":"environments/prod/main.jsonnet","labels":{"team":'
        '"infra"}},"spec":{"apiServer":"https://127.0.0.1:6443","namespace":"prod",'
        '"injectLabels":true,"resourceDefaults":{},"expectVersions":{}}}]\n'
    )
    assert format_env_list([], json=True) == "null\n"


def test_inline_listing_hides_data_and_ignores_other_resources(settings: EvalSettings) -> None:
    envs = list_environments(INLINE, settings=settings)
    assert [(e.name, e.namespace, e.inline) for e in envs] == [
        ("app-dev", "app", True),
        ("app-dev-canary", "canary", True),
    ]
    assert all(e.data is None for e in envs)
    assert envs[0].metadata_namespace == "environments/multi/main.jsonnet"


def test_inline_selection_prefers_exact_name(settings: EvalSettings) -> None:
    loaded = load_environment(INLINE / "environments" / "multi", name="app-dev", settings=settings)
    assert loaded.env.name == "app-dev"
    assert loaded.data == {
        "cm": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm-app-dev"}}
    }
    canary = load_environment(INLINE / "environments" / "multi", name="canary", settings=settings)
    assert canary.env.namespace == "canary"


def test_inline_tlas_are_forwarded_by_name(settings: EvalSettings) -> None:
    prod = EvalSettings(tlas={"cluster": "'prod'"}, pool=settings.pool)
    names = [e.name for e in list_environments(INLINE, settings=prod)]
    assert names == ["app-prod", "app-prod-canary"]


def test_ambiguous_and_missing_names_use_tk_texts(settings: EvalSettings) -> None:
    path = INLINE / "environments" / "multi"
    with pytest.raises(MultipleEnvsError) as info:
        load_environment(path, settings=settings)
    assert str(info.value) == (
        f'found multiple Environments in "{path}". Use `--name` to select a single one: '
        "\n - app-dev\n - app-dev-canary"
    )
    with pytest.raises(NoMatchingEnvError, match="found no matching environments; run 'tk env"):
        load_environment(path, name="nothing", settings=settings)


def _project(tmp_path: Path, main: str, spec: str | None = None) -> Path:
    env = tmp_path / "environments" / "e"
    env.mkdir(parents=True)
    (tmp_path / "jsonnetfile.json").write_text("{}")
    (env / "main.jsonnet").write_text(main)
    if spec is not None:
        (env / "spec.json").write_text(spec)
    return env


def test_invalid_spec_json_fails_with_tk_text(tmp_path: Path, settings: EvalSettings) -> None:
    env = _project(tmp_path, "{}", spec='{"spec": {"namespace": 3}}')
    with pytest.raises(SpecError, match="cannot unmarshal number into Go struct field"):
        load_environment(env, settings=settings)
    with pytest.raises(ParallelError) as info:
        list_environments(tmp_path, settings=settings)
    assert str(info.value).startswith(
        f"Errors occurred during parallel processing:\n\n- {env}/main.jsonnet:\n parsing spec.json"
    )


def test_non_manifest_output_is_refused(tmp_path: Path, settings: EvalSettings) -> None:
    env = _project(tmp_path, "{ a: 'just a string' }")
    with pytest.raises(TankaError):
        load_environment(env, settings=settings)


def test_jsonnet_error_in_static_env_is_prefixed_like_tk(
    tmp_path: Path, settings: EvalSettings
) -> None:
    env = _project(tmp_path, "{ a: error 'nope' }", spec="{}")
    with pytest.raises(JsonnetError, match=r"^evaluating jsonnet: RUNTIME ERROR: nope"):
        load_environment(env, settings=settings)


def test_inline_env_cannot_read_tk_env(tmp_path: Path, settings: EvalSettings) -> None:
    env = _project(
        tmp_path,
        "{ apiVersion: 'tanka.dev/v1alpha1', kind: 'Environment', "
        "metadata: { name: (import 'tk').env.metadata.name }, spec: {} }",
    )
    with pytest.raises(JsonnetError, match="only supported for static environments"):
        load_environment(env, settings=settings)


def test_find_envs_walks_everything_including_vendor(tmp_path: Path) -> None:
    for rel in ("a/main.jsonnet", "vendor/x/main.jsonnet", "b/other.jsonnet"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("{}")
    (tmp_path / "link").symlink_to(tmp_path / "a")
    found = [p.relative_to(tmp_path).as_posix() for p in find_envs(tmp_path)]
    assert found == ["a/main.jsonnet", "vendor/x/main.jsonnet"]


def test_load_environments_in_parallel_keeps_order_and_errors(
    tmp_path: Path, settings: EvalSettings
) -> None:
    good = STATIC / "environments" / "prod"
    bad = _project(tmp_path, "{ a: error 'x' }", spec="{}")
    results = load_environments([good, bad, good], settings=settings)
    assert [type(r).__name__ for r in results] == [
        "LoadedEnvironment", "JsonnetError", "LoadedEnvironment"
    ]  # fmt: skip


def test_missing_path_is_used_as_a_name(
    settings: EvalSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(INLINE / "environments" / "multi")
    loaded = load_environment("app-dev-canary", settings=settings)
    assert loaded.env.name == "app-dev-canary"
