"""Annotated dependencies: the engine, the settings and what the operator grants. Routes
own their transactions (`async with engine.begin()`), so a 2xx is sent only after the
commit."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.ext.asyncio import AsyncEngine

from app.api.streams import EventHub
from app.capabilities import Capabilities
from app.settings import Settings


def get_engine(request: Request) -> AsyncEngine:
    engine: AsyncEngine = request.app.state.engine
    return engine


def get_app_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def get_capabilities(request: Request) -> Capabilities:
    capabilities: Capabilities = request.app.state.capabilities
    return capabilities


def get_event_hub(request: Request) -> EventHub:
    hub: EventHub = request.app.state.event_hub
    return hub


EngineDep = Annotated[AsyncEngine, Depends(get_engine)]
CapabilitiesDep = Annotated[Capabilities, Depends(get_capabilities)]
SettingsDep = Annotated[Settings, Depends(get_app_settings)]
EventHubDep = Annotated[EventHub, Depends(get_event_hub)]
