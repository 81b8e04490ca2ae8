"""From a model spec to a model."""

from __future__ import annotations

import httpx

from app.domain.agent import AnthropicModel, ModelSpec, OpenAIModel, ScriptedModel
from app.providers.anthropic import AnthropicMessages
from app.providers.base import Model, ModelError
from app.providers.openai import OpenAIChat
from app.providers.scripted import Scripted


def build_model(spec: ModelSpec, client: httpx.AsyncClient) -> Model:
    """The model for a spec; `client` is the worker's shared HTTP client.

    Remote models read their API key from the worker's environment at each call.
    """
    if isinstance(spec, ScriptedModel):
        return Scripted(spec)
    if isinstance(spec, OpenAIModel):
        return OpenAIChat(spec, client)
    if isinstance(spec, AnthropicModel):
        return AnthropicMessages(spec, client)
    raise ModelError(
        f"provider {spec.provider!r} is not available", retryable=False, code="provider_unavailable"
    )
