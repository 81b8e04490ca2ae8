"""The dashboard at `/ui`: server-rendered pages over the same route functions the API
serves, behind the same keys (docs/design.md, "The dashboard")."""

from __future__ import annotations

from fastapi import FastAPI
from starlette.staticfiles import StaticFiles

from app.api.ui import actions, pages
from app.api.ui.rendering import STATIC

# Every dashboard route is on one of these (the trust-boundary test walks them).
ROUTERS = (pages.router, actions.router)


def install(app: FastAPI) -> None:
    """Mount the dashboard's pages, its forms, and its stylesheet and script.

    The static files are public (the login page needs its stylesheet); they hold no data.
    """
    for router in ROUTERS:
        app.include_router(router)
    app.mount("/ui/static", StaticFiles(directory=STATIC), name="ui-static")
