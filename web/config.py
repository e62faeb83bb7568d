"""Dashboard settings: the only module in `web/` that reads the environment (and `.env`)."""

from __future__ import annotations

from pydantic import AliasChoices, Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class WebSettings(BaseSettings):
    model_config = SettingsConfigDict(
        env_file=".env", extra="ignore", populate_by_name=True, env_ignore_empty=True
    )

    # The backend API the page starts runs on. The original prototype's Next.js name is
    # accepted too so an old deployment's environment keeps working.
    api_url: str = Field(
        default="http://127.0.0.1:8000",
        validation_alias=AliasChoices("CODREAMER_API_URL", "NEXT_PUBLIC_CODREAMER_API_URL"),
    )
    # The backend's bearer key, when it has one: the dashboard sends it on the runs it
    # starts (the browser never sees it). Same variable as the backend's.
    api_key: str | None = Field(default=None, validation_alias="CODREAMER_API_KEY")
    # Shared with the backend. Either Standard Webhooks' `whsec_<base64>` or any raw string.
    webhook_secret: str | None = Field(default=None, validation_alias="CODREAMER_WEBHOOK_SECRET")
    webhook_tolerance_s: int = Field(
        default=300, ge=1, validation_alias="CODREAMER_WEBHOOK_TOLERANCE_S"
    )
    # The floor of the request and webhook size caps: the backend's GET /limits raises
    # them to what it accepts and sends (web/sizes.py).
    max_body_bytes: int = Field(
        default=1_000_000, ge=1024, validation_alias="CODREAMER_WEB_MAX_BODY_BYTES"
    )
    host: str = Field(default="127.0.0.1", validation_alias="CODREAMER_WEB_HOST")
    port: int = Field(default=3000, ge=1, le=65535, validation_alias="CODREAMER_WEB_PORT")
    # Backend calls made while rendering must never hang the page.
    api_timeout_s: float = Field(default=5.0, gt=0, validation_alias="CODREAMER_WEB_API_TIMEOUT")
    # How many webhook-ids are remembered for de-duplication (oldest forgotten first).
    dedupe_capacity: int = Field(
        default=10_000, ge=1, validation_alias="CODREAMER_WEB_DEDUPE_CAPACITY"
    )

    # The dashboard's own credential. When set, or when the backend has a key, every page
    # read and every write except the webhook receiver needs a session cookie, which
    # `POST /api/login` with this password gives.
    password: str | None = Field(default=None, validation_alias="CODREAMER_WEB_PASSWORD")
    # Signs session cookies. Unset: derived from the password, so changing the password
    # signs everyone out and sessions survive a restart.
    session_secret: str | None = Field(
        default=None, validation_alias="CODREAMER_WEB_SESSION_SECRET"
    )
    session_hours: float = Field(
        default=12.0, gt=0, le=24 * 30, validation_alias="CODREAMER_WEB_SESSION_HOURS"
    )
    # Other origins allowed to write (comma-separated, e.g. `https://ops.example`); the
    # dashboard's own origin always is.
    allowed_origins: str = Field(default="", validation_alias="CODREAMER_WEB_ALLOWED_ORIGINS")
    # Host names the dashboard answers to (comma-separated, `*` for any); the loopback
    # names, the public URL's host and a specific bind address always are. A foreign
    # Host (DNS rebinding) gets 400. Same variable as the backend's.
    allowed_hosts: str | None = Field(default=None, validation_alias="CODREAMER_ALLOWED_HOSTS")
    # The dashboard's own public URL (e.g. https://dash.example): its origin may write.
    public_url: str | None = Field(default=None, validation_alias="CODREAMER_WEB_PUBLIC_URL")
    # Request-head and slow-request limits; the same variables as the backend's.
    max_header_bytes: int = Field(
        default=32 * 1024, ge=1024, validation_alias="CODREAMER_MAX_HEADER_BYTES"
    )
    max_headers: int = Field(default=100, ge=8, validation_alias="CODREAMER_MAX_HEADERS")
    header_timeout_s: float = Field(default=10.0, gt=0, validation_alias="CODREAMER_HEADER_TIMEOUT")
    body_timeout_s: float = Field(default=60.0, gt=0, validation_alias="CODREAMER_BODY_TIMEOUT")

    @property
    def auth_required(self) -> bool:
        """A protected backend must never be reachable through an open dashboard."""
        return bool(self.password or self.api_key)

    @property
    def extra_origins(self) -> frozenset[str]:
        return frozenset(
            o.strip().rstrip("/").lower() for o in self.allowed_origins.split(",") if o.strip()
        )

    @field_validator("api_url")
    @classmethod
    def _strip_slash(cls, v: str) -> str:
        return v.rstrip("/")

    @field_validator("webhook_secret", "password", "session_secret", "api_key")
    @classmethod
    def _empty_is_none(cls, v: str | None) -> str | None:
        # `CODREAMER_WEBHOOK_SECRET=` in a .env means "no secret", not "an empty key".
        return v or None
