"""Webhook secrets and signatures, per the Standard Webhooks spec (standardwebhooks.com).

A secret is `whsec_` + base64 of 24 to 64 random bytes; the key is those bytes. A
delivery carries `webhook-id` (the same on every attempt: receivers dedupe on it),
`webhook-timestamp` (unix seconds of this attempt) and `webhook-signature`: `v1,` +
base64(HMAC-SHA256(key, "{id}.{timestamp}.{body}")).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets

SECRET_PREFIX = "whsec_"
MIN_KEY_BYTES = 24
MAX_KEY_BYTES = 64


def new_secret() -> str:
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(32)).decode()


def secret_key(secret: str) -> bytes:
    """The key a secret stands for.

    Raises:
        ValueError: not `whsec_` + base64 of 24 to 64 bytes.
    """
    if not secret.startswith(SECRET_PREFIX):
        raise ValueError(f"a secret starts with {SECRET_PREFIX!r}")
    try:
        key = base64.b64decode(secret[len(SECRET_PREFIX) :], validate=True)
    except binascii.Error as exc:
        raise ValueError("a secret is whsec_ and base64") from exc
    if not MIN_KEY_BYTES <= len(key) <= MAX_KEY_BYTES:
        raise ValueError(f"a secret holds {MIN_KEY_BYTES} to {MAX_KEY_BYTES} bytes")
    return key


def message_id(tenant_id: str, session_id: str, event_id: int) -> str:
    """An event's `webhook-id`: unique across tenants and sessions (ids are unique within
    them), and the same on every attempt."""
    return f"evt_{tenant_id}/{session_id}/{event_id}"


def signature(secret: str, msg_id: str, timestamp: int, body: bytes) -> str:
    signed = f"{msg_id}.{timestamp}.".encode() + body
    digest = hmac.new(secret_key(secret), signed, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def headers(secret: str, msg_id: str, timestamp: int, body: bytes) -> dict[str, str]:
    return {
        "webhook-id": msg_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": signature(secret, msg_id, timestamp, body),
    }
