# tanka-bot container image: `tanka-bot serve` as an unprivileged user.
#
#   docker build -t tanka-bot .
#   docker build -t tanka-bot --build-arg WITH_K8S_TOOLS=true .   # + helm and kustomize
#
# Stages: `build` installs the project into a virtualenv from constraints.txt, `k8s-tools`
# optionally downloads helm and kustomize (checksums pinned below), `runtime` copies both into a
# fresh slim image with git and nothing else from the build.

ARG PYTHON_VERSION=3.11.14
ARG DEBIAN_RELEASE=bookworm

# ---------------------------------------------------------------------------------------------
FROM python:${PYTHON_VERSION}-slim-${DEBIAN_RELEASE} AS build

ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1

# The venv lives at the same path in the runtime stage: its scripts' shebangs are absolute.
RUN python -m venv /opt/tanka-bot
WORKDIR /src

# Dependencies first, from the pinned list, so a code change does not reinstall them.
COPY constraints.txt ./
RUN /opt/tanka-bot/bin/pip install --requirement constraints.txt

COPY pyproject.toml README.md ./
COPY bot ./bot
COPY tools ./tools
# --no-deps: everything came from constraints.txt; `pip check` fails the build if the pins no
# longer satisfy pyproject.toml (refresh constraints.txt as its header says).
RUN /opt/tanka-bot/bin/pip install --no-deps '.[openai]' \
    && /opt/tanka-bot/bin/pip check

# ---------------------------------------------------------------------------------------------
# Tanka's kustomizeBuild runs `kustomize` from PATH; helmTemplate renders with Helm's library
# (helm-python-sdk) and runs `helm` only where that library cannot load. Off by default: most
# repositories need neither, and each adds tens of megabytes.
FROM python:${PYTHON_VERSION}-slim-${DEBIAN_RELEASE} AS k8s-tools

ARG WITH_K8S_TOOLS=false
ARG TARGETARCH=amd64
ARG HELM_VERSION=3.19.0
ARG HELM_SHA256_AMD64=a7f81ce08007091b86d8bd696eb4d86b8d0f2e1b9f6c714be62f82f96a594496
ARG HELM_SHA256_ARM64=440cf7add0aee27ebc93fada965523c1dc2e0ab340d4348da2215737fc0d76ad
ARG KUSTOMIZE_VERSION=5.7.1
ARG KUSTOMIZE_SHA256_AMD64=ea375e7372f9aa029129d4b2d16c66b7750b7f1213c4f66f910d981c895818d8
ARG KUSTOMIZE_SHA256_ARM64=4261a040217df3bd6896597c3986d1465925726e4f22a945304b5233a4dcdbda

# Python's urllib downloads (the slim image has no curl); a checksum mismatch stops the build.
# Changing a *_VERSION means passing its *_SHA256_* too: the release's .sha256sum file has it.
RUN set -eu; mkdir -p /out; \
    if [ "$WITH_K8S_TOOLS" != "true" ]; then exit 0; fi; \
    case "$TARGETARCH" in \
      amd64) helm_sum="$HELM_SHA256_AMD64"; kustomize_sum="$KUSTOMIZE_SHA256_AMD64" ;; \
      arm64) helm_sum="$HELM_SHA256_ARM64"; kustomize_sum="$KUSTOMIZE_SHA256_ARM64" ;; \
      *) echo "no pinned checksums for architecture $TARGETARCH" >&2; exit 1 ;; \
    esac; \
    fetch() { python -c 'import hashlib, sys, urllib.request; url, want, dest = sys.argv[1:]; data = urllib.request.urlopen(url, timeout=300).read(); got = hashlib.sha256(data).hexdigest(); got == want or sys.exit(f"{url}: sha256 {got}, expected {want}"); open(dest, "wb").write(data)' "$@"; }; \
    fetch "https://get.helm.sh/helm-v${HELM_VERSION}-linux-${TARGETARCH}.tar.gz" "$helm_sum" /tmp/helm.tgz; \
    tar -xzf /tmp/helm.tgz -C /tmp "linux-${TARGETARCH}/helm"; \
    install -m 0755 "/tmp/linux-${TARGETARCH}/helm" /out/helm; \
    fetch "https://github.com/kubernetes-sigs/kustomize/releases/download/kustomize%2Fv${KUSTOMIZE_VERSION}/kustomize_v${KUSTOMIZE_VERSION}_linux_${TARGETARCH}.tar.gz" "$kustomize_sum" /tmp/kustomize.tgz; \
    tar -xzf /tmp/kustomize.tgz -C /tmp kustomize; \
    install -m 0755 /tmp/kustomize /out/kustomize; \
    /out/helm version --short; /out/kustomize version

# ---------------------------------------------------------------------------------------------
FROM python:${PYTHON_VERSION}-slim-${DEBIAN_RELEASE} AS runtime

# git: the repo cache, scratch checkouts and pushes. openssh-client: ssh repository URLs.
# tini: PID 1 that forwards SIGTERM to tanka-bot and reaps the zombies of git and worker
# children. Debian package versions are not pinned: security updates must land on rebuild.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates git openssh-client tini \
    && rm -rf /var/lib/apt/lists/*

# A fixed uid/gid so volume ownership and the chart's runAsUser/fsGroup agree.
RUN groupadd --system --gid 10001 tanka-bot \
    && useradd --system --uid 10001 --gid 10001 --home-dir /var/lib/tanka-bot \
       --shell /usr/sbin/nologin tanka-bot \
    && mkdir -p /var/lib/tanka-bot \
    && chown 10001:10001 /var/lib/tanka-bot

COPY --from=build /opt/tanka-bot /opt/tanka-bot
COPY --from=k8s-tools /out/ /usr/local/bin/

ENV PATH=/opt/tanka-bot/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    HOME=/var/lib/tanka-bot \
    TANKA_BOT_WORKDIR=/var/lib/tanka-bot

USER 10001:10001
WORKDIR /var/lib/tanka-bot
VOLUME ["/var/lib/tanka-bot"]
EXPOSE 3000

# Stdlib only (no curl in the image). No proxy: HTTP(S)_PROXY set for Slack or GitHub must not
# catch a request to the container itself. A non-2xx answer raises, which exits non-zero.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import urllib.request as r; r.build_opener(r.ProxyHandler({})).open('http://127.0.0.1:3000/healthz', timeout=4)"]

# Exec form: tini is PID 1 and passes SIGTERM straight to tanka-bot, which stops taking work and
# lets running turns finish (allow TANKA_BOT_TURN_TIMEOUT plus a margin: `docker stop -t 660`).
ENTRYPOINT ["/usr/bin/tini", "--", "tanka-bot"]
CMD ["serve", "--host", "0.0.0.0", "--port", "3000"]
