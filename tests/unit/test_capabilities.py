"""The operator's grants as rules (app/capabilities.py), the egress check at connect time
(app/egress.py), python tool containment (app/tools/python_tool.py), and what a read and
a fingerprint show (app/domain/agent.py). No database."""

from __future__ import annotations

import asyncio
import ipaddress
import time
from typing import Any
from uuid import uuid4

import httpx
import pytest
from pydantic import ValidationError

from app.capabilities import Capabilities, Egress, SecretEnviron, module_allowed
from app.domain.agent import AgentDefinition, ToolSpec, drift, fingerprint
from app.egress import EgressRefused, guarded_client
from app.providers.http_errors import read_api_key
from app.settings import Settings
from app.tools.base import ToolContext
from app.tools.python_tool import execute_python
from tests.crash.harness import tool_server

CONTEXT = ToolContext("call_unit", "s-unit", uuid4(), 1)
GRANTS = Capabilities(python_tools=("app.tools.demo", "tests"))


# -- python tools ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("module", "prefixes", "allowed"),
    [
        ("app.tools.demo", ("app.tools.demo",), True),
        ("app.tools.demo.more", ("app.tools.demo",), True),
        ("app.tools.demo_evil", ("app.tools.demo",), False),
        ("app.tools", ("app.tools.demo",), False),
        ("tests.tools", ("tests",), True),
        ("testsx.tools", ("tests",), False),
        ("tests..tools", ("tests",), False),
        ("tests.", ("tests",), False),
        ("os", ("app.tools.demo",), False),
    ],
)
def test_module_allowed__on_whole_module_names(
    module: str, prefixes: tuple[str, ...], allowed: bool
) -> None:
    assert module_allowed(module, prefixes) is allowed


def test_settings__lists_are_comma_separated_and_checked() -> None:
    settings = Settings(
        python_tools=" app.tools.demo , tests ",
        secret_env="*_API_KEY,FORECAST_TOKEN",
        egress="10.0.0.0/8, api.openai.com, *.example.com, [::1]",
    )
    assert settings.python_tools == ("app.tools.demo", "tests")
    assert settings.secret_env == ("*_API_KEY", "FORECAST_TOKEN")
    grants = Capabilities.of(settings)
    assert grants.egress.hosts == ("api.openai.com", "*.example.com")
    assert grants.egress.networks == (
        ipaddress.ip_network("10.0.0.0/8"),
        ipaddress.ip_network("::1/128"),
    )
    bad: list[dict[str, Any]] = [
        {"python_tools": "tests/tools"},
        {"secret_env": "A=B"},
        {"egress": "http://x"},
    ]
    for values in bad:
        with pytest.raises(ValidationError):
            Settings(**values)


def test_settings__defaults_and_the_scripted_model(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("PERDURE_PYTHON_TOOLS", "PERDURE_SECRET_ENV", "PERDURE_EGRESS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("PERDURE_SCRIPTED_MODEL", raising=False)
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("PERDURE_DATABASE_URL", raising=False)
    embedded = Settings()
    assert (embedded.python_tools, embedded.secret_env, embedded.egress) == (
        ("app.tools.demo",),
        # Bound to the vendors: the old default `*_API_KEY` sent any key anywhere.
        ("OPENAI_API_KEY@api.openai.com", "ANTHROPIC_API_KEY@api.anthropic.com"),
        (),
    )
    # `perdure serve` without DATABASE_URL: the README's walk-through works as is; it
    # fills in the embedded server's URL afterwards, which must not change the answer.
    assert embedded.scripted_model is True
    assert embedded.model_copy(update={"database_url": "postgresql://x"}).scripted_model
    assert Settings(database_url="postgresql://x").scripted_model is False
    monkeypatch.setenv("PERDURE_SCRIPTED_MODEL", "false")
    assert Settings().scripted_model is False


def test_function_refusal__only_public_functions_defined_in_an_allowed_module() -> None:
    from tests import tools

    assert GRANTS.function_refusal("tests.tools:add", tools.add) is None
    # Importable through an allowed module, but defined elsewhere: not a tool.
    assert GRANTS.function_refusal("app.tools.demo:ToolContext", ToolContext) is not None
    assert GRANTS.function_refusal("tests.tools:_private", tools.add) is not None


# -- secrets -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "globs", "readable"),
    [
        ("OPENAI_API_KEY", ("*_API_KEY",), True),
        ("FORECAST_TOKEN", ("*_API_KEY",), False),
        ("FORECAST_TOKEN", ("*_API_KEY", "FORECAST_*"), True),
        ("DATABASE_URL", ("*",), False),
        ("PERDURE_ADMIN_API_KEY", ("*_API_KEY",), False),
        ("PGPASSWORD", ("*",), False),
        ("AWS_SECRET_ACCESS_KEY", ("*",), False),
        ("AWS_SESSION_TOKEN", ("*",), False),
        ("openai_api_key", ("*_API_KEY",), False),  # names are case-sensitive
        # ...but pydantic-settings reads its own in any case: so is the never-list.
        ("database_url", ("*",), False),
        ("Database_Url", ("*",), False),
        ("perdure_secret_env", ("*",), False),
        ("pgpassword", ("*",), False),
        ("aws_secret_access_key", ("*",), False),
    ],
)
def test_secret_environ__only_granted_names_and_never_the_operators_own(
    name: str, globs: tuple[str, ...], readable: bool
) -> None:
    source = {name: "value"}
    view = SecretEnviron(globs, source)
    assert (name in view) is readable
    assert list(view) == ([name] if readable else [])


def test_read_api_key__a_refused_variable_fails_exactly_as_an_unset_one() -> None:
    from app.providers.base import ModelError

    messages = []
    for name, environ in (
        ("DATABASE_URL", {"DATABASE_URL": "postgresql://app:hunter2@db/prod"}),
        ("NOWHERE_API_KEY", {}),
    ):
        with pytest.raises(ModelError) as raised:
            read_api_key(name, SecretEnviron(("*", "*_API_KEY"), environ))
        assert (raised.value.code, raised.value.retryable) == ("api_key_missing", False)
        messages.append(raised.value.message.replace(name, "NAME"))
    assert messages[0] == messages[1]


def test_read_api_key__without_a_grant_it_reads_only_the_default_grant(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from app.providers.base import ModelError

    monkeypatch.setenv("OPENAI_API_KEY", "k")
    monkeypatch.setenv("SOME_API_KEY", "other")
    monkeypatch.setenv("PERDURE_X_API_KEY", "never")
    assert read_api_key("OPENAI_API_KEY", None, "https://api.openai.com/v1/x") == "k"
    for name, url in (
        ("OPENAI_API_KEY", "https://evil.test/v1/x"),  # bound to api.openai.com
        ("OPENAI_API_KEY", None),  # a bound grant needs the destination
        ("SOME_API_KEY", "https://api.openai.com/v1/x"),  # no longer granted by default
        ("PERDURE_X_API_KEY", "https://api.openai.com/v1/x"),
    ):
        with pytest.raises(ModelError):
            read_api_key(name, None, url)


# -- secrets bound to destinations (GLOB@HOST|HOST) ---------------------------------------


def test_settings__secret_grants_bind_globs_to_hosts() -> None:
    settings = Settings(
        secret_env=(
            "OPENAI_API_KEY@api.openai.com, AZ_*_KEY@*.openai.azure.com|10.0.0.7:8443,"
            "LOCAL_API_KEY@127.0.0.1:*|[::1]:8080,TENANT_{tenant}_*_API_KEY@api.openai.com,"
            "LEGACY_TOKEN"
        )
    )
    assert settings.secret_env == (
        "OPENAI_API_KEY@api.openai.com",
        "AZ_*_KEY@*.openai.azure.com|10.0.0.7:8443",
        "LOCAL_API_KEY@127.0.0.1:*|[::1]:8080",
        "TENANT_{tenant}_*_API_KEY@api.openai.com",
        "LEGACY_TOKEN",
    )
    for bad in (
        "A@",  # bound to nothing
        "@api.openai.com",
        "A@https://api.openai.com",
        "A@api.openai.com/v1",
        "A@api.openai.com:0",
        "A@api.openai.com:65536",
        "A@api.openai.com:x",
        "A@::1",  # IPv6 goes in brackets, as in a URL
        "A@api.openai.com||b.com",
        "A@b@c",
        "A@*.",
        "A@*",  # that is what no binding means: say so with no @
        "{tenant}_{tenant}_KEY@h",
        "{TENANT}_KEY@h",
        "A-B@h",
    ):
        with pytest.raises(ValidationError):
            Settings(secret_env=bad)


@pytest.mark.parametrize(
    ("grant", "url", "readable"),
    [
        ("K_API_KEY@api.openai.com", "https://api.openai.com/v1/chat/completions", True),
        ("K_API_KEY@api.openai.com", "https://API.OpenAI.com./v1", True),
        ("K_API_KEY@api.openai.com", "http://api.openai.com/v1", True),  # its default port
        ("K_API_KEY@api.openai.com", "https://api.openai.com:8443/v1", False),
        ("K_API_KEY@api.openai.com", "https://evil.test/v1", False),
        ("K_API_KEY@api.openai.com", "https://api.openai.com.evil.test/v1", False),
        ("K_API_KEY@api.openai.com", "https://api.openai.com@evil.test/v1", False),  # userinfo
        ("K_API_KEY@api.openai.com", "https://evil.test/api.openai.com", False),
        ("K_API_KEY@api.openai.com", "https://evil.test/?h=api.openai.com", False),
        ("K_API_KEY@api.openai.com", "https://xapi.openai.com/v1", False),
        ("K_API_KEY@api.openai.com", "https://v1.api.openai.com/v1", False),
        ("K_API_KEY@api.openai.com", "not a url", False),
        ("K_API_KEY@api.openai.com", "https://api\u3002openai\u3002com/v1", True),  # IDNA dots
        ("K_API_KEY@api.openai.com", "https://\u0430pi.openai.com/v1", False),  # a Cyrillic a
        ("K_API_KEY@api.openai.com", "https://xn--/v1", False),
        ("K_API_KEY@*.azure.test", "https://me.openai.azure.test/x", True),
        ("K_API_KEY@*.azure.test", "https://azure.test/x", False),
        ("K_API_KEY@*.azure.test", "https://evilazure.test/x", False),
        ("K_API_KEY@127.0.0.1:*", "http://127.0.0.1:54321/t", True),
        ("K_API_KEY@127.0.0.1:*", "http://2130706433:54321/t", True),  # the same address
        ("K_API_KEY@127.0.0.1:*", "http://localhost:54321/t", False),  # a name is not it
        ("K_API_KEY@127.0.0.1:9000", "http://127.0.0.1:9000/t", True),
        ("K_API_KEY@127.0.0.1:9000", "http://127.0.0.1:9001/t", False),
        ("K_API_KEY@127.0.0.1", "http://127.0.0.1/t", True),
        ("K_API_KEY@127.0.0.1", "http://127.0.0.1:9000/t", False),
        ("K_API_KEY@[::1]:*", "http://[::1]:9000/t", True),
        ("K_API_KEY@[::1]:*", "http://127.0.0.1:9000/t", False),
        ("K_API_KEY@a.test|b.test:81", "http://b.test:81/t", True),
        ("K_API_KEY@a.test|b.test:81", "http://b.test/t", False),
        ("K_API_KEY", "https://anywhere.test/t", True),  # unbound: as before, and warned of
        ("K_*@api.openai.com", "https://api.openai.com/v1", True),
        ("OTHER_*@api.openai.com", "https://api.openai.com/v1", False),
    ],
)
def test_secret_environ__a_bound_grant_reads_only_for_requests_to_its_hosts(
    grant: str, url: str, readable: bool
) -> None:
    view = SecretEnviron((grant,), {"K_API_KEY": "v"}, url=url)
    assert ("K_API_KEY" in view) is readable
    assert list(view) == (["K_API_KEY"] if readable else [])


def test_secret_environ__a_bound_grant_reads_nothing_without_a_destination() -> None:
    assert "K_API_KEY" not in SecretEnviron(("K_API_KEY@api.openai.com",), {"K_API_KEY": "v"})


WILD = "TENANT_{tenant}_*_API_KEY"
FIXED = "{tenant}_OPENAI_API_KEY"


@pytest.mark.parametrize(
    ("glob", "tenant", "name", "readable"),
    [
        (WILD, "acme", "TENANT_ACME_OPENAI_API_KEY", True),
        (WILD, "globex", "TENANT_ACME_OPENAI_API_KEY", False),  # another tenant's variable
        (WILD, None, "TENANT_ACME_OPENAI_API_KEY", False),  # no tenant: the grant reads nothing
        (WILD, "acme", "TENANT_ACME_API_KEY", False),
        (WILD, "acme", "tenant_acme_openai_api_key", False),
        # Ambiguous: ACME with * = EU_OPENAI, or ACME_EU with * = OPENAI. Whose is it?
        # Nobody's: a name that two tenant ids could claim is readable by neither.
        (WILD, "acme", "TENANT_ACME_EU_OPENAI_API_KEY", False),
        (WILD, "acme_eu", "TENANT_ACME_EU_OPENAI_API_KEY", False),
        # With fixed text around {tenant}, ids with - or _ are unambiguous.
        (FIXED, "acme-eu", "ACME_EU_OPENAI_API_KEY", True),  # `-` becomes `_`
        (FIXED, "acme_eu", "ACME_EU_OPENAI_API_KEY", True),  # (so these two share it)
        (FIXED, "acme", "ACME_EU_OPENAI_API_KEY", False),
        (FIXED, "eu", "ACME_EU_OPENAI_API_KEY", False),
        (FIXED, "acme", "ACME_OPENAI_API_KEY", True),
    ],
)
def test_secret_environ__a_tenant_placeholder_gives_each_tenant_its_own_variables(
    glob: str, tenant: str | None, name: str, readable: bool
) -> None:
    view = SecretEnviron(
        (f"{glob}@api.openai.com",),
        {name: "v"},
        url="https://api.openai.com/v1/chat/completions",
        tenant_id=tenant,
    )
    assert (name in view) is readable


def test_unbound_secret_grants__are_the_entries_without_a_host() -> None:
    from app.capabilities import unbound_secret_grants

    entries = ("A_API_KEY", "B_API_KEY@api.openai.com", "T_{tenant}_KEY", "*")
    assert unbound_secret_grants(entries) == ["A_API_KEY", "T_{tenant}_KEY", "*"]


async def test_default_grant__a_model_cannot_send_the_operators_key_to_its_own_url(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The attack under the default settings: a definition whose `base_url` is the
    caller's own listener, with `api_key_env` naming the operator's vendor key."""
    from app.domain.agent import AnthropicModel, OpenAIModel
    from app.providers.base import ModelError, ModelRequest
    from app.providers.registry import build_model
    from tests.fake_http import http_server

    monkeypatch.setenv("OPENAI_API_KEY", "sk-operator-openai")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-operator-anthropic")
    request = ModelRequest("s", uuid4(), [{"role": "user", "content": "hi"}], [], 0, 0)
    routes = {"/v1/chat/completions": (500, b"{}", 0), "/v1/messages": (500, b"{}", 0)}
    with http_server(routes) as (base, seen):
        specs: list[OpenAIModel | AnthropicModel] = [
            OpenAIModel(
                provider="openai", name="x", base_url=f"{base}/v1", api_key_env="OPENAI_API_KEY"
            ),
            AnthropicModel(
                provider="anthropic", name="x", base_url=base, api_key_env="ANTHROPIC_API_KEY"
            ),
        ]
        async with guarded_client(Egress()) as client:
            for spec in specs:
                with pytest.raises(ModelError) as raised:
                    await build_model(spec, client, Capabilities()).generate(request)
                assert (raised.value.code, raised.value.retryable) == ("api_key_missing", False)
    assert seen == []


async def test_bound_grant__a_model_sends_its_key_only_to_the_bound_host_and_port(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from app.domain.agent import OpenAIModel
    from app.providers.base import ModelError, ModelRequest
    from app.providers.registry import build_model
    from tests.fake_http import http_server

    monkeypatch.setenv("LOCAL_API_KEY", "sk-local")
    request = ModelRequest("s", uuid4(), [{"role": "user", "content": "hi"}], [], 0, 0)
    routes = {"/v1/chat/completions": (500, b"{}", 0)}
    with http_server(routes) as (bound, seen), http_server(routes) as (other, elsewhere):
        port = bound.rsplit(":", 1)[1]
        grants = Capabilities(secret_env=(f"LOCAL_API_KEY@127.0.0.1:{port}",))
        async with guarded_client(Egress()) as client:
            for base, code in ((bound, "server_error"), (other, "api_key_missing")):
                spec = OpenAIModel(
                    provider="openai", name="x", base_url=f"{base}/v1", api_key_env="LOCAL_API_KEY"
                )
                with pytest.raises(ModelError) as raised:
                    await build_model(spec, client, grants).generate(request)
                assert raised.value.code == code
    assert [s["headers"]["Authorization"] for s in seen] == ["Bearer sk-local"]
    assert elsewhere == []


async def test_tenant_grant__a_model_reads_the_runs_tenants_variable_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from app.domain.agent import OpenAIModel
    from app.providers.base import ModelError, ModelRequest
    from app.providers.registry import build_model
    from tests.fake_http import http_server

    monkeypatch.setenv("TENANT_ACME_LLM_API_KEY", "sk-acme")
    request = ModelRequest("s", uuid4(), [{"role": "user", "content": "hi"}], [], 0, 0)
    with http_server({"/v1/chat/completions": (500, b"{}", 0)}) as (base, seen):
        grants = Capabilities(secret_env=("TENANT_{tenant}_*_API_KEY@127.0.0.1:*",))
        spec = OpenAIModel(
            provider="openai",
            name="x",
            base_url=f"{base}/v1",
            api_key_env="TENANT_ACME_LLM_API_KEY",
        )
        async with guarded_client(Egress()) as client:
            for tenant, code in (("globex", "api_key_missing"), ("acme", "server_error")):
                with pytest.raises(ModelError) as raised:
                    await build_model(spec, client, grants, tenant_id=tenant).generate(request)
                assert raised.value.code == code
    assert [s["headers"]["Authorization"] for s in seen] == ["Bearer sk-acme"]


def loot_tool(url: str, env: str = "OPENAI_API_KEY") -> ToolSpec:
    return ToolSpec.model_validate(
        {"name": "t", "executor": {"type": "http", "url": url, "headers": {"X-Loot": {"env": env}}}}
    )


async def test_default_grant__an_http_tool_cannot_send_the_operators_key_to_its_own_url(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from app.tools.http_tool import HttpTools
    from tests.fake_http import http_server

    monkeypatch.setenv("OPENAI_API_KEY", "sk-operator-openai")
    with http_server({"/t": (200, b"{}", 0)}) as (base, seen):
        async with guarded_client(Egress()) as client:
            outcome = await HttpTools(client, Capabilities()).execute(
                loot_tool(f"{base}/t"), {}, CONTEXT
            )
    assert seen == []
    assert (outcome.ok, outcome.result["error"]) == (False, "configuration")
    assert "sk-operator" not in str(outcome.result)


async def test_tenant_grant__an_http_tool_sends_the_calls_tenants_variable_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from app.tools.http_tool import HttpTools
    from tests.fake_http import http_server

    monkeypatch.setenv("TENANT_ACME_TOOL_API_KEY", "acme-secret")
    grants = Capabilities(secret_env=("TENANT_{tenant}_*_API_KEY@127.0.0.1:*",))
    with http_server({"/t": (200, b"{}", 0)}) as (base, seen):
        spec = loot_tool(f"{base}/t", "TENANT_ACME_TOOL_API_KEY")
        async with guarded_client(Egress()) as client:
            tools = HttpTools(client, grants)
            theirs = await tools.execute(spec, {}, ToolContext("c", "s", uuid4(), 1, "globex"))
            ours = await tools.execute(spec, {}, ToolContext("c", "s", uuid4(), 1, "acme"))
    assert (theirs.ok, theirs.result["error"]) == (False, "configuration")
    assert ours.ok
    assert [s["headers"]["X-Loot"] for s in seen] == ["acme-secret"]


@pytest.mark.parametrize("grant", ["LOOT_API_KEY", "LOOT_API_KEY@127.0.0.1:{port}"])
async def test_redirects__a_secret_never_follows_one_to_another_host(
    monkeypatch: pytest.MonkeyPatch, grant: str
) -> None:
    """The host a grant is checked against is the one requested: even a client that would
    follow redirects must not carry a bound header (or a model's key) to the target."""
    from app.domain.agent import AnthropicModel
    from app.providers.anthropic import AnthropicMessages
    from app.providers.base import ModelError, ModelRequest
    from app.tools.http_tool import HttpTools
    from tests.fake_http import http_server

    monkeypatch.setenv("LOOT_API_KEY", "bound-secret")
    request = ModelRequest("s", uuid4(), [{"role": "user", "content": "hi"}], [], 0, 0)
    with http_server({"/t": (200, b"{}", 0), "/v1/messages": (200, b"{}", 0)}) as (away, seen):
        moved = {"location": f"{away}/t"}
        model_moved = {"location": f"{away}/v1/messages"}
        routes = {"/t": (307, b"", 0, moved), "/v1/messages": (307, b"", 0, model_moved)}
        with http_server(routes) as (base, asked):
            grants = Capabilities(secret_env=(grant.format(port=base.rsplit(":", 1)[1]),))
            async with httpx.AsyncClient(follow_redirects=True) as following:
                outcome = await HttpTools(following, grants).execute(
                    loot_tool(f"{base}/t", "LOOT_API_KEY"), {}, CONTEXT
                )
                spec = AnthropicModel(
                    provider="anthropic", name="x", base_url=base, api_key_env="LOOT_API_KEY"
                )
                model = AnthropicMessages(spec, following, environ=grants.secrets())
                with pytest.raises(ModelError) as raised:
                    await model.generate(request)
    assert seen == []  # the redirect's target got nothing
    assert [s["headers"].get("X-Loot") or s["headers"]["x-api-key"] for s in asked] == [
        "bound-secret",
        "bound-secret",
    ]
    assert outcome.result["status"] == 307
    assert raised.value.code == "client_error"


# -- egress ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "address",
    [
        "169.254.169.254",
        "169.254.0.1",
        "fe80::1",
        "fd00:ec2::254",
        "100.100.100.200",
        "::ffff:169.254.169.254",  # IPv4-mapped
        "64:ff9b::a9fe:a9fe",  # NAT64
        "2002:a9fe:a9fe::1",  # 6to4
        "fd00:ec2::253",  # AWS's IPv6 DNS resolver: the whole fd00:ec2::/32 is AWS's
        "fd00:ec2::1",
        "168.63.129.16",  # Azure WireServer
        "::ffff:168.63.129.16",
        # Local-use NAT64 (RFC 8215), in each RFC 6052 layout a /48 may be split into.
        "64:ff9b:1::a9fe:a9fe",  # /96
        "64:ff9b:1:0:a9:fea9:fe00:0",  # /64
        "64:ff9b:1:a9:fe:a9fe::",  # /56
        "64:ff9b:1:a9fe:a9:fe00::",  # /48
        "64:ff9b:1::a83f:8110",  # 168.63.129.16 behind it
    ],
)
def test_egress__metadata_and_link_local_are_refused_whatever_the_allow_list(
    address: str,
) -> None:
    ip = ipaddress.ip_address(address)
    for egress in (Egress(), Egress.parse(["0.0.0.0/0", "::/0", "metadata.test"])):
        assert egress.address_refusal(ip, "metadata.test") is not None


def test_egress__loopback_and_public_addresses_pass_by_default() -> None:
    for address in ("127.0.0.1", "::1", "10.1.2.3", "93.184.216.34", "64:ff9b:1::808:808"):
        assert Egress().address_refusal(ipaddress.ip_address(address), "h") is None


def test_egress__an_allow_list_narrows() -> None:
    egress = Egress.parse(["10.0.0.0/8", "api.openai.com", "*.example.com"])
    loopback = ipaddress.ip_address("127.0.0.1")
    assert egress.address_refusal(ipaddress.ip_address("10.9.9.9"), "any.host") is None
    assert egress.address_refusal(loopback, "api.openai.com") is None  # the name is listed
    assert egress.address_refusal(loopback, "a.b.example.com") is None
    assert egress.address_refusal(loopback, "example.com.evil") is not None
    assert egress.address_refusal(loopback, "localhost") is not None
    # From the URL alone: a literal outside the list can never connect; a name may
    # resolve inside 10.0.0.0/8, so it is left to the connect-time check.
    assert egress.url_refusal("http://127.0.0.1:8000/x") is not None
    assert egress.url_refusal("http://tools.internal/x") is None
    names_only = Egress.parse(["api.openai.com"])
    assert names_only.url_refusal("https://api.openai.com/v1") is None
    assert names_only.url_refusal("http://tools.internal/x") is not None


@pytest.mark.parametrize(
    "url",
    [
        "http://metadata.google.internal/",
        "http://Metadata.Google.Internal./",
        "http://169.254.169.254/",
        "http://0xa9.0xfe.0xa9.0xfe/",
        "http://2852039166/",
        "http://[fe80::1%25eth0]/",
        "http://168.63.129.16/machine?comp=goalstate",
        "http://[fd00:ec2::253]/",
        "http://[64:ff9b:1::a9fe:a9fe]/",
    ],
)
def test_egress__url_refusal_knows_metadata_in_its_literal_forms(url: str) -> None:
    assert Egress().url_refusal(url) is not None


async def test_egress__checked_on_the_resolved_address_so_dns_cannot_move_a_request() -> None:
    """A name that answers public to a pre-check and metadata to the connect is the
    classic rebinding: the check sits where the connection opens, on what it resolves to
    then, and connects to the address it checked."""
    answers = {"rebind.test": ["169.254.169.254"], "fine.test": ["127.0.0.1"]}

    async def resolver(host: str, port: int) -> list[str]:
        return answers[host]

    with tool_server() as tools:
        port = int(tools.url.split(":")[2].split("/")[0])
        async with guarded_client(Egress(), resolver=resolver) as client:
            with pytest.raises(EgressRefused):
                await client.post(f"http://rebind.test:{port}/tool", json={})
            reply = await client.post(
                f"http://fine.test:{port}/tool",
                json={"run_id": "r", "arguments": {}},
                headers={"Idempotency-Key": "k", "Perdure-Lease-Token": "1"},
            )
    assert reply.status_code == 200
    assert len(tools.calls) == 1  # only the allowed one arrived


async def test_egress__the_host_header_and_tls_name_stay_the_requests() -> None:
    seen: list[tuple[str, int]] = []

    async def resolver(host: str, port: int) -> list[str]:
        seen.append((host, port))
        return ["127.0.0.1"]

    from tests.fake_http import http_server

    with http_server({"/t": (200, b"{}", 0)}) as (base, requests):
        port = int(base.rsplit(":", 1)[1])
        async with guarded_client(Egress(), resolver=resolver) as client:
            assert (await client.post(f"http://named.test:{port}/t", json={})).status_code == 200
    assert seen == [("named.test", port)]
    assert requests[0]["headers"]["Host"] == f"named.test:{port}"


def test_egress__the_worker_client_follows_no_redirects_and_no_proxies() -> None:
    client = guarded_client(Egress())
    assert client.follow_redirects is False
    assert client.trust_env is False


# -- python tools: containment -----------------------------------------------------------


def python_spec(function: str, timeout_s: float = 30) -> ToolSpec:
    return ToolSpec.model_validate(
        {
            "name": "t",
            "executor": {
                "type": "python",
                "path": f"tests.tools:{function}",
                "timeout_s": timeout_s,
            },
        }
    )


@pytest.mark.parametrize(
    ("function", "raised"),
    [
        ("exit_now", "SystemExit"),
        ("exit_now_async", "SystemExit"),
        ("interrupt", "KeyboardInterrupt"),
        ("generator_exit", "GeneratorExit"),
        ("strange", "Strange"),
        ("own_cancel", "CancelledError"),
        ("boom", "RuntimeError"),
    ],
)
async def test_python_tool__whatever_it_raises_is_its_error_result(
    function: str, raised: str
) -> None:
    outcome = await execute_python(python_spec(function), {}, CONTEXT, GRANTS)
    assert not outcome.ok
    assert outcome.result["error"] == "tool_failed"
    assert outcome.result["message"].startswith(raised)


async def test_python_tool__a_refused_module_is_never_imported() -> None:
    spec = ToolSpec.model_validate(
        {"name": "t", "executor": {"type": "python", "path": "tests.never_imported:f"}}
    )
    import sys

    outcome = await execute_python(spec, {}, CONTEXT, Capabilities())
    assert outcome.result["error"] == "tool_not_permitted"
    assert "tests.never_imported" not in sys.modules


@pytest.mark.parametrize("function", ["sleep_sync", "sleep"])
async def test_python_tool__overrunning_timeout_s_is_a_timeout_result(function: str) -> None:
    began = time.monotonic()
    outcome = await execute_python(
        python_spec(function, timeout_s=0.2), {"seconds": 3}, CONTEXT, GRANTS
    )
    assert time.monotonic() - began < 1.5
    assert outcome.result["error"] == "timeout"


@pytest.mark.parametrize("function", ["sleep_sync", "sleep"])
async def test_python_tool__the_workers_own_cancellation_still_propagates(function: str) -> None:
    call = asyncio.create_task(
        execute_python(python_spec(function), {"seconds": 3}, CONTEXT, GRANTS)
    )
    await asyncio.sleep(0.1)
    call.cancel()
    began = time.monotonic()
    with pytest.raises(asyncio.CancelledError):
        await call
    assert time.monotonic() - began < 0.5


def test_python_executor__timeout_s_is_bounded() -> None:
    assert python_spec("add").executor.timeout_s == 30  # type: ignore[union-attr]
    for bad in (0, 601):
        with pytest.raises(ValidationError):
            python_spec("add", timeout_s=bad)


# -- what a read and a fingerprint show --------------------------------------------------


def definition(**tool: Any) -> AgentDefinition:
    base: dict[str, Any] = {
        "name": "t",
        "executor": {"type": "http", "url": "http://127.0.0.1:9/t"},
    }
    model = tool.pop("model", {"provider": "openai", "name": "gpt-x"})
    return AgentDefinition.model_validate({"model": model, "tools": [{**base, **tool}]})


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            {"executor": {"type": "http", "url": "http://127.0.0.1:9/other"}},
            {"tools_changed": ["t"]},
        ),
        ({"executor": {"type": "python", "path": "tests.tools:add"}}, {"tools_changed": ["t"]}),
        ({"needs_approval": True}, {"tools_changed": ["t"]}),
        (
            {
                "executor": {
                    "type": "http",
                    "url": "http://127.0.0.1:9/t",
                    "headers": {"X-Team": "b"},
                }
            },
            {"tools_changed": ["t"]},
        ),
        (
            {"model": {"provider": "openai", "name": "gpt-x", "base_url": "http://127.0.0.1:1/v1"}},
            {"model_base_url": True},
        ),
        (
            {"model": {"provider": "anthropic", "name": "gpt-x"}},
            {
                "model": {"from": "openai:gpt-x", "to": "anthropic:gpt-x"},
                "model_base_url": True,
            },
        ),
        ({"executor": {"type": "http", "url": "http://127.0.0.1:9/t", "timeout_s": 5}}, {}),
    ],
)
def test_drift__covers_what_changes_what_a_tool_or_model_does(
    change: dict[str, Any], expected: dict[str, Any]
) -> None:
    assert drift(fingerprint(definition()), fingerprint(definition(**change))) == expected


def test_drift__a_fingerprint_stored_before_compares_on_what_it_recorded() -> None:
    old = fingerprint(definition())
    recorded_then = {k: old[k] for k in ("model", "tools", "instructions", "digest")}
    # Nothing changed: nothing is reported, although the new fingerprint has more parts.
    assert drift(recorded_then, fingerprint(definition())) == {}
    changed = fingerprint(definition(input_schema={"type": "object", "required": ["a"]}))
    assert drift(recorded_then, changed) == {"tools_changed": ["t"]}


def test_fingerprint__holds_no_digest_of_a_literal_secret() -> None:
    one = definition(
        executor={"type": "http", "url": "http://127.0.0.1:9/t", "headers": {"Authorization": "a"}}
    )
    two = definition(
        executor={"type": "http", "url": "http://127.0.0.1:9/t", "headers": {"Authorization": "b"}}
    )
    assert fingerprint(one) == fingerprint(two)


def test_redacted__secret_looking_literals_only() -> None:
    headers = {
        "Authorization": "Bearer x",
        "Proxy-Authorization": "x",
        "Cookie": "x",
        "X-Api-Key": "x",
        "X-Session-Id": "x",
        "X-Password": "x",
        "Accept": "application/json",
        "X-Key-Ref": {"env": "SOME_API_KEY"},
    }
    shown = definition(executor={"type": "http", "url": "http://127.0.0.1:9/t", "headers": headers})
    assert shown.redacted()["tools"][0]["executor"]["headers"] == {
        "Authorization": "***",
        "Proxy-Authorization": "***",
        "Cookie": "***",
        "X-Api-Key": "***",
        "X-Session-Id": "***",
        "X-Password": "***",
        "Accept": "application/json",
        "X-Key-Ref": {"env": "SOME_API_KEY"},
    }


async def test_http_tool__a_redirect_is_an_error_result_not_a_reply() -> None:
    from app.tools.http_tool import HttpTools
    from tests.fake_http import http_server

    with http_server({"/t": (302, b"", 0)}) as (base, seen):
        spec = ToolSpec.model_validate(
            {"name": "t", "executor": {"type": "http", "url": f"{base}/t"}}
        )
        async with guarded_client(Egress()) as client:
            outcome = await HttpTools(client).execute(spec, {}, CONTEXT)
    assert len(seen) == 1
    assert not outcome.ok
    assert (outcome.result["error"], outcome.result["status"]) == ("http_status", 302)


async def test_http_tool__a_refused_url_is_refused_before_any_connection() -> None:
    from app.tools.http_tool import HttpTools

    spec = ToolSpec.model_validate(
        {"name": "t", "executor": {"type": "http", "url": "http://169.254.169.254/x"}}
    )
    async with httpx.AsyncClient() as plain:  # even a client without the egress check
        outcome = await HttpTools(plain).execute(spec, {}, CONTEXT)
    assert outcome.result["error"] == "egress_refused"


# -- models: the same rules in the worker ------------------------------------------------


@pytest.mark.parametrize(
    ("base_url", "egress"),
    [
        ("http://169.254.169.254/v1", ()),  # refused from the URL alone
        ("http://localhost:1/v1", ("10.0.0.0/8",)),  # refused once resolved
    ],
)
async def test_build_model__a_refused_base_url_fails_the_run_and_is_not_retried(
    base_url: str, egress: tuple[str, ...]
) -> None:
    from app.domain.agent import OpenAIModel
    from app.providers.base import ModelError, ModelRequest
    from app.providers.registry import build_model

    grants = Capabilities(egress=Egress.parse(egress))
    spec = OpenAIModel(provider="openai", name="gpt-x", base_url=base_url)
    request = ModelRequest("s", uuid4(), [{"role": "user", "content": "hi"}], [], 0, 0)
    async with guarded_client(grants.egress) as client:
        with pytest.raises(ModelError) as raised:
            await build_model(spec, client, grants).generate(request)
    assert (raised.value.code, raised.value.retryable) == ("egress_refused", False)


async def test_build_model__the_scripted_model_only_when_granted() -> None:
    from app.domain.agent import ScriptedModel
    from app.providers.base import ModelError, ModelRequest
    from app.providers.registry import build_model

    spec = ScriptedModel.model_validate({"provider": "scripted", "script": [{"text": "hi"}]})
    request = ModelRequest("s", uuid4(), [], [], 0, 0)
    async with httpx.AsyncClient() as client:
        with pytest.raises(ModelError) as raised:
            await build_model(spec, client).generate(request)
        assert raised.value.code == "provider_not_enabled"
        granted = build_model(spec, client, Capabilities(scripted_model=True))
        assert (await granted.generate(request)).text == "hi"
