"""An OpenAI-compatible test server on loopback: a real HTTP server (FastAPI + uvicorn
in a thread) speaking POST /v1/chat/completions, scripted per test.

It stands in for an LLM only where no LLM can run (tests are offline). What it
answers, in order of precedence:

  * `script`: a queue of canned replies (errors, delays, malformed tool calls...),
    consumed one a request;
  * `brain`: a function of the request body; the default plays a tidy agent that
    walks the graph by the tool results it was given and then finalizes, and
    answers any `response_format: json_schema` request (the llm judge, RULER
    through LiteLLM) with a JSON instance of the schema.

Every request body is recorded in `requests`.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

from tests.support.server import StartedServer

Body = dict[str, Any]
_ids = itertools.count()


@dataclass
class Reply:
    """One canned answer. `message` is the choice's message; `status` != 200 sends
    `error` instead; `delay_s` sleeps first (to trip client timeouts)."""

    message: dict[str, Any] | None = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    raw: str | None = None  # send this text verbatim (a broken body)
    logprobs: list[float] | None = None
    finish_reason: str | None = None


def tool_calls(*calls: tuple[str, Any], content: str | None = None) -> Reply:
    """An assistant turn calling tools; args given as a dict are JSON-encoded, as a
    str sent verbatim (so a test can send malformed JSON)."""
    out = []
    turn = next(_ids)
    for i, (name, args) in enumerate(calls):
        arguments = args if isinstance(args, str) else json.dumps(args)
        out.append(
            {
                "id": f"call_{turn}_{i}",
                "type": "function",
                "function": {"name": name, "arguments": arguments},
            }
        )
    return Reply(
        message={"role": "assistant", "content": content, "tool_calls": out},
        finish_reason="tool_calls",
    )


def text(content: str) -> Reply:
    return Reply(message={"role": "assistant", "content": content}, finish_reason="stop")


def error(status: int, retry_after: str | None = None) -> Reply:
    return Reply(status=status, headers={"Retry-After": retry_after} if retry_after else {})


# --- the default brain -------------------------------------------------------


def _tool_results(messages: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any], Any]]:
    """(tool name, arguments, parsed result) for every answered tool call, in order."""
    calls: dict[str, tuple[str, dict[str, Any]]] = {}
    out = []
    for m in messages:
        if m.get("role") == "assistant":
            for c in m.get("tool_calls") or []:
                try:
                    args = json.loads(c["function"]["arguments"])
                except (json.JSONDecodeError, TypeError):
                    args = {}
                calls[c["id"]] = (c["function"]["name"], args if isinstance(args, dict) else {})
        elif m.get("role") == "tool" and m.get("tool_call_id") in calls:
            name, args = calls[m["tool_call_id"]]
            try:
                result = json.loads(m.get("content") or "null")
            except json.JSONDecodeError:
                result = m.get("content")
            out.append((name, args, result))
    return out


def walker_turn(body: Body, *, max_hops: int = 4) -> Reply:
    """A tidy agent: read the seed's context, follow the top-ranked unvisited
    neighbour, stop at a Product Feature node, and write an email from the evidence."""
    messages = body["messages"]
    user = next(m["content"] for m in messages if m["role"] == "user")
    seed = re.search(r"Start at node: '([^']*)'", user)
    results = _tool_results(messages)
    evidence = [
        r
        for n, _, r in results
        if n == "get_relevant_context" and isinstance(r, dict) and "node_id" in r
    ]
    if not evidence:  # nothing read yet (or only errors): start at the seed
        node = seed.group(1) if seed else "Customer Job"
        return tool_calls(
            ("get_relevant_context", {"node_id": node}), ("get_connected_nodes", {"node_id": node})
        )
    path = [e["node_id"] for e in evidence]
    neighbours = next(
        (r for n, _, r in reversed(results) if n == "get_connected_nodes" and isinstance(r, list)),
        [],
    )
    cands = [c for c in neighbours if c not in path]
    at_feature = bool(path) and "product feature" in path[-1].lower()
    if at_feature or not cands or len(path) > max_hops:
        return finalize_from(user, evidence)
    nxt = cands[0]
    return tool_calls(
        ("get_relevant_context", {"node_id": nxt}), ("get_connected_nodes", {"node_id": nxt})
    )


def finalize_from(user: str, evidence: list[dict[str, Any]]) -> Reply:
    prospect = json.loads(re.search(r"Prospect: (\{.*\})", user).group(1))  # type: ignore[union-attr]
    goal = re.search(r"Goal: (.*)", user).group(1).strip().rstrip(".")  # type: ignore[union-attr]
    first = prospect["name"].split()[0]
    company = prospect.get("company") or "your team"
    facts = "\n\n".join(e["content"] for e in evidence)
    body = (
        f"Hi {first},\n\nI have been reading about {company}, and one challenge stood out.\n\n"
        f"{facts}\n\nWould you be open to {goal[0].lower() + goal[1:]}?\n\n"
        "Best regards,\nSam from CoDreamer"
    )
    return tool_calls(
        (
            "finalize_email",
            {
                "subject": f"{first}, an idea for {company}",
                "body": body,
                "citations": [e["node_id"] for e in evidence],
            },
        )
    )


def schema_instance(schema: dict[str, Any], body: Body, score: float = 0.8) -> Any:
    """A valid instance of a JSON schema; arrays of scores get one item per
    `<trajectory id=...>` in the prompt (RULER), scored in decreasing order."""
    defs = schema.get("$defs") or schema.get("definitions") or {}
    prompt = json.dumps(body.get("messages"))
    n_traj = max(1, len(re.findall(r'<trajectory id=\\"(\d+)\\"', prompt)))

    def inst(s: dict[str, Any], name: str = "", i: int = 0) -> Any:
        if "$ref" in s:
            return inst(defs[s["$ref"].split("/")[-1]], name, i)
        for key in ("anyOf", "oneOf", "allOf"):
            if key in s:
                return inst(s[key][0], name, i)
        t = s.get("type")
        if t == "object":
            return {k: inst(v, k, i) for k, v in (s.get("properties") or {}).items()}
        if t == "array":
            return [inst(s.get("items") or {}, name, j) for j in range(n_traj)]
        if t in ("number", "integer"):
            return round(score - 0.1 * i, 3) if t == "number" else 1
        if t == "boolean":
            return True
        if name == "trajectory_id":
            return str(i + 1)
        return f"{name or 'value'} looks fine"

    return inst(schema)


def default_brain(body: Body) -> Reply:
    rf = body.get("response_format")
    if isinstance(rf, dict) and rf.get("type") == "json_schema":
        obj = schema_instance(rf["json_schema"]["schema"], body)
        return Reply(
            message={"role": "assistant", "content": json.dumps(obj)}, finish_reason="stop"
        )
    return walker_turn(body)


# --- what a real server refuses ---------------------------------------------------


def protocol_error(body: Body, require_max_tokens: bool = True) -> tuple[int, str] | None:
    """What llama.cpp's server does with the requests real runs used to send:
    a replayed tool call whose arguments are not JSON -> 500; a history ending in
    two assistant messages -> 400; no max_tokens -> refused here (a real server
    would generate until its context fills)."""
    msgs = body.get("messages") or []
    for m in msgs:
        for c in m.get("tool_calls") or []:
            args = (c.get("function") or {}).get("arguments")
            if isinstance(args, str):
                try:
                    json.loads(args)
                except json.JSONDecodeError:
                    return 500, "Failed to parse tool call arguments as JSON"
    if len(msgs) >= 2 and msgs[-1].get("role") == msgs[-2].get("role") == "assistant":
        return 400, "Cannot have 2 or more assistant messages at the end of the list."
    if require_max_tokens and not isinstance(body.get("max_tokens"), int):
        return 400, "max_tokens is required by this test server"
    return None


# --- the server ----------------------------------------------------------------


class OpenAIServer:
    def __init__(
        self,
        brain: Callable[[Body], Reply] = default_brain,
        *,
        require_max_tokens: bool = True,
        models: dict[str, Any] | None = None,
    ) -> None:
        """`require_max_tokens=False` for clients this project does not write (LiteLLM).
        `models`: the answer to GET /v1/models (None: 404, as some servers do)."""
        self.brain = brain
        self.require_max_tokens = require_max_tokens
        self.models = models
        self.models_asked = 0
        self.script: deque[Reply] = deque()
        self.requests: list[Body] = []
        self.headers: list[dict[str, str]] = []
        self.refused: list[tuple[int, str]] = []  # requests a real server would refuse
        self.inflight = 0
        self.max_inflight = 0
        self._lock = threading.Lock()
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        self.port = int(self._sock.getsockname()[1])
        self._server = StartedServer(
            uvicorn.Config(self._app(), log_level="warning", lifespan="off", access_log=False)
        )
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._sock]}, daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def push(self, *replies: Reply) -> OpenAIServer:
        self.script.extend(replies)
        return self

    def start(self) -> OpenAIServer:
        # Listening before uvicorn starts: a client may connect at once, and waits in
        # the listen queue until uvicorn accepts (no polling for `started`).
        self._sock.listen(128)
        self._thread.start()
        if not self._server.up.wait(10) or not self._server.started:
            raise RuntimeError("test OpenAI server did not start")
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)
        self._sock.close()

    def __enter__(self) -> OpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def chat_requests(self, kind: str = "any") -> list[Body]:
        """Recorded requests: "agent" (with tools), "judge" (with response_format)."""
        with self._lock:
            reqs = list(self.requests)
        if kind == "agent":
            return [r for r in reqs if r.get("tools")]
        if kind == "judge":
            return [r for r in reqs if r.get("response_format")]
        return reqs

    def _next(self, body: Body) -> Reply:
        with self._lock:
            self.requests.append(body)
            if self.script:
                return self.script.popleft()
        return self.brain(body)

    def _app(self) -> FastAPI:
        app = FastAPI()

        @app.get("/v1/models")
        async def models() -> Response:
            with self._lock:
                self.models_asked += 1
            if self.models is None:
                return JSONResponse({"error": {"message": "no such route"}}, status_code=404)
            return JSONResponse(self.models)

        @app.post("/v1/chat/completions")
        async def chat(request: Request) -> Response:
            body = await request.json()
            with self._lock:
                self.headers.append(dict(request.headers))
            refused = protocol_error(body, self.require_max_tokens)
            if refused is not None:
                with self._lock:
                    self.requests.append(body)
                    self.refused.append(refused)
                status, message = refused
                return JSONResponse({"error": {"message": message}}, status_code=status)
            reply = self._next(body)
            with self._lock:
                self.inflight += 1
                self.max_inflight = max(self.max_inflight, self.inflight)
            try:
                if reply.delay_s:  # a slow model: the thing under test (timeouts)
                    await asyncio.sleep(reply.delay_s)
            finally:
                with self._lock:
                    self.inflight -= 1
            if reply.raw is not None:
                return Response(
                    reply.raw,
                    status_code=reply.status,
                    headers=reply.headers,
                    media_type="application/json",
                )
            if reply.status != 200:
                return JSONResponse(
                    {"error": {"message": f"scripted {reply.status}"}},
                    status_code=reply.status,
                    headers=reply.headers,
                )
            return JSONResponse(completion(body, reply))

        return app


def completion(body: Body, reply: Reply) -> dict[str, Any]:
    message = dict(reply.message or {"role": "assistant", "content": ""})
    choice: dict[str, Any] = {
        "index": 0,
        "message": message,
        "finish_reason": reply.finish_reason
        or ("tool_calls" if message.get("tool_calls") else "stop"),
        "logprobs": None,
    }
    if body.get("logprobs"):
        lps = reply.logprobs if reply.logprobs is not None else [-0.25, -0.5]
        choice["logprobs"] = {
            "content": [
                {
                    "token": f"t{i}",
                    "logprob": lp,
                    "bytes": list(f"t{i}".encode()),
                    "top_logprobs": [],
                }
                for i, lp in enumerate(lps)
            ],
            "refusal": None,
        }
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "test-model"),
        "choices": [choice],
        "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
    }
