"""The worker pool: one asyncio process drives many runs at once.

Three loops: the claimer (claims as many runs as there are free slots, woken by
NOTIFY or a jittered poll), the heartbeat (one statement renews every lease, on its own
connection so a busy pool never starves it), and one task per run driving the engine.

A run under suspicion of killing its workers (taken from a worker that died driving it)
is claimed only when the pool drives nothing else, and drives alone: the pool claims
nothing more until that run made progress, then hands it back to the fleet as an
ordinary run and is free for the next suspect (docs/design.md, "Poison runs").
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import socket
import time
import uuid
from contextlib import suppress
from dataclasses import dataclass, field
from uuid import UUID

from sqlalchemy.ext.asyncio import AsyncConnection

from app import faults
from app.capabilities import Capabilities
from app.db import create_engine
from app.domain.run import TERMINAL, CheckpointWrite
from app.egress import guarded_client
from app.engine.loop import AgentLoop, RetryPolicy, RunStopped, StopReason, failed_by_a_bug
from app.engine.planner import PlannerLoop
from app.errors import LeaseLost, ResultAlreadyRecorded
from app.providers.registry import build_model
from app.settings import Settings
from app.store import checkpoint, children, leases, run_state
from app.store.unavailable import DATABASE_UNAVAILABLE, describe
from app.store.wakeups import listen
from app.telemetry import logs, metrics, tracing
from app.tools.dispatch import ToolDispatcher
from app.tools.http_tool import HttpTools
from app.worker import housekeeping
from app.worker.batches import BatchQueue
from app.worker.connections import ConnectionGate
from app.worker.deltas import DeltaSender
from app.worker.firing import fire_schedules
from app.worker.housekeeping import Job, run_jobs
from app.worker.saves import SaveQueue
from app.worker.webhooks import WebhookSender

log = logging.getLogger("perdure.worker")


def new_owner_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


@dataclass
class RunControl:
    """The engine's view of one run's lease and stop signals (the engine's `Control`)."""

    run_id: UUID
    lease_token: int
    ttl_s: float
    margin_s: float
    pool_draining: asyncio.Event
    # Monotonic time the last successful renewal was *sent*: the database computed the
    # expiry after that, so `renewed_at + ttl` never overestimates the lease.
    renewed_at: float = field(default_factory=time.monotonic)
    # Claimed under suspicion: driven alone (the pool claims nothing beside it).
    solo: bool = False
    # A solo run that made progress (the save cleared its suspicion): hand it back at the
    # next step boundary, so the pool is free again for the next suspect.
    cleared: bool = False
    _reason: StopReason | None = None
    _stopped: asyncio.Event = field(default_factory=asyncio.Event)

    def stop(self, reason: StopReason) -> None:
        if self._reason is None:
            self._reason = reason
            self._stopped.set()

    def stop_reason(self) -> StopReason | None:
        return self._reason

    def draining(self) -> bool:
        return self.pool_draining.is_set() or self.cleared

    def progressed(self) -> None:
        """A save of this run moved it on: if it was under suspicion, it no longer is."""
        if self.solo and not self.cleared:
            self.cleared = True
            log.info("run %s made progress driven alone: no longer suspect", self.run_id)

    def lease_left(self) -> float:
        return self.renewed_at + self.ttl_s - time.monotonic()

    def lease_ok(self) -> bool:
        return self.lease_left() > self.margin_s

    async def wait_stop(self) -> StopReason:
        await self._stopped.wait()
        assert self._reason is not None
        return self._reason


@dataclass(frozen=True)
class TreePlace:
    """Where a run sits among sub-agents: what its saves that start, await or end child
    runs need (`app/store/children.py`)."""

    tenant_id: str
    session_id: str
    parent_session_id: str | None = None
    parent_run_id: UUID | None = None
    depth: int = 0
    parent_call_id: str | None = None

    @classmethod
    def of(cls, loaded: run_state.LoadedRun) -> TreePlace:
        state = loaded.state
        return cls(
            state.tenant_id,
            state.session_id,
            state.parent_session_id,
            loaded.parent_run_id,
            state.depth,
            loaded.parent_call_id,
        )


class FencedJournal:
    """The engine's journal: every save is fenced on the run's token, and waits its turn
    in the worker's save queue (app/worker/saves.py) rather than fail for want of a
    connection. A save that starts, awaits or ends child runs is a transaction of its
    own instead (the fenced statement and the children's rows together)."""

    def __init__(
        self,
        saves: SaveQueue,
        control: RunControl,
        deltas: DeltaSender,
        gate: ConnectionGate | None = None,
        place: TreePlace | None = None,
    ) -> None:
        self.saves = saves
        self.control = control
        self.deltas = deltas
        self.gate = gate
        self.place = place
        self.run_id = control.run_id
        self.token = control.lease_token

    async def _save_with_children(self, write: CheckpointWrite, place: TreePlace) -> None:
        assert self.gate is not None, "a journal of a tree needs the connection gate"
        async with self.gate.begin() as conn:
            await children.save(
                conn,
                checkpoint.FencedWrite(self.run_id, self.token, write),
                tenant_id=place.tenant_id,
                session_id=place.session_id,
                parent_session_id=place.parent_session_id,
                parent_run_id=place.parent_run_id,
                depth=place.depth,
                parent_call_id=place.parent_call_id,
            )

    async def save(self, write: CheckpointWrite) -> None:
        if write.messages:
            # A streamed turn's deltas reach clients before the turn's own event.
            await self.deltas.flush()
        place = self.place
        try:
            if place is not None and children.needs_transaction(
                write.status, bool(write.children), place.parent_session_id is not None
            ):
                await self._save_with_children(write, place)
            else:
                # It also clears the run's suspicion when the write is progress.
                await self.saves.save(self.run_id, self.token, write)
        except LeaseLost:
            metrics.FENCED_WRITES_REJECTED.inc()
            raise
        if write.children:
            faults.point("after_children_commit")
        elif place is not None and place.parent_session_id and write.status in TERMINAL:
            faults.point("after_child_end_commit")
        if write.progress:
            self.control.progressed()
        if write.calls:
            faults.point("after_turn_commit")
        elif write.settlements:
            faults.point("after_result_commit")
        elif write.input_seq is not None:
            faults.point("after_input_commit")
        elif write.messages:
            faults.point("after_message_commit")


async def _load_batch(
    conn: AsyncConnection, run_ids: list[UUID]
) -> list[run_state.LoadedRun | Exception | None]:
    loaded = await run_state.load_runs(conn, run_ids)
    return [loaded.get(run_id) for run_id in run_ids]  # None: deleted since its claim


class WorkerPool:
    def __init__(
        self, settings: Settings, *, concurrency: int | None = None, owner: str | None = None
    ) -> None:
        assert settings.database_url, "a worker pool needs a database"
        self.settings = settings
        self.url = settings.database_url
        self.concurrency = concurrency or settings.worker_concurrency
        self.owner = owner or new_owner_id()
        # Run writes share a pool sized to the concurrency, every checkout waiting its turn
        # at the gate (a full pool is back-pressure, not an outage); heartbeats get their own.
        self.pool_size = min(self.concurrency, settings.pool_size)
        self.engine = create_engine(self.url, settings, pool_size=self.pool_size)
        self.gate = ConnectionGate(self.engine, self.pool_size)
        self.saves = SaveQueue(self.gate)
        # Loads queue too, and one statement loads all that queued: a claim starts many
        # runs at once, and a thousand slow-model runs' loads, one connection and six
        # round trips each, kept the pool so busy that a run waited seconds to start
        # (benchmarks/slow_models.py).
        self.loads: BatchQueue[UUID, run_state.LoadedRun | None] = BatchQueue(
            self.gate, _load_batch, name="loads"
        )
        self.heartbeat_engine = create_engine(self.url, settings, pool_size=1)
        # Claims get theirs too: behind a queue of saves and loads at the gate, a claim
        # waited seconds, and the slots its runs had freed stayed empty meanwhile
        # (benchmarks/slow_models.py: 850 runs in flight of 1,000; with it, 950-1,000).
        self.claim_engine = create_engine(self.url, settings, pool_size=1)
        # Hand-backs of runs given up get theirs too: the run pool having no connection
        # free may be why they were given up. It connects on first use. Runs are given up
        # together (the database went away under a burst of saves), so their hand-backs
        # wait their turn at a gate of their own, however long, as saves do.
        self.release = ConnectionGate(
            create_engine(self.url, settings, pool_size=1),
            1,
            what="the hand-back",
            hint="Runs given up together (is the database reachable?)",
        )
        # Token deltas of streaming models go out on one more, also made on first use.
        self.deltas = DeltaSender(create_engine(self.url, settings, pool_size=1))
        # What the operator grants (app/capabilities.py), checked again at each call; the
        # one HTTP client checks every connection's address against PERDURE_EGRESS.
        self.capabilities = Capabilities.of(settings)
        # One connection per run in flight at least: each run has one model call or
        # tool batch at a time, and requests queued in the client's pool cost CPU.
        self.http = guarded_client(
            self.capabilities.egress, max_connections=max(100, self.concurrency)
        )
        self.tools = ToolDispatcher(HttpTools(self.http, self.capabilities), self.capabilities)
        # The webhook outbox's sender, on the same client: webhook URLs obey egress too.
        self.webhooks = WebhookSender(self.gate, self.http, self.capabilities, settings)
        self.retry = RetryPolicy(
            settings.model_max_attempts, settings.retry_base_s, settings.retry_max_s
        )
        self.active: dict[UUID, RunControl] = {}
        self._tasks: dict[UUID, asyncio.Task[None]] = {}
        self._wake = asyncio.Event()
        # Set while this worker holds its liveness lock; it claims nothing without it.
        self._alive = asyncio.Event()
        self._draining = asyncio.Event()
        self._stopping = asyncio.Event()
        self._loops: list[asyncio.Task[None]] = []

    # -- lifecycle -----------------------------------------------------------------------

    async def start(self) -> None:
        self._loops = [
            asyncio.create_task(self._claim_loop(), name="claim"),
            asyncio.create_task(self._heartbeat_loop(), name="heartbeat"),
            asyncio.create_task(listen(self.url, self._wake.set, self._stopping), name="listen"),
            asyncio.create_task(run_jobs(self._jobs(), self._draining), name="housekeeping"),
            asyncio.create_task(self.webhooks.run(self._draining), name="webhooks"),
            asyncio.create_task(run_jobs([self._firing()], self._draining), name="schedules"),
        ]
        log.info("worker %s started (concurrency %d)", self.owner, self.concurrency)

    async def stop(self) -> None:
        """Stop claiming; let in-flight steps finish for the grace period; hand back the rest.

        Every run still held is released (queued again, lease cleared) so another worker
        continues it at once instead of waiting for the lease to expire.
        """
        self._draining.set()
        self._wake.set()
        runs = list(self._tasks.values())
        if runs:
            _, still = await asyncio.wait(runs, timeout=self.settings.shutdown_grace_s)
            for control in self.active.values():
                control.stop(StopReason.SHUTDOWN)
            if still:
                await asyncio.wait(still, timeout=5.0)
        self._stopping.set()
        for task in self._loops:
            task.cancel()
        await asyncio.gather(*self._loops, return_exceptions=True)
        await self.http.aclose()
        await self.gate.aclose()
        await self.engine.dispose()
        await self.heartbeat_engine.dispose()
        await self.claim_engine.dispose()
        await self.release.engine.dispose()
        await self.deltas.aclose()
        log.info("worker %s stopped", self.owner)

    def _jobs(self) -> list[Job]:
        jobs = [
            Job(
                "approval expiry",
                self.settings.poll_interval_s,
                housekeeping.expire_approvals(self.gate),
            ),
            Job(
                "lapsed lease release",
                self.settings.lease_ttl_s,
                housekeeping.release_lapsed(self.gate, self.settings.lease_ttl_s),
            ),
        ]
        jobs.append(
            Job(
                "webhook delivery pruning",
                self.settings.retention_interval_s,
                housekeeping.prune_deliveries(self.gate, self.settings.webhook_keep_days),
                due_at=time.monotonic() + self.settings.retention_interval_s,
            )
        )
        if self.settings.retention_days is not None:
            jobs.append(
                Job(
                    "pruning",
                    self.settings.retention_interval_s,
                    housekeeping.prune_history(self.gate, self.settings.retention_days),
                    # The first prune one interval after start, not in a deploy's rush.
                    due_at=time.monotonic() + self.settings.retention_interval_s,
                )
            )
        return jobs

    def _firing(self) -> Job:
        return Job(
            "schedule firing",
            self.settings.schedule_poll_s,
            fire_schedules(self.gate, self.owner, self.settings.schedule_catch_up_s),
        )

    # -- claiming ------------------------------------------------------------------------

    async def _claim_loop(self) -> None:
        while not self._draining.is_set():
            try:
                await self._claim_forever()
            except Exception:  # a bug must not leave a worker that looks alive but idles
                log.exception("claim loop failed; restarting it")
                await asyncio.sleep(self.settings.poll_interval_s)

    async def _claim_forever(self) -> None:
        while not self._draining.is_set():
            # A run driven alone (under suspicion) has the pool to itself.
            solo = any(control.solo for control in self.active.values())
            free = 0 if solo else self.concurrency - len(self._tasks)
            again = False
            if free > 0:
                try:
                    again = await self._claim(free)
                except DATABASE_UNAVAILABLE as exc:
                    log.warning("claim failed: %s", describe(exc))
            if again:
                continue  # there may be more ready right now
            self._wake.clear()
            jitter = self.settings.poll_interval_s * random.uniform(0.8, 1.2)
            with suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=jitter)

    async def _claim(self, limit: int) -> bool:
        """Claim up to `limit` runs; True when it is worth claiming again at once."""
        if not self._alive.is_set():
            return False  # without our liveness lock, others could take what we claim
        async with self.claim_engine.begin() as conn:
            # After the checkout (a connect may take a while, which would shorten the
            # lease the run starts with), before the claim: the database computed the
            # expiry after this, never before.
            sent_at = time.monotonic()
            claims = await leases.claim_runs(
                conn,
                owner=self.owner,
                limit=limit,
                ttl_s=self.settings.lease_ttl_s,
                # Only a pool that drives nothing may take a run under suspicion.
                idle=not self._tasks,
                max_deaths=self.settings.poison_max_deaths,
            )
        again = len(claims) == limit
        for claim in claims:
            with logs.about_run(claim.run_id, claim.session_id, claim.lease_token, self.owner):
                again = self._start(claim, sent_at) or again
        return again

    def _start(self, claim: leases.Claim, sent_at: float) -> bool:
        """Drive a claimed run (or count a poisoned one); True when the claim was poison,
        so the pool is still idle and may claim again at once."""
        if claim.takeover is not None:
            metrics.TAKEOVERS.labels(claim.takeover).inc()
        if claim.poisoned:
            metrics.POISONED.inc()
            log.warning(
                "run %s failed: poison_run: its worker died %d times while it was driven "
                "alone (PERDURE_POISON_MAX_DEATHS); resume it to try again",
                claim.run_id,
                claim.deaths,
            )
            return True  # still idle: there may be more waiting
        metrics.CLAIMS.inc()
        if claim.suspect:
            log.warning(
                "run %s is under suspicion (a worker died driving it; %d deaths while "
                "driven alone): driving it alone",
                claim.run_id,
                claim.deaths,
            )
        faults.point("after_claim")
        control = RunControl(
            claim.run_id,
            claim.lease_token,
            self.settings.lease_ttl_s,
            self.settings.lease_margin_s,
            self._draining,
            sent_at,
            solo=claim.suspect,
        )
        previous = self._tasks.get(claim.run_id)
        if previous is not None:
            # Its lease lapsed while we still drove it (a stall): that driver's token
            # is stale, so stop it, and drive the run again once it has let go.
            self.active[claim.run_id].stop(StopReason.LEASE_LOST)
        self.active[claim.run_id] = control
        self._tasks[claim.run_id] = asyncio.create_task(
            self._drive(control, claim.session_id, previous)
        )
        return False

    # -- driving one run -----------------------------------------------------------------

    async def _drive(
        self,
        control: RunControl,
        session_id: str,
        previous: asyncio.Task[None] | None = None,
    ) -> None:
        run_id = control.run_id
        # Every line this task (and the tasks it starts) logs names the run.
        logs.bind_run(run_id, session_id, control.lease_token, self.owner)
        if previous is not None:
            await asyncio.gather(previous, return_exceptions=True)
        try:
            loaded = await self.loads.submit(run_id)
            if loaded is None:
                return  # deleted between the claim and now
            with tracing.span(
                "perdure.run",
                {
                    "perdure.run_id": str(run_id),
                    "perdure.session_id": session_id,
                    "perdure.lease_token": control.lease_token,
                    "perdure.worker": self.owner,
                },
                # A child of the request that queued the run: one trace from send to end.
                parent=loaded.trace_context,
            ):
                await self._drive_loaded(control, loaded)
        except RunStopped as stop:
            if stop.reason is StopReason.LEASE_MARGIN:
                log.warning(
                    "run %s stopped: lease_margin: less than PERDURE_LEASE_MARGIN_S (%gs) of "
                    "lease left to start a tool call (late renewals?); handed back",
                    run_id,
                    control.margin_s,
                )
            elif control.cleared and not self._draining.is_set():
                log.info("run %s handed back to the fleet, cleared of suspicion", run_id)
            else:
                log.info("run %s stopped: %s", run_id, stop.reason.value)
        except ResultAlreadyRecorded:
            log.warning(
                "run %s: a tool result it saved was already recorded; stopped, the run is "
                "reloaded by its next claim",
                run_id,
            )
        except LeaseLost:
            log.warning("run %s: lease lost, another worker has it", run_id)
        except DATABASE_UNAVAILABLE as exc:
            # The last write may or may not have committed: whoever claims the run next
            # reloads it from what the database has. Hand it back now rather than leave it
            # leased to a worker that is alive (no fast takeover) but no longer drives it;
            # if that fails too, the lease lapses (the heartbeat stops renewing it below).
            # (A full pool is not one of these: checkouts wait their turn at the gate.)
            log.warning("run %s: %s; giving the run up", run_id, describe(exc))
            await self._give_back(control)
        except Exception:
            log.exception("run %s: unexpected error", run_id)
            with suppress(LeaseLost, *DATABASE_UNAVAILABLE):
                await self._fail(control)
        finally:
            # Only our own entries: a newer claim of this run may have replaced them.
            if self.active.get(run_id) is control:
                del self.active[run_id]
                del self._tasks[run_id]
                self.deltas.forget(run_id)
            self._wake.set()

    async def _drive_loaded(self, control: RunControl, loaded: run_state.LoadedRun) -> None:
        if loaded.cancel_requested:
            control.stop(StopReason.CANCEL)
        # A planner is an agent loop whose steps come from its plan (app/engine/planner.py).
        loop_type = PlannerLoop if loaded.agent.kind == "planner" else AgentLoop
        loop = loop_type(
            loaded.state,
            loaded.agent,
            build_model(
                loaded.agent.model,
                self.http,
                self.capabilities,
                tenant_id=loaded.state.tenant_id,
            ),
            self.tools,
            FencedJournal(self.saves, control, self.deltas, self.gate, TreePlace.of(loaded)),
            control,
            self.retry,
            on_delta=self.deltas.sender(
                loaded.state.tenant_id, loaded.state.session_id, control.run_id
            ),
        )
        status = await loop.run()
        log.debug("run %s -> %s", control.run_id, status)

    async def _give_back(self, control: RunControl) -> None:
        """Hand a run given up back at once (fenced), on the hand-back connection."""
        try:
            # At most a lease's time in all: the heartbeat renews the run's lease while it
            # waits here, and a run that cannot be handed back must lapse instead.
            async with asyncio.timeout(self.settings.lease_ttl_s), self.release.begin() as conn:
                released = await leases.hand_back(
                    conn, run_id=control.run_id, token=control.lease_token
                )
        except TimeoutError:
            log.warning(
                "run %s: handing it back took over a lease's time (%gs); its lease will lapse",
                control.run_id,
                self.settings.lease_ttl_s,
            )
            return
        except DATABASE_UNAVAILABLE as exc:
            log.warning(
                "run %s: handing it back failed too: %s; its lease will lapse",
                control.run_id,
                describe(exc),
            )
            return
        except Exception:
            log.exception("run %s: handing it back failed; its lease will lapse", control.run_id)
            return
        if released:
            log.info("run %s handed back", control.run_id)
        else:
            log.info(
                "run %s: not ours any more (saved or taken over); nothing to hand back",
                control.run_id,
            )

    async def _fail(self, control: RunControl) -> None:
        """A bug, not a fault: fail the run (fenced) rather than let it loop between workers."""
        async with self.gate.begin() as conn:
            run = await run_state.load_run(conn, control.run_id)
            if run is None:
                return
            with suppress(LeaseLost):
                # Through the children's path: a failed child wakes its parent.
                await children.save(
                    conn,
                    checkpoint.FencedWrite(
                        control.run_id, control.lease_token, failed_by_a_bug(run.state)
                    ),
                    tenant_id=run.state.tenant_id,
                    session_id=run.state.session_id,
                    parent_session_id=run.state.parent_session_id,
                    parent_run_id=run.parent_run_id,
                    depth=run.state.depth,
                    parent_call_id=run.parent_call_id,
                )

    # -- heartbeats ----------------------------------------------------------------------

    async def _heartbeat_loop(self) -> None:
        """Hold the liveness lock and renew every lease, on one dedicated connection.

        If that connection drops, claimers may take our runs at once (the lock went with
        it), so every run of ours stops right away; then we reconnect and carry on.
        """
        delay = 0.5
        while not self._stopping.is_set():
            try:
                async with self.heartbeat_engine.connect() as raw:
                    conn = await raw.execution_options(isolation_level="AUTOCOMMIT")
                    await leases.hold_liveness(conn, owner=self.owner)
                    self._alive.set()
                    self._wake.set()
                    delay = 0.5
                    while not self._stopping.is_set():
                        await asyncio.sleep(self.settings.heartbeat_s)
                        await self._renew(conn)
            except Exception as exc:  # a lost connection, or a bug: either way, no liveness
                self._alive.clear()
                if isinstance(exc, DATABASE_UNAVAILABLE):
                    log.warning(
                        "liveness connection lost (%s): stopping this worker's runs",
                        type(exc).__name__,
                    )
                else:
                    log.exception("heartbeat failed: stopping this worker's runs")
                for control in self.active.values():
                    control.stop(StopReason.LEASE_LOST)
                with suppress(TimeoutError):
                    await asyncio.wait_for(self._stopping.wait(), timeout=delay)
                delay = min(delay * 2, 10.0)

    async def _renew(self, conn: AsyncConnection) -> None:
        # Sent even with no run to renew: it also says this worker is on time (claimers
        # look through a worker's runs only once it is late).
        # Judge only the runs this renewal asks about. A run claimed while it is in flight
        # is not in its answer, and that claim may have been sent before this renewal was,
        # so its `renewed_at` cannot tell it apart from a run taken from us.
        sent = list(self.active.items())
        sent_at = time.monotonic()
        renewals = await leases.renew_leases(
            conn,
            owner=self.owner,
            ttl_s=self.settings.lease_ttl_s,
            run_ids=[run_id for run_id, _ in sent],
        )
        held = {r.run_id: r for r in renewals}
        for run_id, control in sent:
            if self.active.get(run_id) is not control:
                continue  # it ended, or was claimed again, meanwhile
            renewal = held.get(run_id)
            if renewal is None or renewal.lease_token != control.lease_token:
                # A run claimed after this renewal was sent is not in its answer yet.
                if control.renewed_at < sent_at:
                    control.stop(StopReason.LEASE_LOST)
                continue
            control.renewed_at = sent_at
            if renewal.cancel_requested:
                control.stop(StopReason.CANCEL)
