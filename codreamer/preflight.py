"""Fail fast, before a run exists, when the chosen policy or judge cannot work here.

`check_ready` raises ConfigError with one line saying what to set or install.
It never imports the heavy optional packages (it asks importlib whether they
are installed) and never touches the network, so it costs nothing to call.
Messages avoid square brackets (the CLI prints them through Rich markup) and stay
under 80 characters (so a console never wraps the one line).
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

from codreamer.errors import ConfigError
from codreamer.registry import JUDGES, POLICIES, resolve

if TYPE_CHECKING:
    from codreamer.config import Settings
    from codreamer.loop.config import LoopConfig

INSTALL_ART = "uv sync --extra art"


def installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def has_cuda_gpu() -> bool:
    """A CUDA GPU is visible: the NVIDIA driver lists one (no torch import needed)."""
    gpus = Path("/proc/driver/nvidia/gpus")
    if gpus.is_dir() and any(gpus.iterdir()):
        return True
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return False
    try:
        out = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return False
    return out.returncode == 0 and "GPU" in out.stdout


def check_ready(config: LoopConfig, settings: Settings) -> None:
    """The registry's readiness checks of the run's policy and judge. A pair with none
    (embedded and rubric: offline, nothing to install) needs nothing, not even the
    tracing package."""
    if POLICIES.get(config.policy).ready is None and JUDGES.get(config.judge).ready is None:
        return
    check_policy(config.policy, settings)
    check_judge(config.judge, settings)


def check_policy(policy: str, settings: Settings) -> None:
    """The registry's readiness check of the policy (codreamer.registry)."""
    ready = POLICIES.get(policy).ready
    if ready is not None:
        resolve(ready)(settings)
    if settings.weave_project and not installed("weave"):
        raise ConfigError(f"WEAVE_PROJECT is set but weave is not installed: {INSTALL_ART}")


def openai_ready(settings: Settings) -> None:
    if not settings.openai_base_url and not settings.openai_api_key:
        raise ConfigError("policy openai needs OPENAI_BASE_URL (and OPENAI_API_KEY if required)")


def art_ready(settings: Settings) -> None:
    if not installed("art"):
        raise ConfigError(f"policy art needs the art extra: {INSTALL_ART}")
    if settings.art_backend == "serverless":
        if not settings.wandb_api_key:
            raise ConfigError("ART_BACKEND=serverless needs WANDB_API_KEY")
    else:
        if not has_cuda_gpu():
            raise ConfigError(
                "ART_BACKEND=local needs a CUDA GPU, none found: use ART_BACKEND=serverless"
            )
        if not (installed("torch") and installed("unsloth")):
            raise ConfigError("ART_BACKEND=local needs openpipe-art's backend extra installed")


def judge_endpoint(settings: Settings) -> tuple[str | None, str | None]:
    """(base URL, API key) of the llm/ruler judges: their own, else the policy's."""
    return (
        settings.judge_base_url or settings.openai_base_url,
        settings.judge_api_key or settings.openai_api_key,
    )


def check_judge(judge: str, settings: Settings) -> None:
    """The registry's readiness check of the judge (codreamer.registry)."""
    ready = JUDGES.get(judge).ready
    if ready is not None:
        resolve(ready)(settings)


def llm_ready(settings: Settings, judge: str = "llm") -> None:
    base_url, api_key = judge_endpoint(settings)
    if not base_url and not api_key:
        raise ConfigError(f"judge {judge} needs OPENAI_BASE_URL or CODREAMER_JUDGE_BASE_URL")


def ruler_ready(settings: Settings) -> None:
    llm_ready(settings, "ruler")
    if not (installed("art") and installed("litellm")):
        raise ConfigError(f"judge ruler needs the art extra: {INSTALL_ART}")
