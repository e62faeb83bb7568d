"""The `art` policy: an `art.TrainableModel` on an ART backend, acting only.

Rollouts go through the model's OpenAI-compatible inference endpoint with the
same sessions as the `openai` policy (token log-probs on). The checkpoint it
serves is `step`, ART's (`model.get_step()`); the `art` trainer
(codreamer/train/art.py) trains the model on the backend and moves `step` on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from codreamer.agent.policies.openai_policy import OpenAIPolicy
from codreamer.config import DEFAULT_LLM_MAX_TOKENS
from codreamer.llm.aio import run_sync
from codreamer.llm.art_loader import load_art, make_backend
from codreamer.llm.client import ChatClient
from codreamer.preflight import check_policy
from codreamer.tracing import init_tracing

if TYPE_CHECKING:
    from codreamer.agent.policies.prompt import Prompt
    from codreamer.config import Settings
    from codreamer.graph.store import GraphStore


class ArtPolicy(OpenAIPolicy):
    name = "art"

    def __init__(
        self,
        store: GraphStore,
        model: Any,
        backend: Any,
        *,
        temperature: float = 1.0,
        concurrency: int = 4,
        timeout_s: float = 600.0,
        max_retries: int = 3,
        max_tokens: int = 1024,
        prompt: Prompt | None = None,
    ) -> None:
        """`model` must be registered with `backend` already (see `create`)."""
        self.art_model = model
        self.backend = backend
        self.step = int(run_sync(model.get_step()))
        client = ChatClient(
            model.inference_base_url,
            model.inference_api_key,
            timeout_s=timeout_s,
            max_retries=max_retries,
        )
        super().__init__(
            store,
            client,
            model.name,
            temperature=temperature,
            logprobs=True,
            concurrency=concurrency,
            max_tokens=max_tokens,
            prompt=prompt,
        )

    @classmethod
    def create(cls, store: GraphStore, model: Any, backend: Any, **kw: Any) -> ArtPolicy:
        run_sync(model.register(backend))
        return cls(store, model, backend, **kw)

    @classmethod
    def from_settings(  # type: ignore[override]
        cls,
        store: GraphStore,
        settings: Settings,
        model: str | None = None,
        prompt: Prompt | None = None,
    ) -> ArtPolicy:
        check_policy("art", settings)
        art = load_art()
        init_tracing(settings)
        trainable = art.TrainableModel(
            name=model or settings.art_model_name,
            project=settings.art_project,
            base_model=settings.art_base_model,
        )
        return cls.create(
            store,
            trainable,
            make_backend(art, settings),
            temperature=settings.llm_temperature,
            concurrency=settings.llm_concurrency,
            max_retries=settings.llm_max_retries,
            max_tokens=settings.llm_max_tokens or DEFAULT_LLM_MAX_TOKENS,
            prompt=prompt,
        )

    def model_name(self) -> str:
        # The checkpoint being trained; ART's LocalBackend serves it as name@step.
        return str(self.art_model.get_inference_name(self.step))

    def state_dict(self) -> dict[str, Any]:
        m = self.art_model
        return {
            "policy": self.name,
            "model": m.name,
            "project": m.project,
            "base_model": m.base_model,
            "backend": type(self.backend).__name__,
            "step": self.step,
            "prompt": self.prompt.model_dump(mode="json") if self.prompt else None,
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        # The weights live with the backend; its latest checkpoint is the state.
        if state.get("model") not in (None, self.art_model.name):
            raise ValueError(f"policy state belongs to ART model {state.get('model')!r}")
        self.step = int(run_sync(self.art_model.get_step()))
        self._load_prompt(state)
