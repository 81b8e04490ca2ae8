"""The base of every request body and stored definition."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Strict(BaseModel):
    """Unknown fields are an error (clients must not set what the server owns), and values
    must already have the declared types: what the schema says is what is accepted."""

    model_config = ConfigDict(extra="forbid", strict=True)
