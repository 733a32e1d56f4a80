"""What the web view needs from the settings (bot.config.Settings), read once here."""

from __future__ import annotations

from dataclasses import dataclass

from bot.config import Settings

DAY = 86_400.0


@dataclass(frozen=True, slots=True)
class WebConfig:
    base_url: str  # https://tanka-bot.example.com, no trailing slash
    issuer: str
    client_id: str
    client_secret: str
    secret: str  # signs the cookies
    admins: tuple[str, ...]  # users and groups who see every channel
    history_days: float

    @property
    def redirect_uri(self) -> str:
        return f"{self.base_url}/ui/callback"

    @property
    def secure(self) -> bool:
        """Cookies are Secure when the view is served over https."""
        return self.base_url.startswith("https://")


def web_config(settings: Settings) -> WebConfig | None:
    """The view's settings; None when TANKA_BOT_WEB_URL is unset (/ui/ answers 404).
    `Settings.missing_for_web` has refused incomplete ones before this is asked."""
    if not settings.web_url or settings.oidc_client_secret is None or settings.web_secret is None:
        return None
    return WebConfig(
        base_url=settings.web_url,
        issuer=settings.oidc_issuer.rstrip("/"),
        client_id=settings.oidc_client_id or "",
        client_secret=settings.oidc_client_secret.get_secret_value(),
        secret=settings.web_secret.get_secret_value(),
        admins=settings.teams.admins,
        history_days=settings.history_days,
    )
