"""Local HTTP servers that speak the providers' wire formats, for the adapter tests.

A `FakeServer` is a real threaded HTTP/1.1 server on 127.0.0.1. It answers POSTs to its
one endpoint path from a queue of scripted `Reply`s (status, headers, a JSON or raw body,
a delay before answering, a slow body) and records every request it receives (path,
headers, the raw body, when it arrived) so a test can assert on exactly what an adapter
sent. With the queue empty, or on any other path, it answers a 400 that says so, so a
test that forgot a reply fails with a readable error instead of hanging.

`openai_*` and `anthropic_*` build reply bodies in each vendor's documented format.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx

OPENAI_PATH = "/v1/chat/completions"
ANTHROPIC_PATH = "/v1/messages"


@dataclass
class Reply:
    status: int = 200
    body: Any = None  # JSON-encoded, unless `raw` is given
    raw: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0  # before the status line
    # Send the body in `chunks` pieces with this pause before each (headers go at once).
    dribble_s: float = 0.0
    chunks: int = 10

    def payload(self) -> bytes:
        if self.raw is not None:
            return self.raw
        return json.dumps(self.body).encode()


@dataclass
class Seen:
    method: str
    path: str  # with the query, as sent
    headers: dict[str, str]  # names lower-cased
    raw: bytes
    at: float  # time.monotonic() when the request had been read

    @property
    def body(self) -> Any:
        return json.loads(self.raw)


class FakeServer:
    def __init__(self, path: str) -> None:
        self.path = path
        self.url = ""
        self.requests: list[Seen] = []
        self._replies: deque[Reply] = deque()
        self._lock = threading.Lock()
        self.closing = threading.Event()

    def push(self, *replies: Reply) -> None:
        with self._lock:
            self._replies.extend(replies)

    def seen(self) -> list[Seen]:
        with self._lock:
            return list(self.requests)

    def bodies(self) -> list[Any]:
        return [request.body for request in self.seen()]

    def wait_requests(self, count: int, timeout: float = 10.0) -> list[Seen]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            seen = self.seen()
            if len(seen) >= count:
                return seen
            time.sleep(0.01)
        raise AssertionError(f"fake server: {len(self.seen())} requests, wanted {count}")

    def _next(self, seen: Seen) -> Reply:
        with self._lock:
            self.requests.append(seen)
            number = len(self.requests)
            if seen.method != "POST" or seen.path.split("?")[0] != self.path:
                return Reply(400, {"error": {"message": f"fake server: no route {seen.path}"}})
            if not self._replies:
                return Reply(400, {"error": {"message": f"fake server: no reply for #{number}"}})
            return self._replies.popleft()


@contextmanager
def fake_server(path: str) -> Iterator[FakeServer]:
    server = FakeServer(path)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as real providers do
        timeout = 10  # an idle kept-alive connection does not hold its thread forever

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length", 0))
            raw = self.rfile.read(length)
            headers = {k.lower(): v for k, v in self.headers.items()}
            reply = server._next(Seen("POST", self.path, headers, raw, time.monotonic()))
            if reply.delay_s and server.closing.wait(reply.delay_s):
                self.close_connection = True
                return
            payload = reply.payload()
            try:
                self.send_response(reply.status)
                names = {name.lower() for name in reply.headers}
                if "content-type" not in names:
                    self.send_header("content-type", "application/json")
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                if not reply.dribble_s:
                    self.wfile.write(payload)
                    return
                self.wfile.flush()
                size = max(1, -(-len(payload) // reply.chunks))
                for start in range(0, len(payload), size):
                    if server.closing.wait(reply.dribble_s):
                        self.close_connection = True
                        return
                    self.wfile.write(payload[start : start + size])
                    self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True  # the client gave up (a timeout test)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    server.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.closing.set()
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


def closed_port_url() -> str:
    """A URL on 127.0.0.1 where nothing listens (the port was just freed)."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


# -- OpenAI Chat Completions -------------------------------------------------------------


def openai_call(call_id: str, name: str, arguments: Any) -> dict[str, Any]:
    """A tool call as OpenAI sends it: `arguments` is JSON text (a str is sent as is)."""
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": text}}


def openai_reply(
    text: str | None = None,
    calls: list[dict[str, Any]] | None = None,
    usage: tuple[int, int] = (0, 0),
) -> Reply:
    message: dict[str, Any] = {"role": "assistant", "content": text, "refusal": None}
    if calls:
        message["tool_calls"] = calls
    return Reply(
        body={
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": 1_700_000_000,
            "model": "gpt-test",
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "logprobs": None,
                    "finish_reason": "tool_calls" if calls else "stop",
                }
            ],
            "usage": {
                "prompt_tokens": usage[0],
                "completion_tokens": usage[1],
                "total_tokens": usage[0] + usage[1],
            },
        }
    )


def openai_error(
    status: int, message: str, kind: str = "invalid_request_error", **reply: Any
) -> Reply:
    body = {"error": {"message": message, "type": kind, "param": None, "code": None}}
    return Reply(status, body, **reply)


# -- Anthropic Messages ------------------------------------------------------------------


def anthropic_tool_use(call_id: str, name: str, arguments: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": arguments}


def anthropic_reply(
    text: str | None = None,
    calls: list[dict[str, Any]] | None = None,
    usage: tuple[int, int] = (0, 0),
    **usage_extra: int,
) -> Reply:
    content: list[dict[str, Any]] = []
    if text:
        content.append({"type": "text", "text": text})
    content.extend(calls or [])
    return Reply(
        body={
            "id": "msg_fake",
            "type": "message",
            "role": "assistant",
            "model": "claude-test",
            "content": content,
            "stop_reason": "tool_use" if calls else "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": usage[0], "output_tokens": usage[1], **usage_extra},
        }
    )


def anthropic_error(
    status: int, message: str, kind: str = "invalid_request_error", **reply: Any
) -> Reply:
    body = {"type": "error", "error": {"type": kind, "message": message}}
    return Reply(status, body, **reply)


# -- the service, as the end-to-end tests drive it ---------------------------------------


async def define_agent(client: httpx.AsyncClient, body: dict[str, Any]) -> None:
    response = await client.post("/v1/agents", json=body)
    assert response.status_code == 201, response.text


async def send(
    client: httpx.AsyncClient, session: str, body: dict[str, Any], wait: float = 20
) -> dict[str, Any]:
    """Send input and wait for the run to rest (finished, failed, paused)."""
    response = await client.post(f"/v1/sessions/{session}/runs", params={"wait": wait}, json=body)
    assert response.status_code == 200, response.text
    run: dict[str, Any] = response.json()
    return run


async def get_json(client: httpx.AsyncClient, path: str) -> dict[str, Any]:
    response = await client.get(path)
    assert response.status_code == 200, response.text
    payload: dict[str, Any] = response.json()
    return payload


def usage(record: dict[str, Any]) -> tuple[int, int, int]:
    """(input_tokens, output_tokens, model_calls) of a run or session."""
    counts = record["usage"]
    return counts["input_tokens"], counts["output_tokens"], counts["model_calls"]


async def transcript(client: httpx.AsyncClient, session: str) -> list[dict[str, Any]]:
    page = await get_json(client, f"/v1/sessions/{session}/messages?limit=500")
    items: list[dict[str, Any]] = page["items"]
    return items
