"""What only the operator may grant (DESIGN.md §12, "operator capabilities"): which code
runs in the workers, which environment variables are secrets a definition may name (for
which tenant, sent to which hosts), where requests may go, and whether the scripted model
exists. One rule each, used both by the
API when a definition arrives and by the worker when a call runs (a definition stored
before a tightening must not slip through).

Pure: no I/O beyond reading the environment, no HTTP, no SQL (httpx only parses URLs).
`app.egress` applies the egress rule to the addresses a name resolves to, at connect time.
"""

from __future__ import annotations

import fnmatch
import ipaddress
import os
import re
import socket
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from functools import lru_cache
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
from app.errors import FieldError, InvalidDefinition

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
        "fd00:ec2::/32",  # AWS's IPv6 services: metadata (::254), DNS (::253), NTP (::123)
        "100.100.100.200/32",  # Alibaba Cloud metadata
        "168.63.129.16/32",  # Azure WireServer (the VM agent's goal state, certificates)
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
# Local-use NAT64 (RFC 8215): a network may split the /48 into a prefix of 48, 56, 64 or 96
# bits, so the IPv4 address sits in one of RFC 6052's layouts (bits 64-71 are skipped).
LOCAL_NAT64 = ipaddress.ip_network("64:ff9b:1::/48")
# (start, end) bit ranges, counted from the left, that hold the IPv4 address per layout.
RFC6052_LAYOUTS = (
    ((96, 128),),  # /96
    ((72, 104),),  # /64
    ((56, 64), (72, 96)),  # /56
    ((48, 64), (72, 88)),  # /48
)


def _bits(value: int, start: int, end: int) -> tuple[int, int]:
    return (value >> (128 - end)) & ((1 << (end - start)) - 1), end - start


def _embedded_ipv4s(address: IpAddress) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 one may carry (mapped, 6to4, NAT64), which is where a
    connection to it may end up. For local-use NAT64 every layout counts: which one the
    network uses is not known here."""
    if isinstance(address, ipaddress.IPv4Address):
        return []
    if address.ipv4_mapped is not None:
        return [address.ipv4_mapped]
    if address.sixtofour is not None:
        return [address.sixtofour]
    if address in NAT64:
        return [ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)]
    if address in LOCAL_NAT64:
        found = []
        for layout in RFC6052_LAYOUTS:
            value = 0
            for start, end in layout:
                part, width = _bits(int(address), start, end)
                value = (value << width) | part
            found.append(ipaddress.IPv4Address(value))
        return found
    return []


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


def request_host(url: str | httpx.URL) -> str | None:
    """The host a request to `url` connects to, as the HTTP client will name it: IDNA
    applied (`169。254…`, `bücher` -> `xn--bcher-kva`), never decoded back (`.host` would,
    and raises on a malformed `xn--` label). None if no request can be made to it."""
    try:
        parsed = url if isinstance(url, httpx.URL) else httpx.URL(url)
        return parsed.raw_host.decode("ascii")
    except (httpx.InvalidURL, TypeError, ValueError):  # ValueError: UnicodeError, IDNAError
        return None


@dataclass(frozen=True)
class Egress:
    """Where http tools and models may connect.

    Always refused: `ALWAYS_REFUSED_NETWORKS` (also as IPv4-mapped, 6to4, NAT64 or
    local-use NAT64 addresses) and `METADATA_HOSTS`. With no allow-list, anything else is allowed
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
        host = request_host(url)
        if host is None:  # no request can be made to it either
            host = urlsplit(url).hostname or ""
        refusal = self.host_refusal(host)
        if refusal is not None:
            return refusal
        literal = ip_literal(normal_host(host))
        if literal is None and self.restricted and not self.networks and not self.host_listed(host):
            return f"{host} is not in PERDURE_EGRESS"
        return None


def always_refused(address: IpAddress) -> bool:
    candidates: list[IpAddress] = [address, *_embedded_ipv4s(address)]
    if isinstance(address, ipaddress.IPv6Address) and address.scope_id:
        candidates.append(ipaddress.IPv6Address(str(address).split("%")[0]))
    return any(
        c in n for c in candidates for n in ALWAYS_REFUSED_NETWORKS if c.version == n.version
    )


# -- secrets -----------------------------------------------------------------------------

# Each entry of PERDURE_SECRET_ENV is `GLOB@HOST|HOST…`: the variables GLOB names may be
# sent only in requests whose URL host is one of the HOSTs. A HOST is a name
# (`api.openai.com`), `*.domain` (names under it, not the domain itself), an IPv4 address
# or a bracketed IPv6 one; alone it means the URL's default port, `HOST:PORT` that port,
# `HOST:*` any. GLOB may hold `{tenant}` once: the tenant id of the definition (at the API)
# or of the run (in the worker), upper-cased with `-` as `_`. An entry without `@` may be
# sent anywhere egress allows (as before bindings existed): it is warned of at start.
DEFAULT_SECRET_ENV = ("OPENAI_API_KEY@api.openai.com", "ANTHROPIC_API_KEY@api.anthropic.com")
# Never readable, whatever PERDURE_SECRET_ENV says: Perdure's own configuration (the
# database and its password), libpq's variables, and the cloud credentials of the machine
# the worker runs on. A definition that could name them would send them to any URL. Matched
# in any case: pydantic-settings reads `database_url` or `perdure_egress` as its own.
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
TENANT = "{tenant}"
ENV_GLOB = re.compile(r"^[A-Za-z0-9_*?\[\]!]{1,128}$")
HOST_NAME = re.compile(r"[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*")
# What `{tenant}` stands for in a variable name: a tenant id (app.domain.principal's
# TENANT_PATTERN) upper-cased, `-` as `_`.
TENANT_TOKEN = re.compile(r"[A-Z0-9][A-Z0-9_]{0,62}")
ANY_PORT = -1


def tenant_token(tenant_id: str) -> str:
    """How a tenant id appears in a variable name: `acme-eu` -> `ACME_EU`."""
    return tenant_id.upper().replace("-", "_")


def never_readable(name: str) -> bool:
    upper = name.upper()
    return any(fnmatchcase(upper, never) for never in NEVER_SECRET_ENV)


@dataclass(frozen=True)
class Destination:
    """One HOST of a binding: a name, `*.domain`, or an address; `port` None means the
    URL's default port (no port in it), ANY_PORT any port."""

    host: str
    address: IpAddress | None
    port: int | None

    @classmethod
    def parse(cls, raw: str) -> Destination:
        text = raw.strip()
        problem = (
            f"{raw!r} is not a destination: a host name, *.domain, IPv4 address or "
            "[IPv6] address, with :PORT or :* for other ports than the default"
        )
        if text.startswith("["):
            close = text.find("]")
            if close < 0:
                raise ValueError(problem)
            host, rest = text[1:close], text[close + 1 :]
            if rest and not rest.startswith(":"):
                raise ValueError(problem)
            port_text = rest[1:] if rest else None
            try:
                address: IpAddress | None = ipaddress.IPv6Address(host)
            except ValueError:
                raise ValueError(problem) from None
        else:
            if text.count(":") > 1:
                raise ValueError(f"{raw!r}: an IPv6 address goes in brackets, as in [::1]:8080")
            host, colon, port_text_or_empty = text.partition(":")
            port_text = port_text_or_empty if colon else None
            host = host.rstrip(".").lower()
            address = ip_literal(host)
            bare = host[2:] if host.startswith("*.") else host
            if address is None and not HOST_NAME.fullmatch(bare):
                raise ValueError(problem)
        port: int | None = None
        if port_text is not None:
            if port_text == "*":
                port = ANY_PORT
            elif port_text.isdigit() and 0 < int(port_text) < 65536:
                port = int(port_text)
            else:
                raise ValueError(problem)
        return cls(host, address, port)

    def admits(self, host: str, address: IpAddress | None, port: int | None) -> bool:
        """Whether a request to `host` (normalised; `address` if it is a literal) on
        `port` (None: the scheme's default) is to this destination."""
        if self.port != ANY_PORT and port != self.port:
            return False
        if self.address is not None or address is not None:
            return self.address == address
        if self.host.startswith("*."):
            return host.endswith(self.host[1:])
        return host == self.host


@dataclass(frozen=True)
class Target:
    """Where a request goes, as the HTTP client will send it: the host of the URL (IDNA
    applied, lower case, no trailing dot), its address if it is a literal, and its port
    (None when it is the scheme's default)."""

    host: str
    address: IpAddress | None
    port: int | None

    @classmethod
    def of(cls, url: str | httpx.URL) -> Target | None:
        try:
            parsed = url if isinstance(url, httpx.URL) else httpx.URL(url)
        except (httpx.InvalidURL, TypeError, ValueError):
            return None
        raw = request_host(parsed)
        if parsed.scheme not in ("http", "https") or not raw:
            return None
        host = normal_host(raw)
        return cls(host, ip_literal(host), parsed.port)


@dataclass(frozen=True)
class SecretGrant:
    """One entry of PERDURE_SECRET_ENV: a glob of variable names and where they may go
    (no destinations: anywhere, the pre-binding meaning)."""

    entry: str
    glob: str
    destinations: tuple[Destination, ...]

    @classmethod
    def parse(cls, entry: str) -> SecretGrant:
        return _parse_grant(entry.strip())

    @property
    def bound(self) -> bool:
        return bool(self.destinations)

    def names(self, name: str, tenant_id: str | None) -> bool:
        """Whether the glob names `name` for `tenant_id`. With `{tenant}`: only if the
        tenant's token is the one way the name matches; a name another tenant id could
        claim too (`T_{tenant}_*` and `T_A_B_X`: tenant `a` or `a_b`?) is nobody's."""
        if TENANT not in self.glob:
            return fnmatchcase(name, self.glob)
        if tenant_id is None:
            return False
        return _tenant_tokens(self.glob, name) == {tenant_token(tenant_id)}

    def sends_to(self, target: Target | None) -> bool:
        if not self.bound:
            return True
        if target is None:
            return False
        return any(d.admits(target.host, target.address, target.port) for d in self.destinations)


@lru_cache(maxsize=256)
def _parse_grant(entry: str) -> SecretGrant:
    glob, at, hosts = entry.partition("@")
    glob = glob.strip()
    check_env_glob(glob)
    destinations: tuple[Destination, ...] = ()
    if at:
        if "@" in hosts:
            raise ValueError(f"{entry!r}: one @ between the glob and its hosts")
        parts = hosts.split("|")
        if any(not part.strip() for part in parts):
            raise ValueError(
                f"{entry!r}: no host after @ (GLOB@HOST|HOST…; leave out @… to send anywhere)"
            )
        destinations = tuple(Destination.parse(part) for part in parts)
    return SecretGrant(entry, glob, destinations)


@lru_cache(maxsize=64)
def _tenant_pattern(glob: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    before, _, after = glob.partition(TENANT)
    return re.compile(fnmatch.translate(before)), re.compile(fnmatch.translate(after))


def _tenant_tokens(glob: str, name: str) -> set[str]:
    """Every tenant token for which `glob` names `name`."""
    if not fnmatchcase(name, glob.replace(TENANT, "*")):
        return set()  # the common case, without trying every split of the name
    before, after = _tenant_pattern(glob)
    found: set[str] = set()
    for start in range(len(name) + 1):
        if not before.match(name[:start]):
            continue
        for end in range(start + 1, min(len(name), start + 63) + 1):
            token = name[start:end]
            if TENANT_TOKEN.fullmatch(token) and after.match(name[end:]):
                found.add(token)
    return found


def check_env_glob(glob: str) -> str:
    if glob.count(TENANT) > 1 or not ENV_GLOB.match(glob.replace(TENANT, "T")):
        raise ValueError(
            f"{glob!r} is not a variable name or glob (letters, digits, _, * ? [ ], and "
            "{tenant} at most once)"
        )
    return glob


def check_secret_grant(entry: str) -> str:
    """An entry of PERDURE_SECRET_ENV, checked (`GLOB` or `GLOB@HOST|HOST…`)."""
    SecretGrant.parse(entry)
    return entry.strip()


def unbound_secret_grants(entries: Iterable[str]) -> list[str]:
    """The entries that send their variables anywhere egress allows (no `@HOST`)."""
    return [entry for entry in entries if not SecretGrant.parse(entry).bound]


def unbound_grant_warnings(entries: Iterable[str]) -> list[str]:
    """What to log at start, one line for each unbound entry of PERDURE_SECRET_ENV."""
    return [
        f"PERDURE_SECRET_ENV {entry!r} is an unbound secret grant: any definition can send "
        f"it anywhere egress allows; bind it to the hosts that need it ({entry}@HOST|HOST)"
        for entry in unbound_secret_grants(entries)
    ]


def unavailable_message(name: str) -> str:
    """One message for a variable that is not set, one that may not be read, and one that
    may not go to this request's host, so that the answer tells nothing about what exists
    or where it may go."""
    return (
        f"environment variable {name} is not available: it is not set here, or "
        "PERDURE_SECRET_ENV does not let definitions send it to this URL's host"
    )


class SecretEnviron(Mapping[str, str]):
    """The environment as a definition may see it in a request to `url`: only the names
    the operator grants (`PERDURE_SECRET_ENV`, never `NEVER_SECRET_ENV`) to that URL's
    host, for `tenant_id`. A refused name reads as absent, and its value is never looked
    up. Without a `url`, bound grants read nothing; without a `tenant_id`, grants with
    `{tenant}` read nothing."""

    def __init__(
        self,
        grants: Iterable[str | SecretGrant],
        source: Mapping[str, str] | None = None,
        *,
        url: str | httpx.URL | None = None,
        tenant_id: str | None = None,
    ) -> None:
        self.grants = tuple(
            g if isinstance(g, SecretGrant) else SecretGrant.parse(g) for g in grants
        )
        self.source = os.environ if source is None else source
        self.url = url
        self.target = None if url is None else Target.of(url)
        self.tenant_id = tenant_id

    def to(self, url: str | httpx.URL) -> SecretEnviron:
        """The same grants for a request to `url` instead."""
        return SecretEnviron(self.grants, self.source, url=url, tenant_id=self.tenant_id)

    def readable(self, name: str) -> bool:
        if never_readable(name):
            return False
        return any(
            grant.names(name, self.tenant_id) and grant.sends_to(self.target)
            for grant in self.grants
        )

    def __getitem__(self, name: str) -> str:
        if not self.readable(name):
            raise KeyError(name)
        return self.source[name]

    def __iter__(self) -> Iterator[str]:
        return (name for name in list(self.source) if self.readable(name))

    def __len__(self) -> int:
        return sum(1 for _ in self)


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
    the demo tools, OPENAI_API_KEY to api.openai.com and ANTHROPIC_API_KEY to
    api.anthropic.com, any address but metadata, no scripted model, model replies of up
    to 8 MiB)."""

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

    def secrets(
        self,
        url: str | httpx.URL | None = None,
        *,
        tenant_id: str | None = None,
        source: Mapping[str, str] | None = None,
    ) -> SecretEnviron:
        """What a request to `url` may carry for `tenant_id` (see `SecretEnviron`)."""
        return SecretEnviron(self.secret_env, source, url=url, tenant_id=tenant_id)

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

    def check_definition(self, definition: AgentDefinition, tenant_id: str) -> None:
        """Refuse now what the operator does not grant: python modules, secret variables
        for this tenant and the URL each would go to (a refused one, one bound elsewhere
        and an unset one get the same message: no oracle), egress, the scripted model.
        Workers check again at call time.

        Raises:
            InvalidDefinition: with each problem where it is in the definition.
        """
        problems = self.definition_problems(definition, tenant_id)
        if problems:
            raise InvalidDefinition(problems[0].message, problems=problems)

    def definition_problems(
        self, definition: AgentDefinition, tenant_id: str | None = None
    ) -> list[FieldError]:
        """What in `definition` (of `tenant_id`, for grants with `{tenant}`) the operator
        has not granted, each where it is in the definition. A variable is checked
        against the URL it would be sent to."""
        problems: list[FieldError] = []

        def add(loc: tuple[Any, ...], kind: str, message: str) -> None:
            problems.append(FieldError(tuple(str(part) for part in loc), message, kind))

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
            secrets = self.secrets(model.base_url, tenant_id=tenant_id)
            if model.api_key_env and model.api_key_env not in secrets:
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
                secrets = self.secrets(executor.url, tenant_id=tenant_id)
                for name, value in executor.headers.items():
                    where = ("tools", index, "executor", "headers", name)
                    if isinstance(value, EnvValue) and value.env not in secrets:
                        add(where, "env_unavailable", unavailable_message(value.env))
                    if isinstance(value, str) and value == REDACTED and is_secret_header(name):
                        add(
                            where,
                            "redacted_value",
                            f"{REDACTED} is what a read shows in place of a secret: send the "
                            'value, or better {"env": "NAME"}',
                        )
        return problems
