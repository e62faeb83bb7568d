"""Weave tracing: off and import-free without WEAVE_PROJECT; with it, `weave.init`
and `weave.op` wrap the traced calls. A stand-in `weave` module records the calls,
since the real one needs a W&B account and the network."""

from __future__ import annotations

import sys
import types

import pytest

from codreamer import tracing
from codreamer.config import Settings
from codreamer.errors import ConfigError
from codreamer.llm.client import ChatClient
from tests.support.openai_server import OpenAIServer


@pytest.fixture
def fake_weave(monkeypatch):
    mod = types.ModuleType("weave")
    mod.inits, mod.ops, mod.calls = [], [], []

    def op(fn, *, name, postprocess_inputs):
        mod.ops.append(name)

        def traced(*args, **kwargs):
            mod.calls.append((name, postprocess_inputs({"self": args[0], "messages": args[1]})))
            return fn(*args, **kwargs)

        return traced

    mod.init = lambda project: mod.inits.append(project)
    mod.op = op
    monkeypatch.setitem(sys.modules, "weave", mod)
    tracing.reset()
    yield mod
    tracing.reset()


def test_off_without_a_project(monkeypatch):
    monkeypatch.delenv("WEAVE_PROJECT", raising=False)
    tracing.reset()
    assert tracing.init_tracing(Settings(_env_file=None)) is False
    assert not tracing.enabled()


def test_on_with_a_project_traces_llm_calls(fake_weave):
    assert tracing.init_tracing(Settings(_env_file=None, WEAVE_PROJECT="team/codreamer"))
    assert tracing.init_tracing(Settings(_env_file=None, WEAVE_PROJECT="team/codreamer"))
    assert fake_weave.inits == ["team/codreamer"]  # idempotent
    with OpenAIServer() as srv:
        ChatClient(srv.url).chat([{"role": "user", "content": "hi"}], model="m")
    assert fake_weave.ops == ["codreamer.llm.chat"]
    ((name, inputs),) = fake_weave.calls
    assert name == "codreamer.llm.chat" and "self" not in inputs


def test_project_set_but_weave_missing_is_a_config_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "weave", None)  # makes `import weave` fail
    tracing.reset()
    with pytest.raises(ConfigError, match="WEAVE_PROJECT is set but weave is not installed"):
        tracing.init_tracing(Settings(_env_file=None, WEAVE_PROJECT="p"))
