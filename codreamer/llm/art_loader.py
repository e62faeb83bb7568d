"""Import ART (OpenPipe's Agent Reinforcement Trainer) only when chosen.

Here, at the bottom of the layers, because the `art` policy (agent), the `art`
trainer (train) and the `ruler` judge all need it, and none may import another.
"""

from __future__ import annotations

import os
import warnings
from typing import TYPE_CHECKING, Any

from codreamer.errors import ConfigError

if TYPE_CHECKING:
    from codreamer.config import Settings


def load_art() -> Any:
    """Import `art`, or say what to install. LiteLLM (imported by ART) would fetch its
    model-price map from GitHub at import; the bundled copy keeps it offline."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    # LiteLLM's response objects trip pydantic's serializer checks on every judge
    # call; the warnings say nothing actionable to a CoDreamer user.
    warnings.filterwarnings("ignore", message="Pydantic serializer warnings", category=UserWarning)
    try:
        # Deferred: ART is the optional `art` extra, loaded only when chosen.
        import art
        import art.rewards  # noqa: F401 - RULER lives here
    except ImportError:
        raise ConfigError("the art extra is not installed: uv sync --extra art") from None
    return art


def make_backend(art: Any, settings: Settings) -> Any:
    if settings.art_backend == "serverless":
        return art.ServerlessBackend(api_key=settings.wandb_api_key)
    # Deferred: ART's local backend (torch) only for a local backend.
    from art.local import LocalBackend

    return LocalBackend()
