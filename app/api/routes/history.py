"""History: every save of a session, forks from any step, and comparing two sessions."""

from __future__ import annotations

from typing import Annotated, Any
from uuid import UUID

from fastapi import APIRouter, Path, Query

from app import errors
from app.api.auth import RunsRead, RunsWrite
from app.api.deps import EngineDep
from app.api.problems import responses
from app.api.schemas import (
    INT64,
    MAX_PAGE,
    CheckpointDetail,
    CheckpointOut,
    CheckpointPage,
    CompareOut,
    ForkIn,
    ForkOut,
    ForkPatchIn,
    SeqCursor,
    SessionIdPath,
    Trajectory,
    TrajectoryStep,
    check_session_id,
)
from app.api.views import run_out
from app.domain.agent import ID_PATTERN
from app.domain.fork import compare, steps_of
from app.store import forks, history, transcript
from app.store import runs as run_store
from app.store import sessions as session_store

router = APIRouter(prefix="/v1/sessions", tags=["history"])


@router.get(
    "/{session_id}/checkpoints",
    response_model=CheckpointPage,
    responses=responses(errors.NotFound, errors.SessionIdInvalid),
)
async def list_checkpoints(
    session_id: SessionIdPath,
    engine: EngineDep,
    principal: RunsRead,
    cursor: SeqCursor = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 50,
) -> CheckpointPage:
    """Every save of the session, newest first."""
    check_session_id(session_id)
    async with engine.connect() as conn:
        await session_store.get_session(conn, principal.tenant_id, session_id)
        records, next_seq = await history.list_checkpoints(
            conn, principal.tenant_id, session_id, before_seq=cursor, limit=limit
        )
    return CheckpointPage(
        items=[CheckpointOut.of(r) for r in records],
        next_cursor=None if next_seq is None else str(next_seq),
    )


@router.get(
    "/{session_id}/checkpoints/{seq}",
    response_model=CheckpointDetail,
    responses=responses(errors.NotFound, errors.CheckpointNotFound, errors.SessionIdInvalid),
)
async def get_checkpoint(
    session_id: SessionIdPath,
    seq: Annotated[int, Path(ge=0, le=INT64)],
    engine: EngineDep,
    principal: RunsRead,
) -> CheckpointDetail:
    """The transcript and state exactly as they were at that save."""
    check_session_id(session_id)
    async with engine.connect() as conn:
        record = await history.get_checkpoint(conn, principal.tenant_id, session_id, seq)
        entries = await history.entries_at(conn, principal.tenant_id, session_id, seq)
    return CheckpointDetail.at(record, entries)


@router.post(
    "/{session_id}/forks",
    response_model=ForkOut,
    status_code=201,
    responses=responses(
        errors.NotFound,
        errors.CheckpointNotFound,
        errors.SessionIdInvalid,
        errors.SessionExists,
        errors.InvalidForkPatch,
    ),
)
async def create_fork(
    session_id: SessionIdPath, body: ForkIn, engine: EngineDep, principal: RunsWrite
) -> ForkOut:
    """A new session from the newest save of `from_step`, patched, then resumed like any
    unfinished run: calls without a result run first, gated calls ask again. The source
    session is not touched."""
    check_session_id(session_id)
    if body.session_id is not None:
        check_session_id(body.session_id)
    patch = (body.patch or ForkPatchIn()).to_patch()
    async with engine.begin() as conn:
        made = await forks.fork(
            conn,
            principal.tenant_id,
            session_id,
            body.from_step,
            patch,
            body.session_id,
            created_by=principal.as_actor(),
        )
        run = await run_out(conn, await run_store.get_run(conn, principal.tenant_id, made.run_id))
    return ForkOut(
        session_id=made.session_id,
        from_step=body.from_step,
        from_checkpoint_seq=made.from_seq,
        checkpoint_seq=made.checkpoint_seq,
        run=run,
    )


@router.get(
    "/{session_id}/compare",
    response_model=CompareOut,
    responses=responses(errors.NotFound, errors.SessionIdInvalid),
)
async def compare_sessions(
    session_id: SessionIdPath,
    engine: EngineDep,
    principal: RunsRead,
    with_: Annotated[
        str,
        Query(alias="with", pattern=ID_PATTERN, max_length=200, description="The other session."),
    ],
) -> CompareOut:
    """Each session's steps (one per assistant turn), where they diverge, and the drift."""
    trajectories = []
    for sid in (check_session_id(session_id), check_session_id(with_)):
        async with engine.connect() as conn:
            session = await session_store.get_session(conn, principal.tenant_id, sid)
            entries = await transcript.load_entries(conn, principal.tenant_id, sid)
            finish = None
            if session.last_run_id is not None:
                last = await run_store.get_run(conn, principal.tenant_id, UUID(session.last_run_id))
                finish = last.finish_reason
        trajectories.append((sid, finish, steps_of(entries)))
    (a_id, a_finish, a_steps), (b_id, b_finish, b_steps) = trajectories
    result = compare(a_steps, b_steps, a_finish, b_finish)

    def trajectory(sid: str, finish: str | None, steps: list[Any]) -> Trajectory:
        return Trajectory(
            session_id=sid,
            finish_reason=finish,
            steps=[TrajectoryStep(text=s.text, tool_calls=s.tool_calls) for s in steps],
        )

    return CompareOut(
        a=trajectory(a_id, a_finish, a_steps),
        b=trajectory(b_id, b_finish, b_steps),
        diverged_at=result["diverged_at"],
        drift=result["drift"],
    )
