"""The Helm chart, rendered and linted by Helm's engine, every object checked against the
Kubernetes schemas (kubernetes-validate, strict) and against what the image and the bot expect."""

from __future__ import annotations

import copy
import re
from typing import Any

import helm_python as helm
import kubernetes_validate
import pytest
import yaml

from bot.config import Settings
from tests.ship import chart as c
from tests.ship import dockerfile as df
from tests.ship.paths import CHART, DOCKERFILE, SECRET_SETTINGS

# Sentinel secret values: they must reach the Secret and nothing else.
TOKENS = {
    "SLACK_BOT_TOKEN": "dummy-sentinel-bot-token",
    "SLACK_SIGNING_SECRET": "sentinel-signing-secret",
    "ANTHROPIC_API_KEY": "sentinel-anthropic-key",
    "GITHUB_TOKEN": "sentinel-github-token",
    "TANKA_BOT_ALERTS_TOKEN": "sentinel-alerts-token",
}
REDIS_URL = "rediss://:sentinel-redis-password@redis.example.internal:6380/2"
CONFIG = {
    "TANKA_BOT_REPO_URL": "https://github.com/acme/deploy.git",
    "TANKA_BOT_TURN_TIMEOUT": "600",
}

VALUE_SETS: dict[str, dict[str, Any]] = {
    "defaults": {},
    "http-ingress": {
        "secrets": TOKENS,
        "config": CONFIG,
        "ingress": {
            "enabled": True,
            "className": "nginx",
            "host": "bot.example.com",
            "tls": [{"secretName": "bot-tls", "hosts": ["bot.example.com"]}],
        },
        "metrics": {"serviceMonitor": {"enabled": True, "labels": {"release": "prom"}}},
        "networkPolicy": {"enabled": True},
        "settingsFile": {
            "allowed_users": ["S0ENG"],
            "channels": {"C0DEPLOY1": {"repo_url": "x"}},
            "alert_routes": [
                {
                    "match": {"alertname": "KubeContainerOOMKilled"},
                    "channel": "C0DEPLOY1",
                    "instructions": "Propose a fix.",
                }
            ],
        },
    },
    "existing-secret": {"existingSecret": "tanka-bot-tokens", "config": CONFIG},
    "existing-secret-files": {
        "existingSecret": "tanka-bot-tokens",
        "existingSecretKeys": ["SLACK_BOT_TOKEN", "GITHUB_TOKEN", "OPS_TOKEN"],
        "replicaCount": 2,
        "redis": {"existingSecret": "redis-creds", "existingSecretKey": "url"},
    },
    "secrets-as-env": {"secretsAsFiles": False, "secrets": TOKENS, "redis": {"url": REDIS_URL}},
    "socket-mode": {
        "slack": {"socketMode": True},
        "secrets": {"SLACK_BOT_TOKEN": "xoxb-sentinel", "SLACK_APP_TOKEN": "xapp-sentinel"},
        "ingress": {"enabled": True},
    },
    "replicas-redis-url": {"replicaCount": 3, "secrets": TOKENS, "redis": {"url": REDIS_URL}},
    "replicas-redis-existing-secret": {
        "replicaCount": 3,
        "existingSecret": "tanka-bot-tokens",
        "redis": {"existingSecret": "redis-creds", "existingSecretKey": "url"},
    },
    "replicas-bundled-redis": {
        "replicaCount": 2,
        "secrets": TOKENS,
        "redis": {"bundled": {"enabled": True, "password": "sentinel-bundled-pass"}},
        "networkPolicy": {"enabled": True},
    },
    "persistence": {"persistence": {"enabled": True, "storageClass": "fast", "size": "20Gi"}},
    "web-view": {
        "slack": {"socketMode": True},
        "secrets": {
            **TOKENS,
            "TANKA_BOT_OIDC_CLIENT_SECRET": "sentinel-oidc-secret",
            "TANKA_BOT_WEB_SECRET": "sentinel-web-secret-of-32-bytes-or-more",
        },
        "config": {
            **CONFIG,
            "TANKA_BOT_WEB_URL": "https://bot.example.com",
            "TANKA_BOT_OIDC_CLIENT_ID": "1234.5678",
        },
        "webView": {
            "ingress": {
                "enabled": True,
                "host": "bot.example.com",
                "tls": [{"secretName": "web-tls", "hosts": ["bot.example.com"]}],
            }
        },
    },
}

FAILURES: dict[str, tuple[dict[str, Any], str]] = {
    "replicas-without-redis": ({"replicaCount": 3}, "replicaCount is 3 but no Redis is configured"),
    "token-in-configmap": (
        {"config": {"SLACK_BOT_TOKEN": "xoxb-1"}},
        "config.SLACK_BOT_TOKEN is a secret",
    ),
    "redis-url-in-secrets": ({"secrets": {"REDIS_URL": REDIS_URL}}, "set redis.url"),
    "redis-url-in-existing-secret-keys": (
        {"existingSecret": "x", "existingSecretKeys": ["REDIS_URL"]},
        "set redis.existingSecret",
    ),
    "grace-not-above-turn-timeout": (
        {"terminationGracePeriodSeconds": 600},
        "must be longer than TANKA_BOT_TURN_TIMEOUT (600)",
    ),
    "bad-turn-timeout": (
        {"config": {"TANKA_BOT_TURN_TIMEOUT": "ten minutes"}},
        "TANKA_BOT_TURN_TIMEOUT must be a number",
    ),
    "pvc-shared-by-replicas": (
        {"replicaCount": 2, "redis": {"url": REDIS_URL}, "persistence": {"enabled": True}},
        "persistence.enabled gives all replicas one volume",
    ),
    "two-redis-sources": (
        {"redis": {"url": REDIS_URL, "existingSecret": "x"}},
        "only one of redis.url and redis.existingSecret",
    ),
}

SCHEMA_FAILURES: dict[str, tuple[dict[str, Any], str]] = {
    "unknown-field": ({"replicas": 3}, "additional properties 'replicas' not allowed"),
    "replicas-as-text": ({"replicaCount": "3"}, "/replicaCount"),
    "redis-url-scheme": ({"redis": {"url": "http://redis:6379"}}, "/redis/url"),
    "ingress-path": ({"ingress": {"paths": ["slack/events"]}}, "/ingress/paths/0"),
    "secret-not-text": ({"secrets": {"GITHUB_TOKEN": 123}}, "/secrets/GITHUB_TOKEN"),
    "pull-policy": ({"image": {"pullPolicy": "Sometimes"}}, "/image/pullPolicy"),
}

RENDERED = {name: c.render(values) for name, values in VALUE_SETS.items()}
DOCKER = df.parse(DOCKERFILE.read_text())


# -- Helm's own checks ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", VALUE_SETS)
def test_helm_lint_is_clean(name: str) -> None:
    report = helm.lint(CHART, VALUE_SETS[name], strict=True, namespace=c.NAMESPACE)
    assert report["errors"] == []
    # Severity 1 is "info" (e.g. "icon is recommended"); warnings and errors fail.
    assert [m for m in report["messages"] if m["severity"] >= 2] == []


@pytest.mark.parametrize("name", FAILURES)
def test_refused_values_fail_to_render(name: str) -> None:
    values, message = FAILURES[name]
    with pytest.raises(helm.HelmRenderError, match=re.escape(message)):
        c.render(values)


@pytest.mark.parametrize("name", SCHEMA_FAILURES)
def test_values_schema_rejects_bad_values(name: str) -> None:
    values, where = SCHEMA_FAILURES[name]
    with pytest.raises(helm.HelmValuesError, match=re.escape(where)):
        c.render(values)


def test_values_yaml_documents_and_schema_covers_every_field() -> None:
    values = yaml.safe_load((CHART / "values.yaml").read_text())
    schema = c.chart().schema
    assert schema is not None
    assert set(values) <= set(schema["properties"])
    assert schema["additionalProperties"] is False
    # Every top-level field has a comment line right above it (or above its first sub-field).
    lines = (CHART / "values.yaml").read_text().splitlines()
    for key in values:
        n = next(i for i, line in enumerate(lines) if line.startswith(f"{key}:"))
        above = lines[n - 1].strip() if n else ""
        below = lines[n + 1].strip() if n + 1 < len(lines) else ""
        assert above.startswith("#") or below.startswith("#"), f"values.yaml: {key} undocumented"


# -- Kubernetes schemas --------------------------------------------------------------------------


@pytest.mark.parametrize("name", VALUE_SETS)
def test_every_object_is_valid_kubernetes(name: str) -> None:
    version = kubernetes_validate.latest_version()
    for obj in RENDERED[name]:
        if obj["apiVersion"] == "monitoring.coreos.com/v1":
            # A Prometheus Operator CRD, which kubernetes-validate has no schema for.
            assert obj["kind"] == "ServiceMonitor"
            assert set(obj["spec"]) == {"selector", "endpoints"}
            continue
        kubernetes_validate.validate(obj, version, strict=True)


def test_kubernetes_validation_can_fail() -> None:
    deployment = copy.deepcopy(c.bot(RENDERED["defaults"]))
    deployment["spec"]["template"]["spec"]["containers"][0]["livenesProbe"] = {}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, kubernetes_validate.latest_version(), strict=True)


# -- what the objects say ------------------------------------------------------------------------


def test_default_objects() -> None:
    assert c.kinds(RENDERED["defaults"]) == [
        "ConfigMap",
        "Deployment",
        "PodDisruptionBudget",
        "Service",
        "ServiceAccount",
    ]


@pytest.mark.parametrize("name", VALUE_SETS)
def test_every_pod_is_locked_down(name: str) -> None:
    for deployment in [o for o in RENDERED[name] if o["kind"] == "Deployment"]:
        pod = deployment["spec"]["template"]["spec"]
        assert pod["automountServiceAccountToken"] is False
        assert pod["securityContext"]["runAsNonRoot"] is True
        assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
        for ctr in pod["containers"]:
            sc = ctr["securityContext"]
            assert sc["runAsNonRoot"] is True
            assert sc["readOnlyRootFilesystem"] is True
            assert sc["allowPrivilegeEscalation"] is False
            assert sc["capabilities"] == {"drop": ["ALL"]}
            # A read-only root needs every written path to be a volume.
            assert ctr["volumeMounts"]


def test_bot_runs_as_the_image_user_with_its_work_dir() -> None:
    pod = c.bot(RENDERED["defaults"])["spec"]["template"]["spec"]
    image_user = [i.args for i in DOCKER if i.keyword == "USER"][-1]
    uid, _, gid = image_user.partition(":")
    assert pod["securityContext"]["runAsUser"] == int(uid)
    assert pod["securityContext"]["runAsGroup"] == int(gid)
    image_env = " ".join(i.args for i in DOCKER if i.keyword == "ENV")
    workdir = re.search(r"TANKA_BOT_WORKDIR=(\S+)", image_env)
    assert workdir
    ctr = c.container(c.bot(RENDERED["defaults"]))
    mounts = {m["mountPath"]: m["name"] for m in ctr["volumeMounts"]}
    assert mounts[workdir.group(1)] == "workdir"
    assert mounts["/tmp"] == "tmp"
    env = {e["name"]: e.get("value") for e in ctr["env"]}
    assert env["TANKA_BOT_WORKDIR"] == workdir.group(1)
    volumes = {v["name"]: v for v in pod["volumes"]}
    assert "emptyDir" in volumes["workdir"]
    assert "emptyDir" in volumes["tmp"]


def test_persistence_uses_a_claim_and_recreates() -> None:
    objects = RENDERED["persistence"]
    claim = c.one(objects, "PersistentVolumeClaim")
    assert claim["spec"]["storageClassName"] == "fast"
    assert claim["spec"]["resources"]["requests"]["storage"] == "20Gi"
    deployment = c.bot(objects)
    volumes = {v["name"]: v for v in deployment["spec"]["template"]["spec"]["volumes"]}
    assert volumes["workdir"]["persistentVolumeClaim"]["claimName"] == claim["metadata"]["name"]
    assert deployment["spec"]["strategy"] == {"type": "Recreate"}


@pytest.mark.parametrize("name", VALUE_SETS)
def test_probes_hit_health_and_readiness_on_the_served_port(name: str) -> None:
    objects = RENDERED[name]
    ctr = c.container(c.bot(objects))
    ports = {p["name"]: p["containerPort"] for p in ctr["ports"]}
    served = int(ctr["args"][ctr["args"].index("--port") + 1])
    assert ports == {"http": served}
    assert ctr["args"][0] == "serve"
    assert ctr["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "http"}
    assert ctr["startupProbe"]["httpGet"] == {"path": "/healthz", "port": "http"}
    assert ctr["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "http"}
    service = c.one(objects, "Service", f"{c.RELEASE}-tanka-bot")
    assert service["spec"]["ports"][0]["targetPort"] == "http"
    assert service["spec"]["selector"] == c.bot(objects)["spec"]["selector"]["matchLabels"]


def test_grace_period_outlasts_the_turn_timeout() -> None:
    for objects in RENDERED.values():
        pod = c.bot(objects)["spec"]["template"]["spec"]
        assert pod["terminationGracePeriodSeconds"] == 600 + 60
    objects = c.render({"config": {"TANKA_BOT_TURN_TIMEOUT": "1200.5"}})
    assert c.bot(objects)["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] == 1261
    objects = c.render({"terminationGracePeriodSeconds": 900})
    assert c.bot(objects)["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] == 900


def test_config_change_rolls_the_pods_and_other_changes_do_not() -> None:
    def annotations(values: dict[str, Any]) -> dict[str, str]:
        meta = c.bot(c.render(values))["spec"]["template"]["metadata"]
        return dict(meta["annotations"])

    base = annotations({"config": CONFIG, "secrets": TOKENS})
    changed_config = annotations(
        {"config": CONFIG | {"TANKA_BOT_BASE_BRANCH": "release"}, "secrets": TOKENS}
    )
    changed_secret = annotations({"config": CONFIG, "secrets": TOKENS | {"GITHUB_TOKEN": "new"}})
    changed_settings = annotations(
        {"config": CONFIG, "secrets": TOKENS, "settingsFile": {"allowed_users": ["U1"]}}
    )
    unrelated = annotations(
        {"config": CONFIG, "secrets": TOKENS, "resources": {"requests": {"cpu": "1"}}}
    )
    assert changed_config["checksum/config"] != base["checksum/config"]
    assert changed_config["checksum/secret"] == base["checksum/secret"]
    assert changed_secret["checksum/secret"] != base["checksum/secret"]
    assert changed_secret["checksum/config"] == base["checksum/config"]
    assert changed_settings["checksum/config"] != base["checksum/config"]
    assert unrelated == base


@pytest.mark.parametrize("name", VALUE_SETS)
def test_secret_values_appear_only_in_secrets(name: str) -> None:
    values = VALUE_SETS[name]
    sentinels = list((values.get("secrets") or {}).values())
    sentinels += [values.get("redis", {}).get("url", "")]
    sentinels += [values.get("redis", {}).get("bundled", {}).get("password", "")]
    sentinels = [s for s in sentinels if s]
    for obj in RENDERED[name]:
        if obj["kind"] == "Secret":
            continue
        text = yaml.safe_dump(obj)
        for sentinel in sentinels:
            assert sentinel not in text, f"{obj['kind']} {obj['metadata']['name']} holds a secret"
    for configmap in [o for o in RENDERED[name] if o["kind"] == "ConfigMap"]:
        assert not set(configmap.get("data") or {}) & set(SECRET_SETTINGS)


def test_the_chart_knows_every_secret_setting_of_the_bot() -> None:
    """The bot's secrets (SecretStr settings, each readable from NAME_FILE), the chart's list of
    the keys it mounts as files, and this suite's list: one set, so a new secret is never left
    in the pod's environment."""
    bot_secrets = {
        f.alias for f in Settings.model_fields.values()
        if f.alias and "SecretStr" in str(f.annotation)
    }  # fmt: skip
    helpers = (CHART / "templates" / "_helpers.tpl").read_text()
    listed = re.search(r'define "tanka-bot.secretSettings" -}}\n(.*)\n', helpers)
    assert listed is not None
    assert set(listed.group(1).split()) == bot_secrets == set(SECRET_SETTINGS)


def secret_files(objects: list[c.Obj]) -> dict[str, tuple[str, str]]:
    """NAME -> (Secret, key) of every NAME_FILE variable of the bot, through its mounted volume."""
    deployment = c.bot(objects)
    ctr = c.container(deployment)
    mount = next(m for m in ctr["volumeMounts"] if m["name"] == "secrets")
    assert mount["readOnly"] is True
    volume = next(v for v in deployment["spec"]["template"]["spec"]["volumes"]
                  if v["name"] == "secrets")  # fmt: skip
    files = {
        f"{mount['mountPath']}/{item['path']}": (source["secret"]["name"], item["key"])
        for source in volume["projected"]["sources"]
        for item in source["secret"]["items"]
    }
    assert volume["projected"]["defaultMode"] == 0o440
    named = {e["name"].removesuffix("_FILE"): e["value"] for e in ctr["env"]
             if e["name"].endswith("_FILE")}  # fmt: skip
    return {name: files[path] for name, path in named.items()}


def test_tokens_reach_the_pod_as_files_from_the_chart_secret() -> None:
    """The bot reads NAME_FILE: its environment (and /proc/<pid>/environ) holds no token."""
    objects = RENDERED["http-ingress"]
    secret = c.one(objects, "Secret", f"{c.RELEASE}-tanka-bot")
    assert c.secret_data(secret) == TOKENS
    name = secret["metadata"]["name"]
    assert secret_files(objects) == {key: (name, key) for key in TOKENS}
    ctr = c.container(c.bot(objects))
    assert not [e for e in ctr["envFrom"] if "secretRef" in e]
    assert not {e["name"] for e in ctr["env"]} & set(SECRET_SETTINGS)
    configmap = c.one(objects, "ConfigMap", f"{c.RELEASE}-tanka-bot")
    assert {"configMapRef": {"name": configmap["metadata"]["name"]}} in ctr["envFrom"]
    # The chart's defaults merged with the given settings, every value a string.
    assert configmap["data"] == {
        "TANKA_BOT_BASE_BRANCH": "main",
        "TANKA_BOT_PROVIDER": "anthropic",
        **CONFIG,
    }


def test_settings_file_is_mounted_and_named() -> None:
    objects = RENDERED["http-ingress"]
    settings = c.one(objects, "ConfigMap", f"{c.RELEASE}-tanka-bot-settings")
    parsed = yaml.safe_load(settings["data"]["config.yaml"])
    assert parsed == VALUE_SETS["http-ingress"]["settingsFile"]
    ctr = c.container(c.bot(objects))
    env = {e["name"]: e.get("value") for e in ctr["env"]}
    mount = next(m for m in ctr["volumeMounts"] if m["name"] == "settings")
    assert env["TANKA_BOT_CONFIG"] == f"{mount['mountPath']}/config.yaml"
    assert mount["readOnly"] is True


def test_existing_secret_is_used_and_no_token_secret_is_made() -> None:
    objects = RENDERED["existing-secret"]
    assert "Secret" not in c.kinds(objects)
    ctr = c.container(c.bot(objects))
    # Its keys are unknown to the chart: all of them are variables, as before.
    assert {"secretRef": {"name": "tanka-bot-tokens"}} in ctr["envFrom"]


def test_existing_secret_keys_listed_are_files_and_other_keys_variables() -> None:
    objects = RENDERED["existing-secret-files"]
    assert "Secret" not in c.kinds(objects)
    assert secret_files(objects) == {
        "SLACK_BOT_TOKEN": ("tanka-bot-tokens", "SLACK_BOT_TOKEN"),
        "GITHUB_TOKEN": ("tanka-bot-tokens", "GITHUB_TOKEN"),
        "REDIS_URL": ("redis-creds", "url"),
    }
    ctr = c.container(c.bot(objects))
    assert not [e for e in ctr["envFrom"] if "secretRef" in e]
    # A key the bot does not read as a file (an MCP server's ${OPS_TOKEN}) stays a variable.
    ops = next(e for e in ctr["env"] if e["name"] == "OPS_TOKEN")
    assert ops["valueFrom"]["secretKeyRef"] == {"name": "tanka-bot-tokens", "key": "OPS_TOKEN"}
    assert not {e["name"] for e in ctr["env"]} & set(SECRET_SETTINGS)


def test_secrets_as_environment_variables_when_asked() -> None:
    objects = RENDERED["secrets-as-env"]
    ctr = c.container(c.bot(objects))
    assert {"secretRef": {"name": f"{c.RELEASE}-tanka-bot"}} in ctr["envFrom"]
    assert not [m for m in ctr["volumeMounts"] if m["name"] == "secrets"]
    assert not [e for e in ctr["env"] if e["name"].endswith("_FILE")]
    assert redis_env(objects) == {"name": f"{c.RELEASE}-tanka-bot-redis", "key": "REDIS_URL"}


def test_empty_settings_are_left_unset() -> None:
    configmap = c.one(RENDERED["defaults"], "ConfigMap")
    assert "TANKA_BOT_REPO_URL" not in configmap["data"]


def test_ingress_exposes_only_slack_and_github_paths() -> None:
    ingress = c.one(RENDERED["http-ingress"], "Ingress")
    rule = ingress["spec"]["rules"][0]
    assert rule["host"] == "bot.example.com"
    paths = {p["path"]: p for p in rule["http"]["paths"]}
    assert set(paths) == {"/slack/events", "/github/webhook"}
    for path in paths.values():
        assert path["pathType"] == "Exact"
        assert path["backend"]["service"] == {
            "name": f"{c.RELEASE}-tanka-bot",
            "port": {"name": "http"},
        }
    assert ingress["spec"]["ingressClassName"] == "nginx"
    assert ingress["spec"]["tls"][0]["secretName"] == "bot-tls"


def test_the_web_views_ingress_exposes_only_ui_and_its_secrets_stay_secret() -> None:
    objects = RENDERED["web-view"]
    [ingress] = [o for o in objects if o["kind"] == "Ingress"]  # Socket Mode: only the view's
    assert ingress["metadata"]["name"] == f"{c.RELEASE}-tanka-bot-web"
    [path] = ingress["spec"]["rules"][0]["http"]["paths"]
    assert (path["path"], path["pathType"]) == ("/ui/", "Prefix")
    assert "Ingress" not in c.kinds(RENDERED["defaults"])
    names = secret_files(objects)
    assert {"TANKA_BOT_OIDC_CLIENT_SECRET", "TANKA_BOT_WEB_SECRET"} <= set(names)


def test_socket_mode_passes_the_flag_and_needs_no_ingress() -> None:
    objects = RENDERED["socket-mode"]
    assert "Ingress" not in c.kinds(objects)  # even with ingress.enabled
    assert "--socket-mode" in c.container(c.bot(objects))["args"]
    assert "--socket-mode" not in c.container(c.bot(RENDERED["http-ingress"]))["args"]
    assert "Service" in c.kinds(objects)  # probes and metrics still need the port


def redis_env(objects: list[c.Obj]) -> dict[str, Any]:
    """The Secret and key REDIS_URL comes from: a file (REDIS_URL_FILE) or a variable."""
    ctr = c.container(c.bot(objects))
    refs = [e for e in ctr["env"] if e["name"] in ("REDIS_URL", "REDIS_URL_FILE")]
    assert len(refs) == 1
    if refs[0]["name"] == "REDIS_URL_FILE":
        name, key = secret_files(objects)["REDIS_URL"]
        return {"name": name, "key": key}
    ref: dict[str, Any] = refs[0]["valueFrom"]["secretKeyRef"]
    return ref


def test_replicas_with_a_redis_url() -> None:
    objects = RENDERED["replicas-redis-url"]
    assert c.bot(objects)["spec"]["replicas"] == 3
    ref = redis_env(objects)
    secret = c.one(objects, "Secret", ref["name"])
    assert c.secret_data(secret)[ref["key"]] == REDIS_URL
    assert c.one(objects, "PodDisruptionBudget")["spec"]["maxUnavailable"] == 1


def test_replicas_with_a_redis_secret_of_your_own() -> None:
    objects = RENDERED["replicas-redis-existing-secret"]
    assert redis_env(objects) == {"name": "redis-creds", "key": "url"}
    assert "Secret" not in c.kinds(objects)


def test_bundled_redis_is_private_and_only_for_the_bot() -> None:
    objects = RENDERED["replicas-bundled-redis"]
    ref = redis_env(objects)
    redis_secret = c.secret_data(c.one(objects, "Secret", ref["name"]))
    redis_service = c.one(objects, "Service", f"{c.RELEASE}-tanka-bot-redis")
    assert redis_secret[ref["key"]] == (
        f"redis://:sentinel-bundled-pass@{redis_service['metadata']['name']}:6379/0"
    )
    redis = c.one(objects, "Deployment", f"{c.RELEASE}-tanka-bot-redis")
    ctr = c.container(redis)
    assert "$(REDIS_PASSWORD)" in ctr["args"]
    bot_labels = c.bot(objects)["spec"]["selector"]["matchLabels"]
    redis_labels = redis["spec"]["template"]["metadata"]["labels"]
    # The bot's Deployment, Service and PDB must not select the Redis pod.
    assert not all(redis_labels.get(k) == v for k, v in bot_labels.items())
    assert redis_service["spec"]["selector"] == redis["spec"]["selector"]["matchLabels"]
    policy = c.one(objects, "NetworkPolicy", f"{c.RELEASE}-tanka-bot-redis")
    assert policy["spec"]["ingress"][0]["from"] == [{"podSelector": {"matchLabels": bot_labels}}]


def test_network_policy_allows_what_the_bot_needs() -> None:
    policy = c.one(RENDERED["http-ingress"], "NetworkPolicy")
    assert policy["spec"]["policyTypes"] == ["Ingress", "Egress"]
    assert policy["spec"]["ingress"] == [{"ports": [{"port": "http", "protocol": "TCP"}]}]
    egress = {(p["port"], p["protocol"]) for r in policy["spec"]["egress"] for p in r["ports"]}
    assert egress == {(53, "UDP"), (53, "TCP"), (443, "TCP"), (22, "TCP")}
    bundled = c.one(RENDERED["replicas-bundled-redis"], "NetworkPolicy", f"{c.RELEASE}-tanka-bot")
    assert any(p["port"] == 6379 for r in bundled["spec"]["egress"] for p in r["ports"])


def test_service_monitor_scrapes_metrics() -> None:
    monitor = c.one(RENDERED["http-ingress"], "ServiceMonitor")
    assert monitor["metadata"]["labels"]["release"] == "prom"
    assert monitor["spec"]["endpoints"] == [{"port": "http", "path": "/metrics", "interval": "30s"}]
    service = c.one(RENDERED["http-ingress"], "Service")
    assert monitor["spec"]["selector"]["matchLabels"] == service["spec"]["selector"]


def test_notes_tell_the_operator_what_is_missing() -> None:
    notes = c.render_files({})["tanka-bot/templates/NOTES.txt"]
    assert "SLACK_BOT_TOKEN, SLACK_SIGNING_SECRET" in notes
    assert "TANKA_BOT_REPO_URL is empty" in notes
    notes = c.render_files(VALUE_SETS["http-ingress"])["tanka-bot/templates/NOTES.txt"]
    assert "WARNING" not in notes
    assert "https://bot.example.com/slack/events" in notes
    notes = c.render_files(VALUE_SETS["socket-mode"])["tanka-bot/templates/NOTES.txt"]
    assert "Socket Mode" in notes
    assert "WARNING: no value" not in notes


def test_the_readme_values_example_installs() -> None:
    readme = (CHART.parents[1] / "README.md").read_text()
    block = re.search(r"```yaml\n# my-values.yaml\n(.*?)```", readme, re.DOTALL)
    assert block, "README: the my-values.yaml example is gone"
    values = yaml.safe_load(block.group(1))
    objects = c.render(values)
    ctr = c.container(c.bot(objects))
    assert ctr["image"] == "registry.example.com/tanka-bot:0.1.0"
    assert secret_files(objects) == {
        key: ("tanka-bot-tokens", key)
        for key in ("SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "ANTHROPIC_API_KEY", "GITHUB_TOKEN")
    }
    assert not [e for e in ctr["envFrom"] if "secretRef" in e]
    assert c.one(objects, "Ingress")["spec"]["rules"][0]["host"] == "tanka-bot.example.com"
    report = helm.lint(CHART, values, strict=True)
    assert report["errors"] == []
