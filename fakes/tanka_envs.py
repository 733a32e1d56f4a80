"""A Tanka project of environments generated from one library, for tests and benchmarks.

`write_project(root, envs, variants)` writes a library (lib/app.libsonnet: a Deployment, a
Service, a ConfigMap and a Secret) and `envs` static environments using it, as a repository
that stamps out one environment per cell or tenant does: each environment has a namespace of its
own (`tenant-<i>`), an API server of its own, and its objects name both. Environment i is of
variant `i % variants`: the variant picks its replicas, memory limit and tier, so a library change
touching those reads differently per variant, and one touching only the image reads the same in
every environment but for each environment's own values (tools/tanka/diff/groups.py).

The library builds its strings with `+`, not `%`: go-jsonnet implements `%` (std.format) in
Jsonnet, at about a millisecond a call on this project's 2-core machines, so a library
formatting 80 strings per environment measures go-jsonnet's formatter rather than the tool
evaluating it (tk pays the same). The output is the same either way.
"""

from __future__ import annotations

from pathlib import Path

LIBRARY = """{
  // `env`: the environment's name; `ns`: its namespace; `variant`: 0-3, its size.
  app(env, ns, variant=0):: {
    deployment: {
      apiVersion: 'apps/v1', kind: 'Deployment',
      metadata: { name: 'web', labels: { app: 'web', env: env } },
      spec: {
        replicas: [1, 2, 3, 5][variant],
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{
            name: 'web', image: 'nginx:1.25', ports: [{ containerPort: 80 }],
            env: [{ name: 'VAR_' + i, value: std.toString(i) } for i in std.range(1, 20)]
                 + [{ name: 'NAMESPACE', value: ns }, { name: 'CLUSTER', value: env }],
            resources: { limits: { memory: ['256Mi', '512Mi', '1Gi', '2Gi'][variant] } },
          }] },
        },
      },
    },
    service: {
      apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' },
      spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 80 }] },
    },
    config: {
      apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web-config' },
      data: { url: 'https://web.' + ns + '.svc:8080/', tier: ['a', 'b', 'c', 'd'][variant] }
            + { ['key' + i]: 'value ' + i + ' for ' + ns for i in std.range(1, 30) },
    },
    secret: {
      apiVersion: 'v1', kind: 'Secret', metadata: { name: 'web-secret' },
      data: { password: std.base64('secret-' + ns) },
    },
  },
}
"""
# What the library's variants have of their own, as a change would edit them.
MEMORY = "['256Mi', '512Mi', '1Gi', '2Gi']"


def env_dir(i: int) -> str:
    """Environment i's directory, relative to the project."""
    return f"environments/cell-{i:04d}"


def namespace(i: int) -> str:
    return f"tenant-{i}"


def main_jsonnet(i: int, variants: int = 1, extra: str = "") -> str:
    """Environment i's main.jsonnet; `extra` is Jsonnet added to its object (`+ {...}`)."""
    name = env_dir(i).rsplit("/", 1)[-1]
    call = f"(import 'app.libsonnet').app('{name}', '{namespace(i)}', {i % variants})"
    return f"{call}{' + ' + extra if extra else ''}\n"


def write_project(root: Path, envs: int, variants: int = 1) -> None:
    """The library and `envs` environments using it, written under `root`."""
    (root / "lib").mkdir(parents=True)
    (root / "jsonnetfile.json").write_text("{}\n")
    (root / "lib" / "app.libsonnet").write_text(LIBRARY)
    for i in range(envs):
        env = root / env_dir(i)
        env.mkdir(parents=True)
        name = env_dir(i).rsplit("/", 1)[-1]
        (env / "spec.json").write_text(
            '{"apiVersion": "tanka.dev/v1alpha1", "kind": "Environment", '
            f'"metadata": {{"name": "{env_dir(i)}"}}, '
            f'"spec": {{"apiServer": "https://{name}.k8s.example.com", '
            f'"namespace": "{namespace(i)}"}}}}\n'
        )
        (env / "main.jsonnet").write_text(main_jsonnet(i, variants))
