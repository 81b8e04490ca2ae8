"""What only the operator may grant (DESIGN.md §12, "operator capabilities"): which code
runs in the workers, which environment variables are secrets a definition may name, where
requests may go, and whether the scripted model exists. One rule each, used both by the
API when a definition arrives and by the worker when a call runs (a definition stored
before a tightening must not slip through).

Pure: no I/O beyond reading the environment, no HTTP, no SQL (httpx only parses URLs).
`app.egress` applies the egress rule to the addresses a name resolves to, at connect time.
"""

from __future__ import annotations

import ipaddress
import os
import re
import socket
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import httpx

from app.domain.agent import (
    REDACTED,
    AgentDefinition,
    EnvValue,
    HttpExecutor,
    PythonExecutor,
    RemoteModel,
    ScriptedModel,
    is_secret_header,
)

if TYPE_CHECKING:
    from app.settings import Settings

# -- python tools ------------------------------------------------------------------------

DEFAULT_PYTHON_TOOLS = ("app.tools.demo",)
MODULE = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")


def check_module_prefix(prefix: str) -> str:
    if not MODULE.match(prefix):
        raise ValueError(f"{prefix!r} is not a module path (dotted names, e.g. app.tools.demo)")
    return prefix


def module_allowed(module: str, prefixes: Iterable[str]) -> bool:
    """Whether `module` is one of `prefixes` or inside one, on whole module names:
    `app.tools.demo` allows `app.tools.demo.more`, never `app.tools.demo_evil`."""
    if not MODULE.match(module):
        return False
    return any(module == p or module.startswith(p + ".") for p in prefixes)


# -- secrets -----------------------------------------------------------------------------

DEFAULT_SECRET_ENV = ("*_API_KEY",)
# Never readable, whatever PERDURE_SECRET_ENV says: Perdure's own configuration (the
# database and its password), libpq's variables, and the cloud credentials of the machine
# the worker runs on. A definition that could name them would send them to any URL.
NEVER_SECRET_ENV = (
    "DATABASE_URL",
    "PERDURE_*",
    "PG*",
    "AWS_*",
    "AZURE_CLIENT_SECRET",
    "AZURE_CLIENT_CERTIFICATE_PASSWORD",
    "AZURE_PASSWORD",
    "GOOGLE_APPLICATION_CREDENTIALS",
)
ENV_GLOB = re.compile(r"^[A-Za-z0-9_*?\[\]!]{1,128}$")


def check_env_glob(glob: str) -> str:
    if not ENV_GLOB.match(glob):
        raise ValueError(
            f"{glob!r} is not a variable name or glob (letters, digits, _, and * ? [ ])"
        )
    return glob


def unavailable_message(name: str) -> str:
    """One message for a variable that is not set and one that may not be read, so that
    the answer tells nothing about what exists."""
    return (
        f"environment variable {name} is not available: it is not set here, "
        "or PERDURE_SECRET_ENV does not let definitions read it"
    )


class SecretEnviron(Mapping[str, str]):
    """The environment as a definition may see it: only the names the operator lets
    through (`PERDURE_SECRET_ENV`, never `NEVER_SECRET_ENV`). A refused name reads as
    absent, and its value is never looked up."""

    def __init__(self, globs: Iterable[str], source: Mapping[str, str] | None = None) -> None:
        self.globs = tuple(globs)
        self.source = os.environ if source is None else source

    def readable(self, name: str) -> bool:
        if any(fnmatchcase(name, never) for never in NEVER_SECRET_ENV):
            return False
        return any(fnmatchcase(name, glob) for glob in self.globs)

    def __getitem__(self, name: str) -> str:
        if not self.readable(name):
            raise KeyError(name)
        return self.source[name]

    def __iter__(self) -> Iterator[str]:
        return (name for name in list(self.source) if self.readable(name))

    def __len__(self) -> int:
        return sum(1 for _ in self)


# -- egress ------------------------------------------------------------------------------

IpAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IpNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

# Refused whatever PERDURE_EGRESS says: link-local (where every cloud's instance metadata
# service answers with the machine's credentials) and the metadata addresses that are not
# link-local.
ALWAYS_REFUSED_NETWORKS: tuple[IpNetwork, ...] = tuple(
    ipaddress.ip_network(n)
    for n in (
        "169.254.0.0/16",  # link-local: AWS, GCP, Azure, OCI metadata at 169.254.169.254
        "fe80::/10",  # IPv6 link-local
        "fd00:ec2::254/128",  # AWS metadata over IPv6
        "100.100.100.200/32",  # Alibaba Cloud metadata
    )
)
METADATA_HOSTS = frozenset(
    {
        "metadata",
        "metadata.google.internal",
        "metadata.goog",
        "instance-data",
        "instance-data.ec2.internal",
    }
)
NAT64 = ipaddress.ip_network("64:ff9b::/96")


def _embedded_ipv4(address: IpAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one carries (mapped, 6to4, NAT64), which is where a
    connection to it ends up."""
    if isinstance(address, ipaddress.IPv4Address):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address in NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def ip_literal(host: str) -> IpAddress | None:
    """The address a URL's host names without any lookup: dotted, IPv6, and the other
    forms the C library accepts for IPv4 (`2852039166`, `0xa9.0xfe.0xa9.0xfe`)."""
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        pass
    if host.isascii() and host and all(c.isalnum() or c == "." for c in host):
        try:
            return ipaddress.IPv4Address(socket.inet_aton(host))
        except OSError:
            return None
    return None


def normal_host(host: str) -> str:
    return host.strip("[]").rstrip(".").lower()


@dataclass(frozen=True)
class Egress:
    """Where http tools and models may connect.

    Always refused: `ALWAYS_REFUSED_NETWORKS` (also as IPv4-mapped, 6to4 or NAT64
    addresses) and `METADATA_HOSTS`. With no allow-list, anything else is allowed
    (loopback too: local model servers and tests). With one, only what it lists: a host
    name (`api.openai.com`, or `*.example.com` for names under it) admits that name
    wherever it resolves; an address or CIDR (`10.0.0.0/8`, `::1`) admits connections to
    resolved addresses inside it.
    """

    hosts: tuple[str, ...] = ()
    networks: tuple[IpNetwork, ...] = ()

    @classmethod
    def parse(cls, entries: Iterable[str]) -> Egress:
        hosts: list[str] = []
        networks: list[IpNetwork] = []
        for raw in entries:
            entry = raw.strip()
            try:
                networks.append(ipaddress.ip_network(entry.strip("[]"), strict=False))
                continue
            except ValueError:
                pass
            name = normal_host(entry)
            bare = name[2:] if name.startswith("*.") else name
            if not re.fullmatch(
                r"[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*", bare
            ):
                raise ValueError(f"{raw!r} is not a host name, *.domain, IP address or CIDR")
            hosts.append(name)
        return cls(tuple(hosts), tuple(networks))

    @property
    def restricted(self) -> bool:
        return bool(self.hosts or self.networks)

    def host_listed(self, host: str) -> bool:
        name = normal_host(host)
        return any(
            name == entry or (entry.startswith("*.") and name.endswith(entry[1:]))
            for entry in self.hosts
        )

    def host_refusal(self, host: str) -> str | None:
        """Why a connection to `host` is refused before any lookup; None if it may go on."""
        if normal_host(host) in METADATA_HOSTS:
            return f"{host} is a cloud metadata service, never reachable from tools or models"
        literal = ip_literal(normal_host(host))
        if literal is not None:
            return self.address_refusal(literal, host)
        return None

    def address_refusal(self, address: IpAddress, host: str) -> str | None:
        """Why a connection to `address` (which `host` resolved to) is refused; None if
        it is allowed."""
        if always_refused(address):
            return (
                f"{host} is {address}: link-local or cloud metadata addresses are never "
                "reachable from tools or models"
            )
        if not self.restricted or self.host_listed(host):
            return None
        if any(address in network for network in self.networks):
            return None
        return f"{host} ({address}) is not in PERDURE_EGRESS"

    def url_refusal(self, url: str) -> str | None:
        """Why every call to `url` would be refused, known from the URL alone (no lookup:
        a name is checked again on each connect, against what it resolves to then)."""
        try:  # the host as the request will name it (httpx applies IDNA: 169。254…)
            host = httpx.URL(url).host
        except httpx.InvalidURL:  # no request can be made to it either
            host = urlsplit(url).hostname or ""
        refusal = self.host_refusal(host)
        if refusal is not None:
            return refusal
        literal = ip_literal(normal_host(host))
        if literal is None and self.restricted and not self.networks and not self.host_listed(host):
            return f"{host} is not in PERDURE_EGRESS"
        return None


def always_refused(address: IpAddress) -> bool:
    candidates: list[IpAddress] = [address]
    embedded = _embedded_ipv4(address)
    if embedded is not None:
        candidates.append(embedded)
    if isinstance(address, ipaddress.IPv6Address) and address.scope_id:
        candidates.append(ipaddress.IPv6Address(str(address).split("%")[0]))
    return any(
        c in n for c in candidates for n in ALWAYS_REFUSED_NETWORKS if c.version == n.version
    )


# -- model replies -----------------------------------------------------------------------

# The most a model reply's body may hold (PERDURE_MAX_MODEL_REPLY_BYTES): a definition
# chooses the model's URL, the operator how much of a worker's memory its reply may take.
# A long reply of a large model is well under 1 MiB of JSON.
DEFAULT_MODEL_REPLY_BYTES = 8 * 1024 * 1024
MIN_MODEL_REPLY_BYTES = 64 * 1024
MAX_MODEL_REPLY_BYTES = 1024 * 1024 * 1024


# -- all of it ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Capabilities:
    """The operator's grants, from the settings (`Capabilities()` is the default:
    the demo tools, `*_API_KEY`, any address but metadata, no scripted model, model
    replies of up to 8 MiB)."""

    python_tools: tuple[str, ...] = DEFAULT_PYTHON_TOOLS
    secret_env: tuple[str, ...] = DEFAULT_SECRET_ENV
    egress: Egress = field(default_factory=Egress)
    scripted_model: bool = False
    model_reply_bytes: int = DEFAULT_MODEL_REPLY_BYTES

    @classmethod
    def of(cls, settings: Settings) -> Capabilities:
        return cls(
            python_tools=tuple(settings.python_tools),
            secret_env=tuple(settings.secret_env),
            egress=Egress.parse(settings.egress),
            scripted_model=bool(settings.scripted_model),
            model_reply_bytes=settings.max_model_reply_bytes,
        )

    def secrets(self, source: Mapping[str, str] | None = None) -> SecretEnviron:
        return SecretEnviron(self.secret_env, source)

    def python_refusal(self, path: str) -> str | None:
        module = path.partition(":")[0]
        if module_allowed(module, self.python_tools):
            return None
        return f"{path}: module {module} is not in PERDURE_PYTHON_TOOLS on this server"

    def function_refusal(self, path: str, function: Any) -> str | None:
        """After the import: the object must be a public function of an allowed module,
        not something the module imported (`pkg.tools:os` is not a tool)."""
        attribute = path.partition(":")[2]
        home = getattr(function, "__module__", None)
        if attribute.startswith("_") or not isinstance(home, str):
            return f"{path} is not a public function"
        if not module_allowed(home, self.python_tools):
            return f"{path} is defined in {home}, which is not in PERDURE_PYTHON_TOOLS"
        return None

    def definition_problems(self, definition: AgentDefinition) -> list[dict[str, Any]]:
        """What in `definition` the operator has not granted, as validation errors
        (`loc`, `type`, `msg`) in the shape of FastAPI's 422s."""
        problems: list[dict[str, Any]] = []

        def add(loc: tuple[Any, ...], kind: str, message: str) -> None:
            where = ["body", *(str(part) for part in loc)]
            problems.append({"loc": where, "type": kind, "msg": message})

        model = definition.model
        if isinstance(model, ScriptedModel) and not self.scripted_model:
            add(
                ("model", "provider"),
                "provider_not_enabled",
                "the scripted model is not enabled on this server (PERDURE_SCRIPTED_MODEL)",
            )
        if isinstance(model, RemoteModel):
            refusal = self.egress.url_refusal(model.base_url)
            if refusal:
                add(("model", "base_url"), "egress_refused", refusal)
            if model.api_key_env and model.api_key_env not in self.secrets():
                add(
                    ("model", "api_key_env"),
                    "env_unavailable",
                    unavailable_message(model.api_key_env),
                )
        for index, tool in enumerate(definition.tools):
            executor = tool.executor
            if isinstance(executor, PythonExecutor):
                refusal = self.python_refusal(executor.path)
                if refusal:
                    add(("tools", index, "executor", "path"), "tool_not_permitted", refusal)
            if isinstance(executor, HttpExecutor):
                refusal = self.egress.url_refusal(executor.url)
                if refusal:
                    add(("tools", index, "executor", "url"), "egress_refused", refusal)
                for name, value in executor.headers.items():
                    where = ("tools", index, "executor", "headers", name)
                    if isinstance(value, EnvValue) and value.env not in self.secrets():
                        add(where, "env_unavailable", unavailable_message(value.env))
                    if isinstance(value, str) and value == REDACTED and is_secret_header(name):
                        add(
                            where,
                            "redacted_value",
                            f"{REDACTED} is what a read shows in place of a secret: send the "
                            'value, or better {"env": "NAME"}',
                        )
        return problems
