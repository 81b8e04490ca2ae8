"""Local HTTP servers that speak the providers' wire formats, for the adapter tests.

A `FakeServer` is a real threaded HTTP/1.1 server on 127.0.0.1. It answers POSTs to its
one endpoint path from a queue of scripted `Reply`s (status, headers, a JSON or raw body,
a delay before answering, a slow body, a body made as it is sent: `flood`) and records
every request it receives (path, headers, the raw body, when it arrived) so a test can
assert on exactly what an adapter sent. With the queue empty, or on any other path, it
answers a 400 that says so, so a test that forgot a reply fails with a readable error
instead of hanging.

`openai_*` and `anthropic_*` build reply bodies in each vendor's documented format.
`openai_conversation` and `anthropic_conversation` are vendor checks (`server.check`): like
the real APIs they refuse a follow-up that does not give back what the model sent, so a
server serving one conversation fails the run the way the vendor would.
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
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
    # A body made piece by piece instead (a flood: see `flood`), sent with `Transfer-Encoding:
    # chunked` unless `length` is given for `Content-Length`. What the server got to send
    # before the client hung up is counted in `FakeServer.sent`.
    stream: Callable[[], Iterator[bytes]] | None = None
    length: int | None = None

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


# A vendor's validation of a request: (its body, the bodies of the 200 replies this
# server gave so far, oldest first) -> the refusal to send instead, or None to go on.
Check = Callable[[Any, list[Any]], Reply | None]


class FakeServer:
    def __init__(self, path: str) -> None:
        self.path = path
        self.url = ""
        self.requests: list[Seen] = []
        self.check: Check | None = None
        # Bodies of the 200 replies sent at once and whole (not delayed or dribbled, which
        # a timing-out client may never have read): the turns a conversation is made of.
        self.answered: list[Any] = []
        self._replies: deque[Reply] = deque()
        self._lock = threading.Lock()
        self.closing = threading.Event()
        # Body bytes written for each `stream` reply, once it ended (sent or cut off).
        self.sent: list[int] = []
        # For a server many conversations share (the queue serves one): a reply made from
        # each request's body, used instead of the queue when set.
        self.respond: Callable[[Any], Reply] | None = None
        # While cleared, every request waits unanswered until it is set: a slow model
        # whose replies then all land at once.
        self.answering = threading.Event()
        self.answering.set()

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

    def wait_sent(self, count: int, timeout: float = 10.0) -> list[int]:
        """The byte counts of the first `count` streamed replies, once they ended."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                if len(self.sent) >= count:
                    return list(self.sent)
            time.sleep(0.01)
        raise AssertionError(f"fake server: {len(self.sent)} streamed replies ended")

    def _next(self, seen: Seen) -> Reply:
        with self._lock:
            self.requests.append(seen)
            number = len(self.requests)
            if seen.method != "POST" or seen.path.split("?")[0] != self.path:
                return Reply(400, {"error": {"message": f"fake server: no route {seen.path}"}})
            if self.check is not None:
                refusal = self.check(seen.body, list(self.answered))
                if refusal is not None:
                    return refusal
            if self.respond is not None:
                reply = self.respond(seen.body)
            elif not self._replies:
                return Reply(400, {"error": {"message": f"fake server: no reply for #{number}"}})
            else:
                reply = self._replies.popleft()
            whole = reply.raw is None and reply.stream is None
            if reply.status == 200 and whole and not (reply.delay_s or reply.dribble_s):
                self.answered.append(reply.body)
            return reply


class Server(ThreadingHTTPServer):
    daemon_threads = True
    # Hundreds of workers' requests may arrive at once (a burst test): accept them all.
    request_queue_size = 512


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
            server.answering.wait()
            if reply.delay_s and server.closing.wait(reply.delay_s):
                self.close_connection = True
                return
            if reply.stream is not None:
                self.send_stream(reply, reply.stream)
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

        def send_stream(self, reply: Reply, pieces: Callable[[], Iterator[bytes]]) -> None:
            sent = 0
            try:
                self.send_response(reply.status)
                self.send_header("content-type", "application/json")
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                if reply.length is None:
                    self.send_header("transfer-encoding", "chunked")
                else:
                    self.send_header("content-length", str(reply.length))
                self.end_headers()
                for piece in pieces():
                    if server.closing.is_set():
                        break
                    if not piece:
                        continue  # an empty chunk would end a chunked body
                    if reply.length is None:
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                    else:
                        self.wfile.write(piece)
                    sent += len(piece)
                else:
                    if reply.length is None:
                        self.wfile.write(b"0\r\n\r\n")
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client stopped reading
            finally:
                self.close_connection = True
                with server._lock:
                    server.sent.append(sent)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    httpd = Server(("127.0.0.1", 0), Handler)
    server.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.closing.set()
        server.answering.set()
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


def flood(total: int, head: bytes = b"", piece: int = 65_536) -> Callable[[], Iterator[bytes]]:
    """`total` bytes of body, made as they are sent: `head`, then spaces."""

    def pieces() -> Iterator[bytes]:
        filler = b" " * piece
        yield head
        left = total - len(head)
        while left > 0:
            yield filler[: min(piece, left)]
            left -= piece

    return pieces


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
    **fields: Any,
) -> Reply:
    """A reply; `fields` are more fields of its message (`reasoning_content`, `refusal`)."""
    message: dict[str, Any] = {"role": "assistant", "content": text, "refusal": None, **fields}
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


def tool_then_done(body: dict[str, Any]) -> Reply:
    """For `FakeServer.respond`, serving many runs at once: a `noop` tool call to a new
    conversation, `done` once its result came back."""
    if body["messages"][-1]["role"] == "user":
        return openai_reply(calls=[openai_call("c1", "noop", {"size": 64})])
    return openai_reply("done")


def conversation_position(body: dict[str, Any]) -> tuple[str, int]:
    """Which conversation an OpenAI request is part of (its first user message, which a
    test makes unique) and where in it (the number of messages before the reply)."""
    first = next(m for m in body["messages"] if m["role"] == "user")
    return first["content"], len(body["messages"])


def openai_error(
    status: int, message: str, kind: str = "invalid_request_error", **reply: Any
) -> Reply:
    body = {"error": {"message": message, "type": kind, "param": None, "code": None}}
    return Reply(status, body, **reply)


def openai_conversation(id_rule: str | None = None) -> Check:
    """Chat Completions' follow-up rules, for a server that serves one conversation.

    - A `tool_calls` turn is followed by one `tool` message per call, and a `tool` message
      answers a call of the turn right before it (OpenAI's own rule and wording).
    - The k-th assistant message gives back exactly what the k-th reply said: its content,
      its calls (ids, names, arguments) and its `reasoning_content` and `refusal` (servers
      that reason across tool calls refuse a turn without its reasoning).
    - With `id_rule` (a regex), every call id must match it in full, as Mistral's
      endpoint wants (9 letters or digits) and says when it refuses.
    """
    rule = re.compile(id_rule) if id_rule is not None else None

    def check(body: Any, answered: list[Any]) -> Reply | None:
        messages: list[dict[str, Any]] = body.get("messages", [])
        turn = 0
        open_ids: list[str] = []  # calls of the last tool_calls turn still unanswered
        for index, message in enumerate(messages):
            role = message.get("role")
            if role != "tool" and open_ids:
                return openai_error(400, unanswered(open_ids))
            if role == "tool":
                call_id = message.get("tool_call_id")
                if rule is not None and not rule.fullmatch(str(call_id)):
                    return openai_error(400, mistral_id_refusal(call_id))
                if call_id not in open_ids:
                    return openai_error(
                        400,
                        "Invalid parameter: messages with role 'tool' must be a response to a "
                        "preceeding message with 'tool_calls'.",
                    )
                open_ids.remove(call_id)
            elif role == "assistant":
                if turn >= len(answered):
                    return openai_error(400, f"fake vendor: messages[{index}] was never replied")
                issued = answered[turn]["choices"][0]["message"]
                turn += 1
                calls = message.get("tool_calls") or []
                for call in calls:
                    if rule is not None and not rule.fullmatch(str(call.get("id"))):
                        return openai_error(400, mistral_id_refusal(call.get("id")))
                problem = turn_differs(message, issued)
                if problem is not None:
                    return openai_error(400, f"fake vendor: messages[{index}]: {problem}")
                open_ids = [str(c.get("id")) for c in calls]
        if open_ids:
            return openai_error(400, unanswered(open_ids))
        return None

    return check


def unanswered(call_ids: list[str]) -> str:
    return (
        "An assistant message with 'tool_calls' must be followed by tool messages responding "
        "to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
        + ", ".join(call_ids)
    )


def mistral_id_refusal(call_id: Any) -> str:
    return f"Tool call id was {call_id} but must be a-z, A-Z, 0-9, with a length of 9."


def turn_differs(sent: dict[str, Any], issued: dict[str, Any]) -> str | None:
    """How an assistant message sent back differs from the reply's message, if it does."""
    for name in ("content", "reasoning_content", "refusal"):
        if sent.get(name) != issued.get(name):
            return f"{name} is {sent.get(name)!r}, the model said {issued.get(name)!r}"

    def calls(message: dict[str, Any]) -> list[tuple[Any, Any, Any]]:
        out = []
        for call in message.get("tool_calls") or []:
            function = call.get("function", {})
            arguments = function.get("arguments")
            with contextlib.suppress(TypeError, ValueError):  # not JSON: compared as text
                arguments = json.loads(arguments)
            out.append((call.get("id"), function.get("name"), arguments))
        return out

    if calls(sent) != calls(issued):
        return f"tool_calls are {calls(sent)}, the model sent {calls(issued)}"
    return None


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
    return anthropic_blocks(*content, usage=usage, **usage_extra)


def anthropic_blocks(
    *content: dict[str, Any], usage: tuple[int, int] = (0, 0), **usage_extra: int
) -> Reply:
    """A reply whose content is exactly these blocks, in this order."""
    calls = any(block.get("type") == "tool_use" for block in content)
    return Reply(
        body={
            "id": "msg_fake",
            "type": "message",
            "role": "assistant",
            "model": "claude-test",
            "content": list(content),
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


THINKING_REFUSAL = (
    "messages.{index}.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
    "`{found}`. When `thinking` is enabled, a final `assistant` message must start with a "
    "thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We "
    "recommend you include thinking blocks from previous turns. To avoid this requirement, "
    "disable `thinking`. Please consult our documentation at "
    "https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
)
THINKING_TYPES = ("thinking", "redacted_thinking")


def anthropic_conversation(body: Any, answered: list[Any]) -> Reply | None:
    """The Messages API's follow-up rules, for a server that serves one conversation.

    As the real API (and in its words): a thinking block must come back with the signature
    it was given; with `thinking` enabled, the assistant turn before the last tool results
    must start with its thinking; every `tool_use` is answered by a `tool_result` in the
    next message, and a `tool_result` answers a `tool_use` of the message before it. And,
    stricter than the API: the k-th assistant message is the k-th reply's content, block
    for block, in its order (ids included).
    """
    messages: list[dict[str, Any]] = body.get("messages", [])
    thinking = (body.get("thinking") or {}).get("type") == "enabled"
    assistant_at = [i for i, m in enumerate(messages) if m.get("role") == "assistant"]
    if len(assistant_at) > len(answered):
        return anthropic_error(400, "fake vendor: more assistant turns than replies")
    issued_thinking = {
        json.dumps(block, sort_keys=True)
        for reply in answered
        for block in reply["content"]
        if block.get("type") == "thinking"
    }
    for index in assistant_at:
        for j, block in enumerate(messages[index]["content"]):
            if block.get("type") == "thinking" and (
                json.dumps(block, sort_keys=True) not in issued_thinking
            ):
                return anthropic_error(
                    400, f"messages.{index}.content.{j}: Invalid `signature` in `thinking` block"
                )
    last_use = max((i for i in assistant_at if any_block(messages[i], "tool_use")), default=None)
    if thinking and last_use is not None:
        first = messages[last_use]["content"][0].get("type")
        if first not in THINKING_TYPES:
            return anthropic_error(400, THINKING_REFUSAL.format(index=last_use, found=first))
    for index, message in enumerate(messages):
        uses = [b["id"] for b in message["content"] if b.get("type") == "tool_use"]
        following = messages[index + 1]["content"] if index + 1 < len(messages) else []
        answers = [b.get("tool_use_id") for b in following if b.get("type") == "tool_result"]
        missing = [u for u in uses if u not in answers]
        if message.get("role") == "assistant" and missing:
            return anthropic_error(
                400,
                f"messages.{index}: `tool_use` ids were found without `tool_result` blocks "
                f"immediately after: {', '.join(missing)}. Each `tool_use` block must have a "
                "corresponding `tool_result` block in the next message.",
            )
        earlier = messages[index - 1]["content"] if index else []
        used = [b.get("id") for b in earlier if b.get("type") == "tool_use"]
        for j, block in enumerate(message["content"]):
            if block.get("type") == "tool_result" and block.get("tool_use_id") not in used:
                return anthropic_error(
                    400,
                    f"messages.{index}.content.{j}: unexpected `tool_use_id` found in "
                    f"`tool_result` blocks: {block.get('tool_use_id')}. Each `tool_result` "
                    "block must have a corresponding `tool_use` block in the previous message.",
                )
    for turn, index in enumerate(assistant_at):
        sent, replied = messages[index]["content"], answered[turn]["content"]
        if sent != replied:
            return anthropic_error(
                400, f"fake vendor: messages.{index} is {sent}, the model replied {replied}"
            )
    return None


def any_block(message: dict[str, Any], kind: str) -> bool:
    return any(block.get("type") == kind for block in message["content"])


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
