"""Time to check every object of a large rendered environment: schemas (strict) and policies.

A generated repository has one environment rendering N objects (default 500: Deployments with
probes and resources, Services, ConfigMaps, Secrets, and a CRD that stays unchecked) and two
policy files (a deny, a warn, a `main.deployment` rule). The environment is rendered once; then
`check_manifests` is timed on its objects:
* cold: the first check in this process (schema definitions loaded, validators built, policies
  compiled),
* warm: the same check again (what every later check of a session or CI run pays),
and, as the anchor, bare `kubernetes_validate.validate(obj, version, strict=True)` per object on
a sample of the same objects. Target (issue 8): warm under 0.5 s for 500 objects.
Run: .venv/bin/python bench/tanka_check.py [OBJECTS]
"""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path

import kubernetes_validate

from tools.tanka.check.policy import PolicySet
from tools.tanka.check.run import check_manifests, render
from tools.tanka.check.schema import SchemaCatalog
from tools.tanka.env.loader import EvalSettings

WORK = Path(__file__).parent / ".work" / "tanka_check"
SAMPLE = 40  # objects given to bare kubernetes-validate (about 20 ms each)

MAIN = """local n = %(apps)d;
local app(i) = {
  local name = 'app-%%d' %% i,
  deployment: {
    apiVersion: 'apps/v1', kind: 'Deployment',
    metadata: { name: name, labels: { app: name, team: 'core' } },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          securityContext: { runAsNonRoot: true },
          containers: [{
            name: name, image: 'nginx:1.25', ports: [{ containerPort: 80, name: 'http' }],
            env: [{ name: 'VAR_%%d' %% j, value: std.toString(j) } for j in std.range(1, 10)],
            resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { memory: '128Mi' } },
            readinessProbe: { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 5 },
          }],
        },
      },
    },
  },
  service: {
    apiVersion: 'v1', kind: 'Service', metadata: { name: name },
    spec: { selector: { app: name }, ports: [{ port: 80, targetPort: 'http' }] },
  },
  config: {
    apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: name + '-config' },
    data: { ['key%%d' %% j]: 'value %%d' %% j for j in std.range(1, 20) },
  },
  secret: {
    apiVersion: 'v1', kind: 'Secret', metadata: { name: name + '-secret' },
    data: { password: std.base64('secret-%%d' %% i) },
  },
  monitor: {
    apiVersion: 'monitoring.coreos.com/v1', kind: 'ServiceMonitor', metadata: { name: name },
    spec: { selector: { matchLabels: { app: name } } },
  },
};
{ ['app%%d' %% i]: app(i) for i in std.range(1, n) }
"""

POLICY = """package main

deny contains msg if {
  input.kind == "Deployment"
  not input.spec.template.spec.securityContext.runAsNonRoot
  msg := sprintf("%s must run as non-root", [input.metadata.name])
}

warn contains msg if {
  not input.metadata.labels.team
  input.kind == "Deployment"
  msg := sprintf("%s has no team label", [input.metadata.name])
}
"""

KIND_POLICY = """package main.deployment

deny contains msg if {
  data.tanka.environment.spec.namespace == "prod"
  input.spec.replicas < 2
  msg := "prod needs 2 replicas"
}
"""


def build(objects: int) -> Path:
    shutil.rmtree(WORK, ignore_errors=True)
    env = WORK / "environments" / "big"
    env.mkdir(parents=True)
    (WORK / "jsonnetfile.json").write_text("{}\n")
    (env / "spec.json").write_text(
        '{"apiVersion": "tanka.dev/v1alpha1", "kind": "Environment", '
        '"metadata": {"name": "environments/big"}, "spec": {"namespace": "prod"}}\n'
    )
    (env / "main.jsonnet").write_text(MAIN % {"apps": max(1, objects // 5)})
    (WORK / "policy").mkdir()
    (WORK / "policy" / "main.rego").write_text(POLICY)
    (WORK / "policy" / "deployment.rego").write_text(KIND_POLICY)
    return WORK


def main() -> None:
    objects = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    root = build(objects).resolve()
    started = time.perf_counter()
    (env,) = render(root, root / "environments/big/main.jsonnet", EvalSettings(confine=root))
    render_s = time.perf_counter() - started
    assert env.env is not None, env.error
    manifests = env.manifests
    environment = env.env.to_go_dict(with_data=False)
    policies = PolicySet.load(root, "policy")

    def check() -> float:
        started = time.perf_counter()
        catalog = SchemaCatalog()
        compiled = policies.compile(environment, env.path)
        result, findings = check_manifests(env.label, manifests, catalog, compiled)
        assert result.invalid == 0, [f.line() for f in findings if f.level == "error"]
        return time.perf_counter() - started

    cold = check()
    warm = min(check() for _ in range(5))
    sample = [dict(m) for m in manifests if m["kind"] != "ServiceMonitor"][:SAMPLE]
    version = SchemaCatalog().version
    started = time.perf_counter()
    for manifest in sample:
        kubernetes_validate.validate(manifest, version, strict=True)
    bare = (time.perf_counter() - started) / len(sample)
    count = len(manifests)
    print(f"rendered {count} objects in {render_s:.2f} s (not part of the check)")
    print(f"check cold: {cold:.3f} s ({cold / count * 1000:.2f} ms/object)")
    print(f"check warm: {warm:.3f} s ({warm / count * 1000:.2f} ms/object)  target < 0.5 s")
    print(
        f"bare kubernetes-validate: {bare * 1000:.2f} ms/object "
        f"({bare * count:.1f} s for {count} objects; schema only, first error only)"
    )


if __name__ == "__main__":
    main()
