"""Perdure: durable LLM agent runs over HTTP, checkpointed in Postgres."""

__version__ = "0.1.0"
