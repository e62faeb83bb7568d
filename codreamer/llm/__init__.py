"""A small OpenAI-compatible chat-completions client over httpx (no `openai` package)."""

from codreamer.llm.client import ChatClient, ChatResponse

__all__ = ["ChatClient", "ChatResponse"]
