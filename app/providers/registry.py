"""From a model spec to a model, within what the operator grants."""

from __future__ import annotations

import httpx

from app.capabilities import Capabilities
from app.domain.agent import AnthropicModel, ModelSpec, OpenAIModel, RemoteModel, ScriptedModel
from app.providers.anthropic import AnthropicMessages
from app.providers.base import Model, ModelError, ModelReply, ModelRequest
from app.providers.openai import OpenAIChat
from app.providers.scripted import Scripted


class Refused:
    """A model the operator does not grant (its definition predates the settings): every
    call fails the run, with a last_error that says why, until it is resumed."""

    def __init__(self, error: ModelError) -> None:
        self.error = error

    async def generate(self, request: ModelRequest) -> ModelReply:
        raise self.error


def build_model(
    spec: ModelSpec,
    client: httpx.AsyncClient,
    capabilities: Capabilities | None = None,
    *,
    tenant_id: str | None = None,
) -> Model:
    """The model for a spec; `client` is the worker's shared HTTP client
    (`app.egress.guarded_client`), `capabilities` the operator's grants (default: the
    defaults), checked again here because the definition may be older than they are;
    `tenant_id` the run's tenant (grants with `{tenant}` read nothing without it).

    Remote models read their API key at each call, through `capabilities.secrets()`
    narrowed to the URL about to be requested: a variable the operator does not grant to
    this tenant and that host reads as unset, and is never looked up. Their replies are
    read within `capabilities.model_reply_bytes`.
    """
    grants = capabilities or Capabilities()
    if isinstance(spec, ScriptedModel):
        if not grants.scripted_model:
            return Refused(
                ModelError(
                    "the scripted model is not enabled on this worker (PERDURE_SCRIPTED_MODEL)",
                    retryable=False,
                    code="provider_not_enabled",
                )
            )
        return Scripted(spec)
    if isinstance(spec, RemoteModel):
        refusal = grants.egress.url_refusal(spec.base_url)
        if refusal is not None:
            return Refused(ModelError(refusal, retryable=False, code="egress_refused"))
    # No URL yet: each call narrows it to the URL it requests (`read_api_key`).
    secrets = grants.secrets(tenant_id=tenant_id)
    if isinstance(spec, OpenAIModel):
        return OpenAIChat(spec, client, environ=secrets, max_reply_bytes=grants.model_reply_bytes)
    if isinstance(spec, AnthropicModel):
        return AnthropicMessages(
            spec, client, environ=secrets, max_reply_bytes=grants.model_reply_bytes
        )
    raise ModelError(
        f"provider {spec.provider!r} is not available", retryable=False, code="provider_unavailable"
    )
