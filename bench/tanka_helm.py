"""helmTemplate render time: Helm's library in-process vs the `helm` binary.

A generated chart renders APPS x (Deployment, Service, ConfigMap) objects (default 12 apps: 36
objects) from a range over values, with a helper template; an environment calls helmTemplate on
it. The binary is the dev extra's helm v3 (the venv's scripts directory), else `helm` on PATH.
Timed, for helmTemplate alone (tools.tanka.natives.exec.helm_template), each way:
* cold: the first call in a fresh Python process (loading Helm's library, or the first exec of
  the binary), median of COLD runs, the process start itself not counted;
* warm: best of ROUNDS later calls in one process;
and the whole environment rendered (evaluation, helmTemplate, tk's processing), in-process.
Run: .venv/bin/python bench/tanka_helm.py [APPS]
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from tools.tanka.env.loader import EvalSettings
from tools.tanka.natives import helm_lib
from tools.tanka.natives.exec import helm_template
from tools.tanka.pipeline.render import render_path

WORK = Path(__file__).parent / ".work" / "tanka_helm"
ROUNDS = 5
COLD = 5
ROOT = Path(__file__).parents[1]
# One helmTemplate call in a fresh interpreter; prints its milliseconds.
COLD_CALL = """
import json, os, sys, time
from tools.tanka.natives.exec import helm_template
chart, opts, confine, library = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
start = time.perf_counter()
helm_template("bench", chart, opts, confine=confine, use_library=library)
print((time.perf_counter() - start) * 1000)
"""

TEMPLATE = """{{- range $i, $app := .Values.apps }}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ $app }}
  labels: {{- include "bench.labels" $ | nindent 4 }}
spec:
  replicas: {{ $.Values.replicas }}
  selector: {matchLabels: {app: {{ $app }}}}
  template:
    metadata: {labels: {app: {{ $app }}}}
    spec:
      containers:
        - name: {{ $app }}
          image: {{ $.Values.image | quote }}
          ports: [{containerPort: 8080, name: http}]
---
apiVersion: v1
kind: Service
metadata: {name: {{ $app }}}
spec:
  selector: {app: {{ $app }}}
  ports: [{port: 80, targetPort: http}]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: {{ $app }}-config}
data:
  index: {{ $i | quote }}
{{- end }}
"""
HELPERS = """{{- define "bench.labels" -}}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}
"""
MAIN = """{
  chart: std.native('helmTemplate')('bench', '../../charts/bench', {
    calledFrom: std.thisFile, namespace: 'bench', values: { apps: %s },
  }),
}
"""


def build(apps: int) -> Path:
    shutil.rmtree(WORK, ignore_errors=True)
    chart = WORK / "charts" / "bench"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: bench\nversion: 0.1.0\n")
    (chart / "values.yaml").write_text("replicas: 2\nimage: nginx:1.27\napps: []\n")
    (chart / "templates" / "apps.yaml").write_text(TEMPLATE)
    (chart / "templates" / "_helpers.tpl").write_text(HELPERS)
    env = WORK / "environments" / "default"
    env.mkdir(parents=True)
    names = json.dumps([f"app-{i}" for i in range(apps)])
    (env / "main.jsonnet").write_text(MAIN % names)
    spec = {
        "apiVersion": "tanka.dev/v1alpha1",
        "kind": "Environment",
        "metadata": {"name": "environments/default"},
        "spec": {"namespace": "bench"},
    }
    (env / "spec.json").write_text(json.dumps(spec))
    (WORK / "jsonnetfile.json").write_text("{}")
    return env


def best(action: Callable[[], object]) -> tuple[float, float, object]:
    """(first call, best of ROUNDS, result): the first includes loading Helm's library."""
    times, result = [], None
    for _ in range(ROUNDS):
        start = time.perf_counter()
        result = action()
        times.append(time.perf_counter() - start)
    return times[0], min(times), result


def helm_binary() -> str | None:
    venv = Path(sys.executable).parent / "helm"
    return str(venv) if venv.exists() else shutil.which("helm")


def cold_ms(opts: str, library: bool, helm: str | None) -> float:
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"} | (
        {"TANKA_HELM_PATH": helm} if helm else {}
    )
    runs = []
    for _ in range(COLD):
        argv = [sys.executable, "-c", COLD_CALL, "../../charts/bench", opts, str(WORK)]
        out = subprocess.run([*argv, "1" if library else "0"], env=env, cwd=ROOT,
                             capture_output=True, text=True, check=True)  # fmt: skip
        runs.append(float(out.stdout))
    return statistics.median(runs)


def main() -> None:
    apps = int(sys.argv[1]) if len(sys.argv) > 1 else 12
    env = build(apps)
    opts = json.dumps({"calledFrom": str(env / "main.jsonnet"), "namespace": "bench",
                       "values": {"apps": [f"app-{i}" for i in range(apps)]}})  # fmt: skip

    def through(library: bool) -> Callable[[], object]:
        return lambda: helm_template(
            "bench", "../../charts/bench", opts, confine=str(WORK), use_library=library
        )

    if not helm_lib.available():
        print("helm-python-sdk is not loadable here: nothing to time in-process")
        return
    helm = helm_binary()
    _, warm, objects = best(through(True))
    count = len(objects) if isinstance(objects, dict) else 0
    print(f"helmTemplate, {count} objects: cold (median of {COLD}) / warm (best of {ROUNDS})")
    cold = cold_ms(opts, True, helm)
    print(f"  in-process (Helm v4 library)  {cold:8.1f} / {warm * 1000:8.1f} ms")
    if helm:
        os.environ["TANKA_HELM_PATH"] = helm
        version = subprocess.run(
            [helm, "version", "--short"], capture_output=True, text=True, check=False
        )
        _, binary, same = best(through(False))
        cold = cold_ms(opts, False, helm)
        label = f"helm binary ({version.stdout.strip() or '?'})"
        print(f"  {label:<29} {cold:8.1f} / {binary * 1000:8.1f} ms")
        print(f"  same objects both ways: {same == objects}")
    else:
        print("  helm binary                   (none in the venv or on PATH: not timed)")
    settings = EvalSettings(confine=WORK)
    first, whole, rendered = best(lambda: render_path(env, settings=settings))
    manifests = getattr(rendered, "manifests", ())
    print(
        f"whole environment, {len(manifests)} objects, in-process (first / best): "
        f"{first * 1000:8.1f} / {whole * 1000:8.1f} ms"
    )


if __name__ == "__main__":
    main()
