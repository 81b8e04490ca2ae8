"""The tests' one fake HTTP server: a real threaded HTTP/1.1 server on 127.0.0.1.

A `FakeServer` records every request it receives (path, headers, the raw body, when it
arrived, the connection it came on) so a test can assert on exactly what was sent, and
answers each with a `Reply` (status, headers, a JSON or raw body, a delay before answering,
a slow body, a body made as it is sent: `flood`). The answer comes from, in this order:

- `check`: a vendor's validation of the request, which may refuse it;
- `respond`: a function of the request, for servers whose logic is their own (the
  providers' many-conversation model, the crash and torture tool servers that count,
  hold and release calls, `http_server`'s routes); it runs on the request's thread
  and may block; None closes the connection unanswered;
- the queue of scripted replies (`push`).

A request that asks for a stream (`"stream": true`) gets a whole 200 reply as the
server's `stream_as` makes it (a vendor's event stream: `providers.fake_servers`), when
set. With neither a respond function nor a reply queued, or on a path other than its own, it
answers a 400 that says so, so a test that forgot a reply fails with a readable error
instead of hanging. While `answering` is cleared, every reply waits until it is set.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx


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
    # End a `stream` body without its end (no last chunk): a connection cut midway.
    cut: bool = False

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
    # The caller's socket, for a respond function that asks whether it hung up meanwhile.
    connection: socket.socket | None = field(default=None, repr=False, compare=False)

    @property
    def body(self) -> Any:
        return json.loads(self.raw)


# A vendor's validation of a request: (its body, the bodies of the 200 replies this
# server gave so far, oldest first) -> the refusal to send instead, or None to go on.
Check = Callable[[Any, list[Any]], Reply | None]
# A reply made from the request (None: close the connection without one).
Respond = Callable[[Seen], Reply | None]


class FakeServer:
    def __init__(self, path: str | None) -> None:
        self.path = path  # None: every path is its own
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
        # A reply made from each request, used instead of the queue when set (see above).
        self.respond: Respond | None = None
        # While cleared, every request waits unanswered until it is set: a slow model
        # whose replies then all land at once.
        self.answering = threading.Event()
        self.answering.set()
        # How this vendor streams a reply, for requests that ask (`"stream": true`): a
        # whole 200 reply from the queue or `respond` is sent as what this makes of it.
        self.stream_as: Callable[[Reply, Seen], Reply] | None = None

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

    def _next(self, seen: Seen) -> Reply | None:
        with self._lock:
            self.requests.append(seen)
            number = len(self.requests)
            off_path = self.path is not None and seen.path.split("?")[0] != self.path
            if seen.method != "POST" or off_path:
                return Reply(400, {"error": {"message": f"fake server: no route {seen.path}"}})
            if self.check is not None:
                refusal = self.check(seen.body, list(self.answered))
                if refusal is not None:
                    return refusal
            respond = self.respond
            if respond is None:
                if not self._replies:
                    return Reply(
                        400, {"error": {"message": f"fake server: no reply for #{number}"}}
                    )
                reply = self._replies.popleft()
                self._note_answered(reply)
                return self._as_asked(reply, seen)
        # Outside the lock: a respond function may hold its request (a tool server's hold).
        made = respond(seen)
        if made is not None:
            with self._lock:
                self._note_answered(made)
            made = self._as_asked(made, seen)
        return made

    def _as_asked(self, reply: Reply, seen: Seen) -> Reply:
        """The reply streamed, if the request asked for a stream and this server can."""
        whole = reply.raw is None and reply.stream is None and reply.status == 200
        if self.stream_as is None or not whole:
            return reply
        asked = isinstance(seen.body, dict) and seen.body.get("stream") is True
        return self.stream_as(reply, seen) if asked else reply

    def _note_answered(self, reply: Reply) -> None:
        whole = reply.raw is None and reply.stream is None
        if reply.status == 200 and whole and not (reply.delay_s or reply.dribble_s):
            self.answered.append(reply.body)


class Server(ThreadingHTTPServer):
    daemon_threads = True
    # Hundreds of workers' requests may arrive at once (a burst test): accept them all.
    request_queue_size = 512


@contextmanager
def fake_server(path: str | None) -> Iterator[FakeServer]:
    server = FakeServer(path)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as real providers do
        timeout = 10  # an idle kept-alive connection does not hold its thread forever

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length", 0))
            raw = self.rfile.read(length)
            headers = {k.lower(): v for k, v in self.headers.items()}
            seen = Seen("POST", self.path, headers, raw, time.monotonic(), self.connection)
            reply = server._next(seen)
            if reply is None:
                self.close_connection = True
                return
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
                # The client gave up (a timeout test), or was killed (a crash test).
                self.close_connection = True

        def send_stream(self, reply: Reply, pieces: Callable[[], Iterator[bytes]]) -> None:
            sent = 0
            try:
                self.send_response(reply.status)
                if "content-type" not in {name.lower() for name in reply.headers}:
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
                    if reply.length is None and not reply.cut:
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
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@contextmanager
def http_server(routes: dict[str, Any]) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """A server answering POSTs by path. A route is one answer (status, body bytes,
    delay s[, headers]), or a list of them for its first, second, ... request (the last
    repeats). Yields the base URL and the requests seen, each {"path", "headers"
    (case-insensitive), "body" (JSON-decoded)}."""
    seen: list[dict[str, Any]] = []
    lock = threading.Lock()

    def respond(request: Seen) -> Reply:
        with lock:
            seen.append(
                {
                    "path": request.path,
                    "headers": httpx.Headers(request.headers),
                    "body": request.body,
                }
            )
            attempt = sum(1 for s in seen if s["path"] == request.path)
        spec = routes[request.path]
        status, payload, delay, *extra = (
            spec[min(attempt, len(spec)) - 1] if isinstance(spec, list) else spec
        )
        return Reply(status, raw=payload, delay_s=delay, headers=extra[0] if extra else {})

    with fake_server(None) as server:
        server.respond = respond
        yield server.url, seen
