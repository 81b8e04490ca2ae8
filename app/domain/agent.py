"""Agent definitions: the model, the tools, the budget. Pure types, validated on the way in.

These models are both the API's request bodies and what `agent_versions.definition`
stores, so a definition that was accepted once always loads again.
"""

from __future__ import annotations

import functools
import hashlib
import json
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from pydantic import (
    AfterValidator,
    Field,
    field_validator,
    model_validator,
)

from app.domain.budget import Budget, Usage
from app.domain.strict import Strict as Strict  # request bodies import it from here

ID_PATTERN = r"^[A-Za-z0-9_\-][A-Za-z0-9_.\-]{0,198}[A-Za-z0-9_\-]$|^[A-Za-z0-9_\-]$"
TOOL_NAME_PATTERN = r"^[A-Za-z0-9_\-]{1,64}$"
MAX_TOOLS = 128
MAX_SCRIPT = 10_000


def check_json_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` itself, if it is a valid JSON Schema whose references stay inside it."""
    _check_schema_text(json.dumps(schema, sort_keys=True, separators=(",", ":")))
    return schema


# Every load of a stored definition validates its tools' schemas again (the API's send,
# the worker's claim), and checking one against the meta-schema costs a millisecond or
# two: a schema already found valid is not checked again. Invalid ones raise every time
# (lru_cache keeps no exceptions).
@functools.lru_cache(maxsize=4096)
def _check_schema_text(text: str) -> None:
    schema = json.loads(text)
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        where = "/".join(str(p) for p in exc.absolute_path) or "(root)"
        raise ValueError(f"not a valid JSON Schema at {where}: {exc.message}") from exc
    for ref in _references(schema):
        if not ref.startswith("#"):
            raise ValueError(
                f"$ref {ref!r}: only references inside the schema (#/...) are "
                "allowed; nothing is fetched"
            )
        if not _resolves(schema, ref):
            raise ValueError(f"$ref {ref!r} resolves to nothing in this schema")


def _references(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return found + [r for value in node.values() for r in _references(value)]
    if isinstance(node, list):
        return [r for value in node for r in _references(value)]
    return []


def _resolves(schema: dict[str, Any], ref: str) -> bool:
    """Whether a local JSON Pointer reference (#/a/b) names a part of the schema."""
    node: Any = schema
    for raw in ref[1:].lstrip("/").split("/") if ref not in ("#", "#/") else []:
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return False
    return True


# -- models ------------------------------------------------------------------------------


class Price(Strict):
    """What the model's tokens cost, in US dollars per million tokens."""

    input_per_mtok: float = Field(ge=0, le=1_000_000)
    output_per_mtok: float = Field(ge=0, le=1_000_000)

    def cost_usd(self, usage: Usage) -> float:
        return (
            usage.input_tokens * self.input_per_mtok + usage.output_tokens * self.output_per_mtok
        ) / 1_000_000


class ScriptCall(Strict):
    name: str = Field(min_length=1, max_length=64)
    arguments: dict[str, Any] = Field(default_factory=dict)


class ScriptError(Strict):
    message: str = Field(max_length=2000)
    retryable: bool = True
    # Fail only while the run's attempt counter is below this (None: always).
    times: int | None = Field(default=None, ge=1)


class ScriptReply(Strict):
    text: str | None = Field(default=None, max_length=100_000)
    tool_calls: list[ScriptCall] = Field(default_factory=list, max_length=64)
    error: ScriptError | None = None
    delay_s: float = Field(default=0.0, ge=0, le=600)
    input_tokens: int = Field(default=0, ge=0)
    output_tokens: int = Field(default=0, ge=0)

    @model_validator(mode="after")
    def _says_something(self) -> ScriptReply:
        if self.text is None and not self.tool_calls and self.error is None:
            raise ValueError("a script reply needs text, tool_calls or error")
        return self


PRICE_NOTE = (
    "What the model's tokens cost: makes usage.cost_usd, and is required by a budget's "
    "max_cost_usd."
)


class ScriptedModel(Strict):
    """Replies by position: the k-th model call of a session gets `script[k]`.

    Past the end it repeats the last reply that has no tool calls. Deterministic, so a
    test can tell whether a turn was generated twice.
    """

    provider: Literal["scripted"]
    name: str = Field(default="scripted", max_length=200)
    script: list[ScriptReply] = Field(min_length=1, max_length=MAX_SCRIPT)
    price: Price | None = Field(default=None, description=PRICE_NOTE)


def check_http_url(value: str) -> str:
    """Refuse at definition time a URL that every call would fail on (an unclosed IPv6
    bracket, no host, a port out of range, whitespace), rather than store it."""
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 -- parsing the port is the check: it raises when invalid
    except ValueError as exc:
        raise ValueError(f"not a valid URL: {exc}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("must be an http:// or https:// URL with a host")
    if any(char.isspace() or not char.isprintable() for char in value):
        raise ValueError("may not contain whitespace or control characters")
    return value


HttpUrl = Annotated[
    str, Field(pattern=r"^https?://", max_length=2000), AfterValidator(check_http_url)
]

ENV_NAME = r"^[A-Za-z_][A-Za-z0-9_]{0,127}$"
RESERVED_PARAMS = frozenset({"model", "messages", "tools", "system", "stream"})


class RemoteModel(Strict):
    """A model behind an HTTP API. The key is read from the worker's environment at call
    time (`api_key_env` names the variable): it is never stored, logged or returned."""

    name: str = Field(min_length=1, max_length=200, description="The provider's model name.")
    base_url: HttpUrl
    api_key_env: str | None = Field(default=None, pattern=ENV_NAME)
    params: dict[str, Any] = Field(
        default_factory=dict, description="Extra body fields (temperature, max_tokens, ...)."
    )
    timeout_s: float = Field(default=120.0, gt=0, le=3600)
    stream: bool = Field(
        default=False,
        description=(
            "Call the provider in its streaming mode (server-sent events), so the reply's "
            "text can be passed on as it arrives. The saved turn is the same either way."
        ),
    )
    price: Price | None = Field(default=None, description=PRICE_NOTE)

    @field_validator("params")
    @classmethod
    def _params_do_not_steer_the_protocol(cls, value: dict[str, Any]) -> dict[str, Any]:
        owned = sorted(set(value) & RESERVED_PARAMS)
        if owned:
            raise ValueError(
                f"params may not set {owned}: Perdure sends those itself "
                '(to stream, set the model\'s own "stream": true)'
            )
        return value


class OpenAIModel(RemoteModel):
    """Chat Completions wire format: OpenAI, vLLM, Ollama, LiteLLM. `base_url` ends in
    `/v1`; `/chat/completions` is appended."""

    provider: Literal["openai"]
    base_url: HttpUrl = "https://api.openai.com/v1"


class AnthropicModel(RemoteModel):
    """Messages API wire format. `base_url` is the bare host; `/v1/messages` is appended."""

    provider: Literal["anthropic"]
    base_url: HttpUrl = "https://api.anthropic.com"


UNPRICED = "a cost budget needs the model's price (model.price)"

ModelSpec = Annotated[ScriptedModel | OpenAIModel | AnthropicModel, Field(discriminator="provider")]


# -- tools -------------------------------------------------------------------------------


class EnvValue(Strict):
    env: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")


# What a read shows instead of a literal header value that looks like a secret.
REDACTED = "***"
SECRET_HEADER_WORDS = (
    "auth",
    "cookie",
    "token",
    "secret",
    "key",
    "pass",
    "credential",
    "session",
    "signature",
)


def is_secret_header(name: str) -> bool:
    """Whether a header's literal value is kept out of reads (Authorization, Cookie,
    X-Api-Key, anything naming a token, secret, key, password, session...)."""
    lowered = name.lower()
    return any(word in lowered for word in SECRET_HEADER_WORDS)


def redacted_headers(headers: dict[str, str | EnvValue]) -> dict[str, Any]:
    """Headers as a read shows them: `{"env": NAME}` references as they are (the name is
    no secret), literal values of secret-looking headers as `***`."""
    return {
        name: value.model_dump()
        if isinstance(value, EnvValue)
        else (REDACTED if is_secret_header(name) else value)
        for name, value in headers.items()
    }


class HttpExecutor(Strict):
    """POST {tool_call_id, session_id, run_id, arguments}; the JSON reply is the result."""

    type: Literal["http"]
    url: HttpUrl
    timeout_s: float = Field(default=30.0, gt=0, le=600)
    max_retries: int = Field(default=2, ge=0, le=10)
    max_response_bytes: int = Field(default=1_048_576, ge=1024, le=16_777_216)
    headers: dict[str, str | EnvValue] = Field(
        default_factory=dict,
        description='Extra request headers; a value {"env": "NAME"} is read from the '
        "worker's environment at call time, so secrets never sit in the definition.",
        max_length=32,
    )


class PythonExecutor(Strict):
    """`package.module:function`, sync or async, called as f(arguments, context).

    The module must be one the operator lists in `PERDURE_PYTHON_TOOLS`. A call that runs
    longer than `timeout_s` gets a `timeout` error result; a sync function's thread
    cannot be stopped, so it is abandoned (it may still finish its side effect)."""

    type: Literal["python"]
    path: str = Field(pattern=r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$", max_length=300)
    timeout_s: float = Field(default=30.0, gt=0, le=600)


class ClientExecutor(Strict):
    """The caller runs the tool: the run pauses as `awaiting_tool_results` until the
    outputs are posted to `POST /v1/runs/{id}/tool-results`."""

    type: Literal["client"]


class AgentExecutor(Strict):
    """A sub-agent: the call starts a child run of this agent in a child session, with
    the call's arguments as its input (`{"input": "text"}` gives that text; other
    arguments are passed as their JSON). The parent pauses as `awaiting_children` until
    the child ends; the child's output (or its failure) is the call's result."""

    type: Literal["agent"]
    agent_id: str = Field(pattern=ID_PATTERN, max_length=200)
    agent_version: int | None = Field(
        default=None, ge=1, description="A version to pin; none: the latest when it starts."
    )


Executor = Annotated[
    HttpExecutor | PythonExecutor | ClientExecutor | AgentExecutor, Field(discriminator="type")
]


class ApprovalRules(Strict):
    """Who may decide this tool's approvals."""

    distinct_approver: bool = Field(
        default=False,
        description="The key that started the run may not decide (403 SELF_APPROVAL): "
        "four eyes. In open mode nobody is told apart, so nobody may.",
    )


class ToolSpec(Strict):
    name: str = Field(pattern=TOOL_NAME_PATTERN)
    description: str = Field(default="", max_length=8000)
    input_schema: dict[str, Any] = Field(default_factory=lambda: {"type": "object"})
    needs_approval: bool | dict[str, Any] = Field(
        default=False,
        description="true, false, or a JSON Schema: approval is needed when the arguments "
        'match it (e.g. {"properties": {"amount": {"minimum": 100}}}).',
    )
    approval_timeout_s: float | None = Field(
        default=None,
        gt=0,
        le=365 * 24 * 3600,
        description="An undecided approval of this tool is rejected after this long.",
    )
    approval: ApprovalRules = Field(default_factory=ApprovalRules)
    executor: Executor

    @field_validator("input_schema")
    @classmethod
    def _valid_input_schema(cls, value: dict[str, Any]) -> dict[str, Any]:
        return check_json_schema(value)

    @field_validator("needs_approval")
    @classmethod
    def _valid_approval_schema(cls, value: bool | dict[str, Any]) -> bool | dict[str, Any]:
        return check_json_schema(value) if isinstance(value, dict) else value


class Capability(Strict):
    """What a planner's plan may use: each node of the plan names one, and runs as a
    child run of its agent."""

    name: str = Field(pattern=TOOL_NAME_PATTERN)
    agent_id: str = Field(pattern=ID_PATTERN, max_length=200)
    agent_version: int | None = Field(
        default=None, ge=1, description="A version to pin; none: the latest when it starts."
    )
    description: str = Field(default="", max_length=8000)

    def as_tool(self) -> ToolSpec:
        """The capability as the agent tool a node's call is (the sub-agent machinery)."""
        return ToolSpec(
            name=self.name,
            description=self.description,
            executor=AgentExecutor(
                type="agent", agent_id=self.agent_id, agent_version=self.agent_version
            ),
        )


MAX_CAPABILITIES = 64


class AgentDefinition(Strict):
    kind: Literal["agent", "planner"] = Field(
        default="agent",
        description="`planner`: the model writes a plan over `capabilities` (a DAG of "
        "nodes, each a child run of a capability's agent), which is then executed.",
    )
    instructions: str = Field(default="", max_length=200_000)
    model: ModelSpec
    tools: list[ToolSpec] = Field(default_factory=list, max_length=MAX_TOOLS)
    max_steps: int = Field(default=20, ge=1, le=1000)
    tool_concurrency: int = Field(default=4, ge=1, le=64)
    max_depth: int = Field(
        default=5,
        ge=0,
        le=50,
        description="How deep a run of this agent may be in a tree of sub-agents for it "
        "to start a child (a top-level run is at depth 0); a call past it is an error "
        "result the model reads.",
    )
    capabilities: list[Capability] = Field(
        default_factory=list,
        max_length=MAX_CAPABILITIES,
        description="A planner's capabilities (a planner only).",
    )
    node_concurrency: int = Field(
        default=4, ge=1, le=64, description="A planner's nodes running at once."
    )
    max_replans: int = Field(
        default=2,
        ge=0,
        le=20,
        description="How many times a planner may ask for a new plan after a node failed.",
    )
    max_plan_nodes: int = Field(
        default=20, ge=1, le=200, description="The most nodes a planner's plan may have."
    )
    on_drift: Literal["warn", "error", "ignore"] = "warn"
    budget: Budget = Field(
        default_factory=Budget,
        description="Limits on what each run may spend; a send may override them.",
    )
    session_budget: Budget = Field(
        default_factory=Budget,
        description="Limits on what all runs of a session together may spend; a send's "
        "`session_budget` overrides them for its session.",
    )

    @model_validator(mode="after")
    def _cost_budget_has_a_price(self) -> AgentDefinition:
        for where, budget in (("budget", self.budget), ("session_budget", self.session_budget)):
            if budget.max_cost_usd is not None and self.model.price is None:
                raise ValueError(f"{where}.max_cost_usd: {UNPRICED}")
        return self

    @model_validator(mode="after")
    def _unique_tool_names(self) -> AgentDefinition:
        seen: set[str] = set()
        for index, tool in enumerate(self.tools):
            if tool.name in seen:
                raise ValueError(f"tools[{index}].name: duplicate tool name {tool.name!r}")
            seen.add(tool.name)
        return self

    @model_validator(mode="after")
    def _planner_has_capabilities(self) -> AgentDefinition:
        if self.kind == "planner":
            if not self.capabilities:
                raise ValueError("capabilities: a planner needs at least one capability")
            if self.tools:
                raise ValueError("tools: a planner has capabilities, not tools")
            names = [c.name for c in self.capabilities]
            duplicate = next((n for n in names if names.count(n) > 1), None)
            if duplicate is not None:
                raise ValueError(f"capabilities: duplicate capability name {duplicate!r}")
        elif self.capabilities:
            raise ValueError('capabilities: only a planner ("kind": "planner") has them')
        return self

    def callable_tools(self) -> list[ToolSpec]:
        """What the run's calls may name: an agent's tools, a planner's capabilities (each
        node is a call of its capability, an agent tool)."""
        if self.kind == "planner":
            return [c.as_tool() for c in self.capabilities]
        return self.tools

    def tool(self, name: str) -> ToolSpec | None:
        return next((t for t in self.callable_tools() if t.name == name), None)

    def redacted(self) -> dict[str, Any]:
        """The definition as reads show it: literal secret header values replaced by
        `***` (the stored definition keeps them: the worker sends them)."""
        shown = self.model_dump()
        for tool, spec in zip(shown["tools"], self.tools, strict=True):
            if isinstance(spec.executor, HttpExecutor):
                tool["executor"]["headers"] = redacted_headers(spec.executor.headers)
        return shown


def needs_approval(tool: ToolSpec, arguments: Any) -> bool:
    """Whether a call of `tool` with `arguments` must wait for a human."""
    if isinstance(tool.needs_approval, bool):
        return tool.needs_approval
    return bool(Draft202012Validator(tool.needs_approval).is_valid(arguments))


def _digest(value: Any) -> str:
    canonical = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def _behaviour(tool: ToolSpec) -> dict[str, Any]:
    """What a tool does, beyond its arguments: where the call goes and whether a human
    gates it. Header values are taken as a read shows them (secrets redacted), so the
    fingerprint, which reads return, carries no digest of a secret."""
    executor = tool.executor
    where: dict[str, Any] = {"type": executor.type}
    if isinstance(executor, HttpExecutor):
        where["url"] = executor.url
        where["headers"] = redacted_headers(executor.headers)
    elif isinstance(executor, PythonExecutor):
        where["path"] = executor.path
    elif isinstance(executor, AgentExecutor):
        where["agent_id"] = executor.agent_id
        where["agent_version"] = executor.agent_version
    return {
        "executor": where,
        "needs_approval": tool.needs_approval,
        "approval": tool.approval.model_dump(),
    }


def fingerprint(definition: AgentDefinition) -> dict[str, Any]:
    """What a run's behaviour depends on, part by part, so a mismatch can say what changed.

    `model`, `tools` (argument schemas) and `instructions` keep the meaning they had from
    the start; `model_base_url` and `executors` (what each tool does: executor URL or
    path, headers as a read shows them, needs_approval) came later, and `drift` compares
    them only when both fingerprints have them, so a version stored before still compares
    sensibly with one stored after (on the parts both recorded). `digest` covers all parts,
    so it differs for the same definition across that change.
    """
    model = definition.model
    parts: dict[str, Any] = {
        "model": f"{model.provider}:{model.name}",
        "tools": {t.name: _digest(t.input_schema) for t in definition.tools},
        "instructions": _digest(definition.instructions),
        "model_base_url": _digest(getattr(model, "base_url", None)),
        "executors": {t.name: _digest(_behaviour(t)) for t in definition.tools},
    }
    if definition.kind == "planner":
        # A planner's signature: its kind and its capabilities' names, in order.
        parts["capabilities"] = [c.name for c in definition.capabilities]
    parts["digest"] = _digest(parts)
    return parts


def drift(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """What changed between two fingerprints; empty when nothing did. A part only one of
    them has (an older fingerprint lacks `model_base_url` and `executors`) is not
    compared."""
    changes: dict[str, Any] = {}
    if old.get("model") != new.get("model"):
        changes["model"] = {"from": old.get("model"), "to": new.get("model")}
    if (
        "model_base_url" in old
        and "model_base_url" in new
        and old["model_base_url"] != new["model_base_url"]
    ):
        changes["model_base_url"] = True
    old_tools, new_tools = old.get("tools", {}), new.get("tools", {})
    old_does, new_does = old.get("executors"), new.get("executors")
    added = sorted(set(new_tools) - set(old_tools))
    removed = sorted(set(old_tools) - set(new_tools))
    changed = sorted(
        t
        for t in set(old_tools) & set(new_tools)
        if old_tools[t] != new_tools[t]
        or (old_does is not None and new_does is not None and old_does.get(t) != new_does.get(t))
    )
    if added:
        changes["tools_added"] = added
    if removed:
        changes["tools_removed"] = removed
    if changed:
        changes["tools_changed"] = changed
    if old.get("instructions") != new.get("instructions"):
        changes["instructions"] = True
    if old.get("capabilities") != new.get("capabilities"):
        changes["capabilities"] = {"from": old.get("capabilities"), "to": new.get("capabilities")}
    return changes
