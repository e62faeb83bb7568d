"""The httpx chat client against the real test server: retries, Retry-After, failures."""

from __future__ import annotations

import time

import pytest

from codreamer.errors import LLMError
from codreamer.llm.client import ChatClient
from codreamer.retry_after import parse_retry_after
from tests.support.openai_server import OpenAIServer, Reply, error, text

MSGS = [{"role": "user", "content": "hi"}]


@pytest.fixture
def server():
    with OpenAIServer(brain=lambda body: text("hello")) as srv:
        yield srv


def client(srv: OpenAIServer, **kw) -> ChatClient:
    kw.setdefault("backoff_initial_s", 0.01)
    return ChatClient(srv.url, "sk-test", **kw)


def test_plain_completion_sends_model_params_and_key(server):
    resp = client(server).chat(MSGS, model="m1", temperature=0.0, seed=7, tools=None)
    assert resp.content == "hello"
    body = server.requests[0]
    assert body["model"] == "m1" and body["temperature"] == 0.0 and body["seed"] == 7
    assert "tools" not in body  # None params are dropped, not sent as null
    assert server.headers[0]["authorization"] == "Bearer sk-test"


def test_429_and_5xx_are_retried_honouring_retry_after(server):
    server.push(error(429, retry_after="0.3"), error(503), error(502))
    t0 = time.monotonic()
    resp = client(server, max_retries=3).chat(MSGS, model="m")
    assert resp.content == "hello"
    assert len(server.requests) == 4
    assert time.monotonic() - t0 >= 0.3  # waited as long as the server asked


def test_retry_after_is_capped(server):
    server.push(error(429, retry_after="3600"))
    t0 = time.monotonic()
    client(server, backoff_max_s=0.2).chat(MSGS, model="m")
    assert time.monotonic() - t0 < 5


def test_timeouts_are_retried_then_fail(server):
    server.push(Reply(delay_s=1.0, message={"role": "assistant", "content": "late"}))
    assert client(server, timeout_s=0.3).chat(MSGS, model="m").content == "hello"
    server.push(*[Reply(delay_s=1.0) for _ in range(3)])
    with pytest.raises(LLMError, match=r"timed out \(0 s each\) after 3 attempts"):
        client(server, timeout_s=0.3, max_retries=2).chat(MSGS, model="m")


def test_retries_are_bounded(server):
    server.push(*[error(500) for _ in range(10)])
    with pytest.raises(LLMError, match="HTTP 500 after 3 attempts"):
        client(server, max_retries=2).chat(MSGS, model="m")
    assert len(server.requests) == 3


def test_other_4xx_fail_at_once(server):
    server.push(error(400))
    with pytest.raises(LLMError, match="HTTP 400"):
        client(server).chat(MSGS, model="m")
    assert len(server.requests) == 1


@pytest.mark.parametrize("raw", ["not json", '{"choices": []}', '{"x": 1}'])
def test_a_reply_that_is_not_a_completion_is_an_error(server, raw):
    server.push(Reply(raw=raw))
    with pytest.raises(LLMError):
        client(server).chat(MSGS, model="m")


def test_connection_refused_is_retried_then_fails():
    srv = OpenAIServer()
    url = srv.url
    srv._sock.close()  # never started: nothing listens on the port
    with pytest.raises(LLMError, match="after 2 attempts"):
        ChatClient(url, backoff_initial_s=0.01, max_retries=1).chat(MSGS, model="m")


def test_logprob_sum(server):
    server.push(Reply(message={"role": "assistant", "content": "x"}, logprobs=[-1.0, -0.5]))
    resp = client(server).chat(MSGS, model="m", logprobs=True)
    assert resp.logprob_sum() == pytest.approx(-1.5)
    assert client(server).chat(MSGS, model="m").logprob_sum() is None


def test_parse_retry_after():
    assert parse_retry_after("2") == 2.0
    assert parse_retry_after(None) is None and parse_retry_after("soon") is None
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412470.0) == 10.0


def test_the_timeout_grows_with_the_prompt_and_the_reply_allowed() -> None:
    """A long prompt on a slow local model needs longer than a short one: the read
    timeout is the base plus a per-token allowance for the prompt and max_tokens."""
    c = ChatClient("http://127.0.0.1:9/v1", timeout_s=10, timeout_per_token_s=0.5)
    short = c.timeout_for({"messages": [{"role": "user", "content": "hi"}], "max_tokens": 16})
    long = c.timeout_for(
        {"messages": [{"role": "user", "content": "x" * 40_000}], "max_tokens": 16}
    )
    assert 10 + 0.5 * 16 < short < 10 + 0.5 * 40
    assert long - short == pytest.approx(0.5 * 40_000 / 4, rel=0.01)
    assert ChatClient("http://127.0.0.1:9/v1", timeout_s=10).timeout_for({"max_tokens": 99}) == 10


def _llama_models(n_params: int) -> dict:
    """What llama.cpp's server answers to GET /v1/models (trimmed)."""
    meta = {"n_params": n_params, "n_ctx_train": 8192}
    return {"object": "list", "data": [{"id": "local", "owned_by": "llamacpp", "meta": meta}]}


@pytest.mark.parametrize(
    ("models", "expected"),
    [
        (_llama_models(134_515_008), 192),  # SmolLM2-135M, as `codreamer llm serve` serves it
        (_llama_models(7_000_000_000), 1024),  # a 7B model writes whole emails
        ({"object": "list", "data": [{"id": "gpt-4o-mini"}]}, 1024),  # hosted: no meta
        (None, 1024),  # no /models at all
    ],
)
def test_an_unset_reply_cap_follows_the_served_model(models, expected):
    with OpenAIServer(brain=lambda body: text("hi"), models=models) as srv:
        c = client(srv, max_tokens=None)
        c.chat(MSGS, model="m")
        c.chat(MSGS, model="m", max_tokens=33)  # a caller's own cap wins
        c.chat(MSGS, model="m")
        assert [r["max_tokens"] for r in srv.requests] == [expected, 33, expected]
        assert srv.models_asked == 1  # asked once, then remembered


def test_a_configured_reply_cap_never_asks_the_server():
    with OpenAIServer(brain=lambda body: text("hi"), models=_llama_models(1)) as srv:
        client(srv, max_tokens=300).chat(MSGS, model="m")
        assert srv.requests[0]["max_tokens"] == 300 and srv.models_asked == 0
