"""Annotated dependencies: the engine and the settings. Routes own their transactions
(`async with engine.begin()`), so a 2xx is sent only after the commit."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.ext.asyncio import AsyncEngine

from app.settings import Settings


def get_engine(request: Request) -> AsyncEngine:
    engine: AsyncEngine = request.app.state.engine
    return engine


def get_app_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


EngineDep = Annotated[AsyncEngine, Depends(get_engine)]
SettingsDep = Annotated[Settings, Depends(get_app_settings)]
