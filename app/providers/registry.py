"""From a model spec to a model."""

from __future__ import annotations

import httpx

from app.domain.agent import ModelSpec, ScriptedModel
from app.providers.base import Model, ModelError
from app.providers.scripted import Scripted


def build_model(spec: ModelSpec, client: httpx.AsyncClient) -> Model:
    """The model for a spec; `client` is the worker's shared HTTP client."""
    if isinstance(spec, ScriptedModel):
        return Scripted(spec)
    raise ModelError(
        f"provider {spec.provider!r} is not available", retryable=False, code="provider_unavailable"
    )
