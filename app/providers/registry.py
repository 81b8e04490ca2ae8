"""From a model spec to a model."""

from __future__ import annotations

from app.domain.agent import ScriptedModel
from app.providers.base import Model
from app.providers.scripted import Scripted


def build_model(spec: ScriptedModel) -> Model:
    return Scripted(spec)
