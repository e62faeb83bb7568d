"""A backend with a bearer key: the dashboard sends its key on the runs it starts."""

from __future__ import annotations

from pathlib import Path

import httpx
from api_support import ApiServer

from web.app import create_app
from web.config import WebSettings
from web.testing import serve_in_thread

KEY = "sekret-key"


def test_generate_passes_the_backend_key(tmp_path: Path) -> None:
    api = ApiServer(tmp_path, {"CODREAMER_API_KEY": KEY}).start()
    try:
        with_key = WebSettings(CODREAMER_API_URL=api.url, CODREAMER_API_KEY=KEY)
        without = WebSettings(CODREAMER_API_URL=api.url, CODREAMER_API_KEY="")
        with (
            serve_in_thread(create_app(with_key)) as good,
            serve_in_thread(create_app(without)) as bad,
        ):
            body = {"iterations": 1, "depth": 3}
            ok = httpx.post(f"{good}/api/generate", json=body, timeout=10)
            assert ok.status_code == 202, ok.text
            assert ok.json()["run_id"].startswith("api-")
            refused = httpx.post(f"{bad}/api/generate", json=body, timeout=10)
            assert refused.status_code == 401  # the backend's answer, passed through
    finally:
        api.stop()
