"""Paths shared by the packaging tests (image, chart, Slack app manifest)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "Dockerfile"
DOCKERIGNORE = ROOT / ".dockerignore"
CONSTRAINTS = ROOT / "constraints.txt"
CHART = ROOT / "charts" / "tanka-bot"
MANIFEST = ROOT / "slack-app-manifest.yaml"
SOCKET_MANIFEST = ROOT / "slack-app-manifest.socket-mode.yaml"

# The secret settings of the README's Configuration table: never baked into an image, never in a
# ConfigMap.
SECRET_SETTINGS = (
    "SLACK_BOT_TOKEN",
    "SLACK_SIGNING_SECRET",
    "SLACK_APP_TOKEN",
    "GITHUB_TOKEN",
    "GITHUB_APP_PRIVATE_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "OPENAI_API_KEY",
    "REDIS_URL",
    "GITHUB_WEBHOOK_SECRET",
    "TANKA_BOT_ALERTS_TOKEN",
    "TANKA_BOT_OIDC_CLIENT_SECRET",
    "TANKA_BOT_WEB_SECRET",
)
