"""Reading an HTTP reply's body within a byte cap, never holding more than the cap.

The servers the workers call are chosen by definitions (a model's `base_url`), so the
size of what they send back must not be theirs to choose. `read_capped` reads the body
as it arrives and gives up as soon as it passes the cap: a `Content-Length` over the cap
is refused before a byte is read, a chunked body is counted as it comes, and the
connection is dropped, not drained.

Compressed bodies are inflated here rather than by httpx: its decoders inflate each
network read whole, and 64 KiB of gzip can hold 64 MiB. Each step here makes at most
what the cap still allows, plus one byte to tell that it was passed, so the cap bounds
the inflated bytes too. The raw bytes count against the same cap. Like httpx, `gzip` and
`deflate` (zlib's format, or raw deflate as some servers send it) are undone and other
codings are left as they are (the caller's parser then refuses them); unlike httpx,
stacked codings (`gzip, deflate`) are refused rather than undone one after the other.
Callers send `Accept-Encoding: ACCEPT_ENCODING`, so a server that follows it never
sends a coding that is left undone.
"""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator

import httpx

ACCEPT_ENCODING = "gzip, deflate"


class BodyTooLarge(Exception):
    """The body passed the cap (or declared, in `Content-Length`, that it would)."""

    def __init__(self, cap: int, declared: int | None = None) -> None:
        super().__init__(f"over {cap} bytes")
        self.cap = cap
        self.declared = declared


class Inflater:
    """One content coding (`gzip` or `deflate`) undone piece by piece, each piece bounded.

    zlib is asked for at most `STEP` bytes at a time: asked for the whole cap at once it
    builds its answer in blocks and then copies them, holding twice what it returns.
    """

    STEP = 256 * 1024

    def __init__(self, coding: str) -> None:
        self.coding = coding
        wbits = zlib.MAX_WBITS | 16 if coding == "gzip" else zlib.MAX_WBITS
        self.inflate = zlib.decompressobj(wbits)
        self.first = True

    def feed(self, data: bytes, room: int) -> list[bytes]:
        """`data` inflated, but no more than `room + 1` bytes of it (more than `room`
        means the cap is passed; the rest is left unmade)."""
        pieces: list[bytes] = []
        made = 0
        while made <= room:
            limit = min(self.STEP, room + 1 - made)
            piece = self._step(data, limit)
            pieces.append(piece)
            made += len(piece)
            data = self.inflate.unconsumed_tail
            if len(piece) < limit:
                break  # all the input is inflated, and all its output made
        return pieces

    def _step(self, data: bytes, limit: int) -> bytes:
        first, self.first = self.first, False
        try:
            return self.inflate.decompress(data, limit)
        except zlib.error as exc:
            if first and self.coding == "deflate":
                # Some servers send raw deflate, without zlib's header (httpx allows it).
                self.inflate = zlib.decompressobj(-zlib.MAX_WBITS)
                return self._step(data, limit)
            raise httpx.DecodingError(f"{self.coding} body: {exc}") from None

    def finish(self) -> bytes:
        """What is left once the body ended (little: `feed` made all it could)."""
        try:
            return self.inflate.flush()
        except zlib.error as exc:
            raise httpx.DecodingError(f"{self.coding} body: {exc}") from None


def inflater_for(headers: httpx.Headers) -> Inflater | None:
    """The coding to undo, from `Content-Encoding` (None: the body is as it is)."""
    codings = [
        value.strip().lower()
        for value in headers.get_list("content-encoding", split_commas=True)
        if value.strip().lower() in ("gzip", "deflate")
    ]
    if len(codings) > 1:
        raise httpx.DecodingError(
            f"stacked content codings ({', '.join(codings)}) are not read; "
            f"ask for one of {ACCEPT_ENCODING}"
        )
    return Inflater(codings[0]) if codings else None


async def read_capped(response: httpx.Response, cap: int, *, truncate: bool = False) -> bytes:
    """The body of a streamed `response`, holding no more than `cap` bytes of it.

    Past the cap, raises BodyTooLarge, or with `truncate` returns the first `cap` bytes
    (for an error reply, whose start is all anyone reads). Either way the rest is not
    read: the caller closes the response, which drops the connection.

    Raises:
        BodyTooLarge: more than `cap` bytes, raw or inflated (not with `truncate`).
        httpx.DecodingError: a compressed body that does not inflate.
    """
    declared = response.headers.get("content-length", "")
    if not truncate and declared.isdigit() and int(declared) > cap:
        raise BodyTooLarge(cap, declared=int(declared))
    inflater = inflater_for(response.headers)
    parts: list[bytes] = []
    raw = size = 0
    async for chunk in response.aiter_raw():
        raw += len(chunk)
        pieces = [chunk] if inflater is None else inflater.feed(chunk, cap - size)
        parts.extend(pieces)
        size += sum(len(piece) for piece in pieces)
        if raw > cap or size > cap:
            if not truncate:
                raise BodyTooLarge(cap)
            return b"".join(parts)[:cap]
    if inflater is not None:
        parts.append(inflater.finish())
        size += len(parts[-1])
        if size > cap and not truncate:
            raise BodyTooLarge(cap)
    return b"".join(parts)[:cap]


async def aiter_capped(response: httpx.Response, cap: int) -> AsyncIterator[bytes]:
    """The body of a streamed `response` piece by piece as it arrives, inflated, for a
    reader that parses as it goes (server-sent events): the same cap as `read_capped`,
    on the raw and the inflated bytes, counted over the whole body.

    Raises:
        BodyTooLarge: more than `cap` bytes, raw or inflated (what came before was given).
        httpx.DecodingError: a compressed body that does not inflate.
    """
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > cap:
        raise BodyTooLarge(cap, declared=int(declared))
    inflater = inflater_for(response.headers)
    raw = size = 0
    async for chunk in response.aiter_raw():
        raw += len(chunk)
        pieces = [chunk] if inflater is None else inflater.feed(chunk, cap - size)
        size += sum(len(piece) for piece in pieces)
        if raw > cap or size > cap:
            raise BodyTooLarge(cap)
        for piece in pieces:
            if piece:
                yield piece
    if inflater is not None:
        rest = inflater.finish()
        if size + len(rest) > cap:
            raise BodyTooLarge(cap)
        if rest:
            yield rest
