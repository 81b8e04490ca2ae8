from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.budget import Budget
    from ..models.budget_exceeded import BudgetExceeded
    from ..models.pending_approval import PendingApproval
    from ..models.pending_tool_call import PendingToolCall
    from ..models.plan_ledger_entry import PlanLedgerEntry
    from ..models.run_out_input_item import RunOutInputItem
    from ..models.run_out_last_error_type_0 import RunOutLastErrorType0
    from ..models.run_out_metadata import RunOutMetadata
    from ..models.run_out_plan_type_0 import RunOutPlanType0
    from ..models.usage import Usage


T = TypeVar("T", bound="RunOut")


@_attrs_define
class RunOut:
    """
    Attributes:
        agent_version (int):
        attempts (int):
        budget (Budget): Limits on what a run (or all runs of a session) may spend; an absent limit is none.

            A limit is spent once usage reaches it. It is checked before each model call and each
            tool call, so tokens and cost may end past it by what the last model call used.
        budget_exceeded (BudgetExceeded | None): Which limit ended the run, when `finish_reason` is `budget_exceeded`.
        cancel_requested (bool):
        created_at (datetime.datetime):
        finish_reason (None | str):
        finished_at (datetime.datetime | None):
        id (str):
        input_ (list[RunOutInputItem]):
        last_error (None | RunOutLastErrorType0):
        lease_expires_at (datetime.datetime | None): When that lease runs out unless renewed (the database's clock); a
            running run past it has lost its worker.
        lease_owner (None | str): The worker that holds the run (`running`); null when none does.
        max_steps (int):
        metadata (RunOutMetadata): The caller's labels (send, PATCH).
        output (None | str):
        seq (int): The run's number within its session, from 1.
        session_id (str):
        status (str):
        steps (int):
        updated_at (datetime.datetime):
        usage (Usage):
        depth (int | Unset): Parents above this run (0: a top-level run). Default: 0.
        frontier (list[str] | None | Unset): A planner's nodes ready to start (their dependencies finished).
        ledger (list[PlanLedgerEntry] | None | Unset): A planner's executed nodes, in start order: each node's status,
            child run, output (or error) and usage.
        parent_run_id (None | str | Unset): The run whose agent tool's call started this one (a sub-agent).
        parent_tool_call_id (None | str | Unset): That call: this run's output becomes its result.
        pending_approvals (list[PendingApproval] | Unset):
        pending_tool_calls (list[PendingToolCall] | Unset):
        plan (None | RunOutPlanType0 | Unset): A planner's current plan (frozen once saved; a re-plan replaces it):
            `nodes` (`id`, `capability`, `input`, `depends_on`) and `answer`. Shown by `GET /v1/runs/{id}`; null for an
            agent, or before the plan is saved.
        replan_count (int | None | Unset): How many times the planner has re-planned.
        usage_with_children (None | Unset | Usage): What this run and every run under it (its sub-agents') spent
            together.
    """

    agent_version: int
    attempts: int
    budget: Budget
    budget_exceeded: BudgetExceeded | None
    cancel_requested: bool
    created_at: datetime.datetime
    finish_reason: None | str
    finished_at: datetime.datetime | None
    id: str
    input_: list[RunOutInputItem]
    last_error: None | RunOutLastErrorType0
    lease_expires_at: datetime.datetime | None
    lease_owner: None | str
    max_steps: int
    metadata: RunOutMetadata
    output: None | str
    seq: int
    session_id: str
    status: str
    steps: int
    updated_at: datetime.datetime
    usage: Usage
    depth: int | Unset = 0
    frontier: list[str] | None | Unset = UNSET
    ledger: list[PlanLedgerEntry] | None | Unset = UNSET
    parent_run_id: None | str | Unset = UNSET
    parent_tool_call_id: None | str | Unset = UNSET
    pending_approvals: list[PendingApproval] | Unset = UNSET
    pending_tool_calls: list[PendingToolCall] | Unset = UNSET
    plan: None | RunOutPlanType0 | Unset = UNSET
    replan_count: int | None | Unset = UNSET
    usage_with_children: None | Unset | Usage = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.budget_exceeded import BudgetExceeded  # noqa: PLC0415
        from ..models.run_out_last_error_type_0 import RunOutLastErrorType0  # noqa: PLC0415
        from ..models.run_out_plan_type_0 import RunOutPlanType0  # noqa: PLC0415
        from ..models.usage import Usage  # noqa: PLC0415

        agent_version = self.agent_version

        attempts = self.attempts

        budget = self.budget.to_dict()

        budget_exceeded: dict[str, Any] | None
        if isinstance(self.budget_exceeded, BudgetExceeded):
            budget_exceeded = self.budget_exceeded.to_dict()
        else:
            budget_exceeded = self.budget_exceeded

        cancel_requested = self.cancel_requested

        created_at = self.created_at.isoformat()

        finish_reason: None | str
        finish_reason = self.finish_reason

        finished_at: None | str
        if isinstance(self.finished_at, datetime.datetime):
            finished_at = self.finished_at.isoformat()
        else:
            finished_at = self.finished_at

        id = self.id

        input_ = []
        for input_item_data in self.input_:
            input_item = input_item_data.to_dict()
            input_.append(input_item)

        last_error: dict[str, Any] | None
        if isinstance(self.last_error, RunOutLastErrorType0):
            last_error = self.last_error.to_dict()
        else:
            last_error = self.last_error

        lease_expires_at: None | str
        if isinstance(self.lease_expires_at, datetime.datetime):
            lease_expires_at = self.lease_expires_at.isoformat()
        else:
            lease_expires_at = self.lease_expires_at

        lease_owner: None | str
        lease_owner = self.lease_owner

        max_steps = self.max_steps

        metadata = self.metadata.to_dict()

        output: None | str
        output = self.output

        seq = self.seq

        session_id = self.session_id

        status = self.status

        steps = self.steps

        updated_at = self.updated_at.isoformat()

        usage = self.usage.to_dict()

        depth = self.depth

        frontier: list[str] | None | Unset
        if isinstance(self.frontier, Unset):
            frontier = UNSET
        elif isinstance(self.frontier, list):
            frontier = self.frontier

        else:
            frontier = self.frontier

        ledger: list[dict[str, Any]] | None | Unset
        if isinstance(self.ledger, Unset):
            ledger = UNSET
        elif isinstance(self.ledger, list):
            ledger = []
            for ledger_type_0_item_data in self.ledger:
                ledger_type_0_item = ledger_type_0_item_data.to_dict()
                ledger.append(ledger_type_0_item)

        else:
            ledger = self.ledger

        parent_run_id: None | str | Unset
        if isinstance(self.parent_run_id, Unset):
            parent_run_id = UNSET
        else:
            parent_run_id = self.parent_run_id

        parent_tool_call_id: None | str | Unset
        if isinstance(self.parent_tool_call_id, Unset):
            parent_tool_call_id = UNSET
        else:
            parent_tool_call_id = self.parent_tool_call_id

        pending_approvals: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.pending_approvals, Unset):
            pending_approvals = []
            for pending_approvals_item_data in self.pending_approvals:
                pending_approvals_item = pending_approvals_item_data.to_dict()
                pending_approvals.append(pending_approvals_item)

        pending_tool_calls: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.pending_tool_calls, Unset):
            pending_tool_calls = []
            for pending_tool_calls_item_data in self.pending_tool_calls:
                pending_tool_calls_item = pending_tool_calls_item_data.to_dict()
                pending_tool_calls.append(pending_tool_calls_item)

        plan: dict[str, Any] | None | Unset
        if isinstance(self.plan, Unset):
            plan = UNSET
        elif isinstance(self.plan, RunOutPlanType0):
            plan = self.plan.to_dict()
        else:
            plan = self.plan

        replan_count: int | None | Unset
        if isinstance(self.replan_count, Unset):
            replan_count = UNSET
        else:
            replan_count = self.replan_count

        usage_with_children: dict[str, Any] | None | Unset
        if isinstance(self.usage_with_children, Unset):
            usage_with_children = UNSET
        elif isinstance(self.usage_with_children, Usage):
            usage_with_children = self.usage_with_children.to_dict()
        else:
            usage_with_children = self.usage_with_children

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "agent_version": agent_version,
                "attempts": attempts,
                "budget": budget,
                "budget_exceeded": budget_exceeded,
                "cancel_requested": cancel_requested,
                "created_at": created_at,
                "finish_reason": finish_reason,
                "finished_at": finished_at,
                "id": id,
                "input": input_,
                "last_error": last_error,
                "lease_expires_at": lease_expires_at,
                "lease_owner": lease_owner,
                "max_steps": max_steps,
                "metadata": metadata,
                "output": output,
                "seq": seq,
                "session_id": session_id,
                "status": status,
                "steps": steps,
                "updated_at": updated_at,
                "usage": usage,
            }
        )
        if depth is not UNSET:
            field_dict["depth"] = depth
        if frontier is not UNSET:
            field_dict["frontier"] = frontier
        if ledger is not UNSET:
            field_dict["ledger"] = ledger
        if parent_run_id is not UNSET:
            field_dict["parent_run_id"] = parent_run_id
        if parent_tool_call_id is not UNSET:
            field_dict["parent_tool_call_id"] = parent_tool_call_id
        if pending_approvals is not UNSET:
            field_dict["pending_approvals"] = pending_approvals
        if pending_tool_calls is not UNSET:
            field_dict["pending_tool_calls"] = pending_tool_calls
        if plan is not UNSET:
            field_dict["plan"] = plan
        if replan_count is not UNSET:
            field_dict["replan_count"] = replan_count
        if usage_with_children is not UNSET:
            field_dict["usage_with_children"] = usage_with_children

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.budget import Budget  # noqa: PLC0415
        from ..models.budget_exceeded import BudgetExceeded  # noqa: PLC0415
        from ..models.pending_approval import PendingApproval  # noqa: PLC0415
        from ..models.pending_tool_call import PendingToolCall  # noqa: PLC0415
        from ..models.plan_ledger_entry import PlanLedgerEntry  # noqa: PLC0415
        from ..models.run_out_input_item import RunOutInputItem  # noqa: PLC0415
        from ..models.run_out_last_error_type_0 import RunOutLastErrorType0  # noqa: PLC0415
        from ..models.run_out_metadata import RunOutMetadata  # noqa: PLC0415
        from ..models.run_out_plan_type_0 import RunOutPlanType0  # noqa: PLC0415
        from ..models.usage import Usage  # noqa: PLC0415

        d = dict(src_dict)
        agent_version = d.pop("agent_version")

        attempts = d.pop("attempts")

        budget = Budget.from_dict(d.pop("budget"))

        def _parse_budget_exceeded(data: object) -> BudgetExceeded | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                budget_exceeded_type_0 = BudgetExceeded.from_dict(data)

                return budget_exceeded_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(BudgetExceeded | None, data)

        budget_exceeded = _parse_budget_exceeded(d.pop("budget_exceeded"))

        cancel_requested = d.pop("cancel_requested")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        def _parse_finish_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        finish_reason = _parse_finish_reason(d.pop("finish_reason"))

        def _parse_finished_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                finished_at_type_0 = datetime.datetime.fromisoformat(data)

                return finished_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        finished_at = _parse_finished_at(d.pop("finished_at"))

        id = d.pop("id")

        input_ = []
        _input_ = d.pop("input")
        for input_item_data in _input_:
            input_item = RunOutInputItem.from_dict(input_item_data)

            input_.append(input_item)

        def _parse_last_error(data: object) -> None | RunOutLastErrorType0:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                last_error_type_0 = RunOutLastErrorType0.from_dict(data)

                return last_error_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RunOutLastErrorType0, data)

        last_error = _parse_last_error(d.pop("last_error"))

        def _parse_lease_expires_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                lease_expires_at_type_0 = datetime.datetime.fromisoformat(data)

                return lease_expires_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        lease_expires_at = _parse_lease_expires_at(d.pop("lease_expires_at"))

        def _parse_lease_owner(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        lease_owner = _parse_lease_owner(d.pop("lease_owner"))

        max_steps = d.pop("max_steps")

        metadata = RunOutMetadata.from_dict(d.pop("metadata"))

        def _parse_output(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        output = _parse_output(d.pop("output"))

        seq = d.pop("seq")

        session_id = d.pop("session_id")

        status = d.pop("status")

        steps = d.pop("steps")

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        usage = Usage.from_dict(d.pop("usage"))

        depth = d.pop("depth", UNSET)

        def _parse_frontier(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                frontier_type_0 = cast(list[str], data)

                return frontier_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        frontier = _parse_frontier(d.pop("frontier", UNSET))

        def _parse_ledger(data: object) -> list[PlanLedgerEntry] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                ledger_type_0 = []
                _ledger_type_0 = data
                for ledger_type_0_item_data in _ledger_type_0:
                    ledger_type_0_item = PlanLedgerEntry.from_dict(
                        ledger_type_0_item_data
                    )

                    ledger_type_0.append(ledger_type_0_item)

                return ledger_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[PlanLedgerEntry] | None | Unset, data)

        ledger = _parse_ledger(d.pop("ledger", UNSET))

        def _parse_parent_run_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        parent_run_id = _parse_parent_run_id(d.pop("parent_run_id", UNSET))

        def _parse_parent_tool_call_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        parent_tool_call_id = _parse_parent_tool_call_id(
            d.pop("parent_tool_call_id", UNSET)
        )

        _pending_approvals = d.pop("pending_approvals", UNSET)
        pending_approvals: list[PendingApproval] | Unset = UNSET
        if _pending_approvals is not UNSET:
            pending_approvals = []
            for pending_approvals_item_data in _pending_approvals:
                pending_approvals_item = PendingApproval.from_dict(
                    pending_approvals_item_data
                )

                pending_approvals.append(pending_approvals_item)

        _pending_tool_calls = d.pop("pending_tool_calls", UNSET)
        pending_tool_calls: list[PendingToolCall] | Unset = UNSET
        if _pending_tool_calls is not UNSET:
            pending_tool_calls = []
            for pending_tool_calls_item_data in _pending_tool_calls:
                pending_tool_calls_item = PendingToolCall.from_dict(
                    pending_tool_calls_item_data
                )

                pending_tool_calls.append(pending_tool_calls_item)

        def _parse_plan(data: object) -> None | RunOutPlanType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                plan_type_0 = RunOutPlanType0.from_dict(data)

                return plan_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RunOutPlanType0 | Unset, data)

        plan = _parse_plan(d.pop("plan", UNSET))

        def _parse_replan_count(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        replan_count = _parse_replan_count(d.pop("replan_count", UNSET))

        def _parse_usage_with_children(data: object) -> None | Unset | Usage:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                usage_with_children_type_0 = Usage.from_dict(data)

                return usage_with_children_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | Usage, data)

        usage_with_children = _parse_usage_with_children(
            d.pop("usage_with_children", UNSET)
        )

        run_out = cls(
            agent_version=agent_version,
            attempts=attempts,
            budget=budget,
            budget_exceeded=budget_exceeded,
            cancel_requested=cancel_requested,
            created_at=created_at,
            finish_reason=finish_reason,
            finished_at=finished_at,
            id=id,
            input_=input_,
            last_error=last_error,
            lease_expires_at=lease_expires_at,
            lease_owner=lease_owner,
            max_steps=max_steps,
            metadata=metadata,
            output=output,
            seq=seq,
            session_id=session_id,
            status=status,
            steps=steps,
            updated_at=updated_at,
            usage=usage,
            depth=depth,
            frontier=frontier,
            ledger=ledger,
            parent_run_id=parent_run_id,
            parent_tool_call_id=parent_tool_call_id,
            pending_approvals=pending_approvals,
            pending_tool_calls=pending_tool_calls,
            plan=plan,
            replan_count=replan_count,
            usage_with_children=usage_with_children,
        )

        run_out.additional_properties = d
        return run_out

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
