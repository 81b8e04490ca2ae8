"""Child runs (sub-agents): started with their parent's pause, and waking it when they end.

A child is an ordinary run in a session of its own, with `parent_run_id`,
`parent_session_id` and `parent_call_id`; its output becomes that call's result when the
parent's worker settles it (through the fenced checkpoint, like any result). Three writes
need more than the fenced statement, so each is one transaction around it
(docs/design.md, "Sub-agents"):

- **a pause that starts children**: the parent's fenced save (`awaiting_children`), then
  the child sessions and runs. Together or not at all: a crash leaves either a parent
  still `running` with no child (its next claim asks again, and the call still has no
  child) or a paused parent with all its children, never one without the other. Not in
  the fenced statement itself: it is within bytes of psycopg's 4 KiB parse cache.
- **a pause for children that already exist** (a resumed parent): the same save, then a
  look at those children under `FOR SHARE`, so a child ending at that moment either
  committed first (seen ended: the parent queues itself) or waits for the pause to commit
  (and then finds the parent paused).
- **a child's end** (finished, failed, cancelled): its fenced save, then the waiting
  parent's row (`FOR UPDATE`: siblings ending at once take turns here), then, in a new
  statement (a fresh snapshot: it sees every sibling that ended before it), whether any
  child of the parent's unsettled calls is still going; if none, the parent is queued.

Lock order: a child's row before its parent's (a cancel locks a run's descendants,
deepest first, before the run), and the event heads after every row. A child's end holds
its own session's head when it takes its parent's row; that cannot close a cycle,
because whoever holds the parent's row takes no child's row after it, and writes the
child's events before the parent's (the order a child's end takes the two heads in).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from uuid import UUID

from sqlalchemy import select, text
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncConnection

from app.domain.budget import Budget, Usage
from app.domain.plan import is_node_call
from app.domain.run import ACTIVE, TERMINAL, UNSETTLED, NewChild, RunStatus
from app.store import agents as agent_store
from app.store import events
from app.store.checkpoint import FencedWrite, write_checkpoint
from app.store.notify import NOTIFY
from app.store.tables import runs, sessions, sql_list

# The children a parent session waits on: those of its calls that have no result yet.
_AWAITED = f"""
  FROM runs c
  JOIN tool_calls t ON t.tenant_id = c.tenant_id AND t.session_id = c.parent_session_id
                   AND t.tool_call_id = c.parent_call_id
 WHERE c.tenant_id = :tenant_id AND c.parent_session_id = :session_id
   AND c.parent_call_id IS NOT NULL AND t.status IN {sql_list(UNSETTLED)}"""

# A pause's look at the children it waits on. FOR SHARE: a child whose end is being
# written holds its row, so this waits for that end to commit and then reads it.
AWAITED_STILL_GOING = text(f"""
SELECT c.status, c.parent_call_id {_AWAITED} ORDER BY c.id FOR SHARE OF c
""")

# After the parent's row lock: a plain read, in a statement begun after the lock was
# granted, so every sibling that ended before this one is seen ended.
ANY_STILL_GOING = text(f"""
SELECT EXISTS (SELECT 1 {_AWAITED} AND c.status NOT IN {sql_list(TERMINAL)})
""")

# The run of a session that waits on children (a session runs one run at a time). FOR
# UPDATE serialises the ends of its children.
WAITING_PARENT = text("""
SELECT id FROM runs
 WHERE tenant_id = :tenant_id AND session_id = :session_id AND status = 'awaiting_children'
   FOR UPDATE
""")

QUEUE_PARENT = text("""
UPDATE runs SET status = 'queued', not_before = clock_timestamp(), updated_at = clock_timestamp()
 WHERE id = :run_id AND status = 'awaiting_children'
RETURNING id
""")

# A run's unfinished descendants, deepest first (the order a cancel locks them in).
DESCENDANTS = text(f"""
WITH RECURSIVE tree AS (
    SELECT r.id, r.session_id, 1 AS level
      FROM runs r
     WHERE r.tenant_id = :tenant_id AND r.parent_session_id = :session_id
       AND r.status IN {sql_list(ACTIVE)}
    UNION ALL
    SELECT r.id, r.session_id, t.level + 1
      FROM runs r JOIN tree t ON r.parent_session_id = t.session_id
     WHERE r.tenant_id = :tenant_id AND r.status IN {sql_list(ACTIVE)} AND t.level < 64
)
SELECT r.id FROM runs r JOIN tree t ON t.id = r.id
 ORDER BY t.level DESC, r.id
   FOR UPDATE OF r
""")  # noqa: S608

# What a run and everything under it spent: its own usage plus its descendants'.
TREE_USAGE = text("""
WITH RECURSIVE tree AS (
    SELECT r.id AS root, r.session_id, r.usage, 0 AS level
      FROM runs r WHERE r.tenant_id = :tenant_id AND r.id = ANY(:run_ids)
    UNION ALL
    SELECT t.root, c.session_id, c.usage, t.level + 1
      FROM runs c JOIN tree t ON c.parent_session_id = t.session_id
     WHERE c.tenant_id = :tenant_id AND c.parent_call_id IS NOT NULL AND t.level < 64
)
SELECT root,
       sum(COALESCE((usage ->> 'input_tokens')::bigint, 0)) AS input_tokens,
       sum(COALESCE((usage ->> 'output_tokens')::bigint, 0)) AS output_tokens,
       sum(COALESCE((usage ->> 'model_calls')::bigint, 0)) AS model_calls,
       sum(COALESCE((usage ->> 'tool_calls')::bigint, 0)) AS tool_calls,
       sum(COALESCE((usage ->> 'cost_usd')::float8, 0)) AS cost_usd,
       sum(COALESCE((usage ->> 'wall_time_s')::float8, 0)) AS wall_time_s
  FROM tree GROUP BY root
""")

# Where a run sits in its tree: each parent up to the top-level run, nearest first.
PARENT_CHAIN = text("""
WITH RECURSIVE chain AS (
    SELECT r.id AS start, r.parent_run_id, r.parent_call_id, 0 AS level
      FROM runs r WHERE r.tenant_id = :tenant_id AND r.id = ANY(:run_ids)
    UNION ALL
    SELECT c.start, p.parent_run_id, p.parent_call_id, c.level + 1
      FROM chain c JOIN runs p ON p.id = c.parent_run_id AND p.tenant_id = :tenant_id
     WHERE c.level < 64
)
SELECT c.start, c.level, p.id, p.session_id, c.parent_call_id, p.agent_version, s.agent_id
  FROM chain c
  JOIN runs p ON p.id = c.parent_run_id
  JOIN sessions s ON s.tenant_id = p.tenant_id AND s.id = p.session_id
 ORDER BY c.start, c.level
""")


@dataclass(frozen=True)
class Parent:
    """One link of a run's parent chain: the parent run and the call that started it."""

    run_id: UUID
    session_id: str
    agent_id: str
    tool_call_id: str


def needs_transaction(status: RunStatus, starts_children: bool, is_child: bool) -> bool:
    """Whether a save must go through `save` (a transaction) rather than the fenced
    statement alone."""
    return (
        starts_children
        or status is RunStatus.AWAITING_CHILDREN
        or (is_child and status in TERMINAL)
    )


async def save(
    conn: AsyncConnection,
    fenced: FencedWrite,
    *,
    tenant_id: str,
    session_id: str,
    parent_session_id: str | None,
    parent_run_id: UUID | None,
    depth: int,
    parent_call_id: str | None = None,
) -> None:
    """A save that starts children, pauses for them, or ends a child, in the caller's
    transaction (which must roll back when this raises).

    Raises:
        LeaseLost: the run's token is stale; nothing may be committed.
        AgentNotFound: a child's agent (or pinned version) does not exist.
    """
    await write_checkpoint(conn, run_id=fenced.run_id, token=fenced.token, write=fenced.write)
    write = fenced.write
    if write.children:
        await _start(conn, tenant_id, session_id, fenced.run_id, depth, write.children)
    if write.status is RunStatus.AWAITING_CHILDREN:
        await _queue_if_none_going(conn, tenant_id, session_id, fenced.run_id)
    if parent_session_id is not None and write.status in TERMINAL:
        await ended(
            conn,
            tenant_id,
            child_run_id=fenced.run_id,
            child_session_id=session_id,
            parent_session_id=parent_session_id,
            parent_run_id=parent_run_id,
            status=write.status,
            parent_call_id=parent_call_id,
        )


async def _start(
    conn: AsyncConnection,
    tenant_id: str,
    parent_session_id: str,
    parent_run_id: UUID,
    parent_depth: int,
    children: Sequence[NewChild],
) -> None:
    """Each child's session and its first run, queued; its `run.queued` event."""
    parent = (
        await conn.execute(
            select(runs.c.created_by, runs.c.budget).where(runs.c.id == parent_run_id)
        )
    ).one()
    created_by = parent.created_by
    # Children count toward their parent's budget: they share what is left of it (the
    # parent's own spend and its earlier children's, saved in this transaction).
    parent_budget = Budget.model_validate(parent.budget or {})
    share = Budget()
    if parent_budget.limits():
        spent = (await tree_usage(conn, tenant_id, [parent_run_id]))[parent_run_id]
        share = parent_budget.left_for(spent, len(children))
    for child in children:
        agent = await agent_store.get_agent(conn, tenant_id, child.agent_id, child.agent_version)
        budget = agent.definition.budget.tightened(share)
        await conn.execute(
            pg_insert(sessions).values(
                tenant_id=tenant_id,
                id=child.session_id,
                agent_id=agent.id,
                agent_version=agent.version,
                run_count=1,
                metadata={"parent_run_id": str(parent_run_id), "tool_call_id": child.tool_call_id},
            )
        )
        await conn.execute(
            pg_insert(runs).values(
                id=child.run_id,
                tenant_id=tenant_id,
                session_id=child.session_id,
                seq=1,
                status=RunStatus.QUEUED.value,
                input=child.input,
                # Who started the parent started the child: a distinct approver differs
                # from them for the child's approvals too.
                created_by=created_by,
                agent_version=agent.version,
                max_steps=agent.definition.max_steps,
                usage=Usage().as_dict(),
                budget=budget.limits() or None,
                parent_run_id=parent_run_id,
                parent_session_id=parent_session_id,
                parent_call_id=child.tool_call_id,
                depth=parent_depth + 1,
            )
        )
    # Heads last; each child's session is new in this transaction, so nobody else can
    # hold its head.
    for child in children:
        await events.emit(
            conn,
            tenant_id,
            child.session_id,
            child.run_id,
            events.Event(
                "run.queued",
                {
                    "seq": 1,
                    "reason": "child",
                    "parent_run_id": str(parent_run_id),
                    "parent_session_id": parent_session_id,
                    "tool_call_id": child.tool_call_id,
                },
            ),
        )
    await conn.execute(NOTIFY)


async def _queue_if_none_going(
    conn: AsyncConnection, tenant_id: str, session_id: str, run_id: UUID
) -> None:
    """A run that just paused for children it found going: queue it again at once if
    they have all ended meanwhile (their ends found no paused parent to wake)."""
    awaited = (
        await conn.execute(AWAITED_STILL_GOING, {"tenant_id": tenant_id, "session_id": session_id})
    ).all()
    ended = [r for r in awaited if RunStatus(r.status) in TERMINAL]
    # A planner's node that ended wakes it alone (its dependants may start now).
    node_ended = any(is_node_call(r.parent_call_id) for r in ended)
    if len(ended) == len(awaited) or node_ended:
        await _queue(conn, tenant_id, session_id, run_id)


async def ended(
    conn: AsyncConnection,
    tenant_id: str,
    *,
    child_run_id: UUID,
    child_session_id: str,
    parent_session_id: str,
    parent_run_id: UUID | None,
    status: RunStatus,
    parent_call_id: str | None = None,
) -> None:
    """A child run ended in the caller's transaction (after its own row was written):
    queue its parent when none of the parent's children is still going, or at once when
    the child is a planner's node (`parent_call_id`)."""
    params = {"tenant_id": tenant_id, "session_id": parent_session_id}
    waiting = (await conn.execute(WAITING_PARENT, params)).scalar_one_or_none()
    queued = False
    if waiting is not None and (
        # A planner's node wakes its planner at once: a node that depends on it may
        # start now, whatever its siblings are doing. A sub-agent waits for its batch.
        is_node_call(parent_call_id)
        or not (await conn.execute(ANY_STILL_GOING, params)).scalar_one()
    ):
        queued = (await conn.execute(QUEUE_PARENT, {"run_id": waiting})).first() is not None
    event_run = waiting or parent_run_id
    if event_run is None:
        return
    happened = [
        events.Event(
            "child.ended",
            {
                "child_run_id": str(child_run_id),
                "child_session_id": child_session_id,
                "status": status.value,
            },
        )
    ]
    if queued:
        happened.append(events.Event("run.queued", {"reason": "children_ended"}))
    await events.emit(conn, tenant_id, parent_session_id, event_run, *happened, wake_workers=queued)


async def _queue(conn: AsyncConnection, tenant_id: str, session_id: str, run_id: UUID) -> None:
    if (await conn.execute(QUEUE_PARENT, {"run_id": run_id})).first() is None:
        return
    queued = events.Event("run.queued", {"reason": "children_ended"})
    await events.emit(conn, tenant_id, session_id, run_id, queued, wake_workers=True)


async def lock_descendants(conn: AsyncConnection, tenant_id: str, session_id: str) -> list[UUID]:
    """Lock the unfinished runs under a session's runs, deepest first: what a cancel
    does before it locks the run itself (a child's row before its parent's)."""
    rows = await conn.execute(DESCENDANTS, {"tenant_id": tenant_id, "session_id": session_id})
    return [r.id for r in rows]


async def tree_usage(
    conn: AsyncConnection, tenant_id: str, run_ids: Sequence[UUID]
) -> dict[UUID, Usage]:
    """What each run and its descendants spent together."""
    if not run_ids:
        return {}
    rows = await conn.execute(TREE_USAGE, {"tenant_id": tenant_id, "run_ids": list(run_ids)})
    return {r.root: Usage.from_dict(dict(r._mapping)) for r in rows}


async def parent_chains(
    conn: AsyncConnection, tenant_id: str, run_ids: Sequence[UUID]
) -> dict[UUID, list[Parent]]:
    """Each run's parents, nearest first (empty for a top-level run)."""
    chains: dict[UUID, list[Parent]] = {run_id: [] for run_id in run_ids}
    if not run_ids:
        return chains
    rows = await conn.execute(PARENT_CHAIN, {"tenant_id": tenant_id, "run_ids": list(run_ids)})
    for r in rows:
        chains[r.start].append(Parent(r.id, r.session_id, r.agent_id, r.parent_call_id))
    return chains
