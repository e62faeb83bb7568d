"""Checks every write and every forwarded run id passes before anything else happens.

* A write (`POST`) must come from this dashboard's own page or from a client that is
  not a browser: a foreign page's `fetch` carries its `Origin` (or `Sec-Fetch-Site:
  cross-site`), and is refused. The body must be declared JSON: a `text/plain` or
  form post, which a browser sends cross-site without asking, is refused too.
* A run id is checked before it goes into a backend URL path, so `.`, `..`, `%2F`
  or a trailing newline can never address another backend route.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from fastapi import HTTPException, Request

from web.config import WebSettings
from web.edge import allowed_host_set, host_allowed

# What the backend makes (`run-`/`api-` + timestamp + hex), and a little more for
# other senders' ids; ASCII only, anchored at both ends (fullmatch; `$` would let a
# trailing newline through).
RUN_ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}", re.ASCII)
_DEFAULT_PORTS = {"http": "80", "https": "443"}
_BROWSER_CROSS_SITE = {"cross-site", "same-site"}


def check_run_id(run_id: str) -> str:
    if not RUN_ID_RE.fullmatch(run_id):
        raise HTTPException(
            422,
            "invalid run id: expected letters, digits, '-' or '_' (at most 128), "
            "e.g. api-20251012-130015-cb9af9",
        )
    return run_id


def _netloc(origin: str) -> str | None:
    """`scheme://host[:port]` -> `host[:port]`, the default port dropped; None if malformed."""
    try:
        parts = urlsplit(origin)
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in _DEFAULT_PORTS or not parts.hostname or parts.path not in ("", "/"):
        return None
    host = parts.hostname.lower()
    if ":" in host:
        host = f"[{host}]"
    if port is None or str(port) == _DEFAULT_PORTS[parts.scheme]:
        return host
    return f"{host}:{port}"


def _host_netloc(host: str) -> str:
    host = host.strip().lower()
    for default in _DEFAULT_PORTS.values():
        if host.endswith(f":{default}") and not host.endswith("]"):
            return host[: -len(default) - 1]
    return host


def check_origin(request: Request, settings: WebSettings) -> None:
    """403 unless the request comes from this dashboard's origin or from no browser."""
    origin = request.headers.get("origin")
    if origin is None:
        # Browsers send Origin on every cross-origin POST; Sec-Fetch-Site is a second
        # opinion from browsers that strip Origin (privacy settings).
        if request.headers.get("sec-fetch-site") in _BROWSER_CROSS_SITE:
            raise HTTPException(403, "cross-site write refused (Sec-Fetch-Site)")
        return  # curl, the backend's webhook sender, scripts: not a browser page
    normalised = origin.strip().rstrip("/").lower()
    if normalised in settings.extra_origins:
        return
    if settings.public_url and normalised == settings.public_url.strip().rstrip("/").lower():
        return
    # The page's own origin: the Host it was loaded from, and only when that Host is
    # one this dashboard answers to. Comparing with the Host alone let a DNS-rebinding
    # page (Host and Origin both `rebind.attacker.example`) write.
    host = request.headers.get("host", "")
    own = _host_netloc(host)
    allowed = allowed_host_set(settings.allowed_hosts, settings.public_url, settings.host)
    if origin != "null" and own and _netloc(origin) == own and host_allowed(host, allowed):
        return
    raise HTTPException(
        403,
        f"cross-origin write refused: Origin {origin[:200]!r} is not this dashboard's "
        "(add it to CODREAMER_WEB_ALLOWED_ORIGINS if it should be allowed)",
    )


def check_json(request: Request) -> None:
    """415 unless the body is declared `application/json`."""
    declared = request.headers.get("content-type", "")
    media = declared.split(";", 1)[0].strip().lower()
    if media != "application/json":
        raise HTTPException(
            415,
            f"Content-Type must be application/json (got {declared[:100]!r}); "
            "send the body as JSON, e.g. curl -H 'Content-Type: application/json'",
        )


def check_write(request: Request, settings: WebSettings) -> None:
    check_origin(request, settings)
    check_json(request)
