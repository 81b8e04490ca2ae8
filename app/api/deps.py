"""Annotated dependencies: the engine, a connection in a transaction, the settings."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from app.settings import Settings


def get_engine(request: Request) -> AsyncEngine:
    engine: AsyncEngine = request.app.state.engine
    return engine


def get_app_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


async def transaction(request: Request) -> AsyncIterator[AsyncConnection]:
    """One transaction per request: committed when the route returns, rolled back on error.

    The commit happens before the response is sent, so a 2xx means the write is durable.
    """
    async with get_engine(request).begin() as conn:
        yield conn


EngineDep = Annotated[AsyncEngine, Depends(get_engine)]
ConnDep = Annotated[AsyncConnection, Depends(transaction)]
SettingsDep = Annotated[Settings, Depends(get_app_settings)]
