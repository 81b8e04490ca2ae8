"""What the engine asks of a model, and how a model says it failed."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol
from uuid import UUID

from app.domain.agent import ToolSpec
from app.domain.run import Usage


@dataclass(frozen=True)
class ModelRequest:
    session_id: str
    run_id: UUID
    # Provider-neutral transcript: {"role", "content"} plus, on assistant turns,
    # "tool_calls" ({"id", "name", "arguments"}) and "provider_data" (what a provider gave
    # beyond the neutral fields, by provider name: see ModelReply); "tool_call_id"/"name"
    # on tool results. Call ids are the ones the model sent, where it sent one.
    messages: list[dict[str, Any]]
    tools: list[ToolSpec]
    # Model calls this session made before this one (the scripted model replies by it).
    position: int
    # Failed attempts at this call so far.
    attempt: int
    # Called with each piece of the reply's text as it arrives, when the model streams
    # (`"stream": true` in its spec); never for tool-call arguments, and never by a call
    # that does not stream. The pieces add up to the reply's text. Called on the event
    # loop between reads, so it must be quick and must not raise. The reply, not the
    # pieces, is the turn: a call that fails midway is made again from the start.
    on_delta: Callable[[str], None] | None = None


@dataclass(frozen=True)
class ProposedCall:
    name: str
    arguments: Any
    # The model's own id for the call (`call_…`, `toolu_…`), None if it sent none. The
    # provider gets exactly this back with the call and its result.
    id: str | None = None


@dataclass(frozen=True)
class ModelReply:
    text: str
    tool_calls: list[ProposedCall] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    # What the turn held beyond text and calls, that the provider wants back verbatim on
    # the next call (thinking blocks and their signatures, reasoning, a refusal), keyed
    # by provider name so that only the adapter that wrote it reads it. Empty when the
    # neutral fields say it all (the common case: nothing more is stored).
    provider_data: dict[str, Any] = field(default_factory=dict)


class ModelError(Exception):
    """A model call failed. `retryable` decides between back-off and failing the run."""

    def __init__(
        self,
        message: str,
        *,
        retryable: bool,
        code: str = "model_error",
        retry_after_s: float | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.retryable = retryable
        self.code = code
        self.retry_after_s = retry_after_s

    def as_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "retryable": self.retryable}


class Model(Protocol):
    async def generate(self, request: ModelRequest) -> ModelReply: ...


def as_text(value: Any) -> str:
    """Content as the wire formats want it: a string as is, anything else as JSON text."""
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
