from __future__ import annotations

from collections.abc import Mapping
from typing import (
    TYPE_CHECKING,
    Any,
    Literal,
    TypeVar,
    cast,
)

from attrs import define as _attrs_define

from ..models.send_request_if_busy import SendRequestIfBusy
from ..models.send_request_on_drift_type_0 import SendRequestOnDriftType0
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.budget import Budget
    from ..models.input_message import InputMessage
    from ..models.send_request_metadata_type_0 import SendRequestMetadataType0
    from ..models.send_request_session_metadata_type_0 import (
        SendRequestSessionMetadataType0,
    )


T = TypeVar("T", bound="SendRequest")


@_attrs_define
class SendRequest:
    """
    Attributes:
        input_ (list[InputMessage] | str): A user message, or a list of messages. `[]` just continues the session.
        agent_id (None | str | Unset): Required when the session does not exist yet.
        agent_version (int | Literal['latest'] | None | Unset): Continue under this version of the session's agent
            (default: the one the session started with).
        budget (Budget | None | Unset): Limits for this run, over the agent's `budget` (each one given replaces the
            agent's). Raising one above the agent's needs 'agents:write'.
        if_busy (SendRequestIfBusy | Unset):  Default: SendRequestIfBusy.QUEUE.
        max_steps (int | None | Unset):
        metadata (None | SendRequestMetadataType0 | Unset): Labels for the new run.
        on_drift (None | SendRequestOnDriftType0 | Unset): What a changed definition does (default: the agent's).
        session_budget (Budget | None | Unset): Limits for all runs of this session, over the agent's `session_budget`;
            kept for later sends. Raising one above the agent's needs 'agents:write'.
        session_metadata (None | SendRequestSessionMetadataType0 | Unset): Labels for the session, merged into those it
            has (a key given replaces its value).
    """

    input_: list[InputMessage] | str
    agent_id: None | str | Unset = UNSET
    agent_version: int | Literal["latest"] | None | Unset = UNSET
    budget: Budget | None | Unset = UNSET
    if_busy: SendRequestIfBusy | Unset = SendRequestIfBusy.QUEUE
    max_steps: int | None | Unset = UNSET
    metadata: None | SendRequestMetadataType0 | Unset = UNSET
    on_drift: None | SendRequestOnDriftType0 | Unset = UNSET
    session_budget: Budget | None | Unset = UNSET
    session_metadata: None | SendRequestSessionMetadataType0 | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.budget import Budget  # noqa: PLC0415
        from ..models.send_request_metadata_type_0 import SendRequestMetadataType0  # noqa: PLC0415
        from ..models.send_request_session_metadata_type_0 import (
            SendRequestSessionMetadataType0,  # noqa: PLC0415
        )

        input_: list[dict[str, Any]] | str
        if isinstance(self.input_, list):
            input_ = []
            for input_type_1_item_data in self.input_:
                input_type_1_item = input_type_1_item_data.to_dict()
                input_.append(input_type_1_item)

        else:
            input_ = self.input_

        agent_id: None | str | Unset
        if isinstance(self.agent_id, Unset):
            agent_id = UNSET
        else:
            agent_id = self.agent_id

        agent_version: int | Literal["latest"] | None | Unset
        if isinstance(self.agent_version, Unset):
            agent_version = UNSET
        else:
            agent_version = self.agent_version

        budget: dict[str, Any] | None | Unset
        if isinstance(self.budget, Unset):
            budget = UNSET
        elif isinstance(self.budget, Budget):
            budget = self.budget.to_dict()
        else:
            budget = self.budget

        if_busy: str | Unset = UNSET
        if not isinstance(self.if_busy, Unset):
            if_busy = self.if_busy.value

        max_steps: int | None | Unset
        if isinstance(self.max_steps, Unset):
            max_steps = UNSET
        else:
            max_steps = self.max_steps

        metadata: dict[str, Any] | None | Unset
        if isinstance(self.metadata, Unset):
            metadata = UNSET
        elif isinstance(self.metadata, SendRequestMetadataType0):
            metadata = self.metadata.to_dict()
        else:
            metadata = self.metadata

        on_drift: None | str | Unset
        if isinstance(self.on_drift, Unset):
            on_drift = UNSET
        elif isinstance(self.on_drift, SendRequestOnDriftType0):
            on_drift = self.on_drift.value
        else:
            on_drift = self.on_drift

        session_budget: dict[str, Any] | None | Unset
        if isinstance(self.session_budget, Unset):
            session_budget = UNSET
        elif isinstance(self.session_budget, Budget):
            session_budget = self.session_budget.to_dict()
        else:
            session_budget = self.session_budget

        session_metadata: dict[str, Any] | None | Unset
        if isinstance(self.session_metadata, Unset):
            session_metadata = UNSET
        elif isinstance(self.session_metadata, SendRequestSessionMetadataType0):
            session_metadata = self.session_metadata.to_dict()
        else:
            session_metadata = self.session_metadata

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "input": input_,
            }
        )
        if agent_id is not UNSET:
            field_dict["agent_id"] = agent_id
        if agent_version is not UNSET:
            field_dict["agent_version"] = agent_version
        if budget is not UNSET:
            field_dict["budget"] = budget
        if if_busy is not UNSET:
            field_dict["if_busy"] = if_busy
        if max_steps is not UNSET:
            field_dict["max_steps"] = max_steps
        if metadata is not UNSET:
            field_dict["metadata"] = metadata
        if on_drift is not UNSET:
            field_dict["on_drift"] = on_drift
        if session_budget is not UNSET:
            field_dict["session_budget"] = session_budget
        if session_metadata is not UNSET:
            field_dict["session_metadata"] = session_metadata

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.budget import Budget  # noqa: PLC0415
        from ..models.input_message import InputMessage  # noqa: PLC0415
        from ..models.send_request_metadata_type_0 import SendRequestMetadataType0  # noqa: PLC0415
        from ..models.send_request_session_metadata_type_0 import (
            SendRequestSessionMetadataType0,  # noqa: PLC0415
        )

        d = dict(src_dict)

        def _parse_input_(data: object) -> list[InputMessage] | str:
            try:
                if not isinstance(data, list):
                    raise TypeError()
                input_type_1 = []
                _input_type_1 = data
                for input_type_1_item_data in _input_type_1:
                    input_type_1_item = InputMessage.from_dict(input_type_1_item_data)

                    input_type_1.append(input_type_1_item)

                return input_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[InputMessage] | str, data)

        input_ = _parse_input_(d.pop("input"))

        def _parse_agent_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        agent_id = _parse_agent_id(d.pop("agent_id", UNSET))

        def _parse_agent_version(
            data: object,
        ) -> int | Literal["latest"] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            agent_version_type_1 = cast(Literal["latest"], data)
            if agent_version_type_1 != "latest":
                raise ValueError(
                    f"agent_version_type_1 must match const 'latest', got '{agent_version_type_1}'"
                )
            return agent_version_type_1
            return cast(int | Literal["latest"] | None | Unset, data)

        agent_version = _parse_agent_version(d.pop("agent_version", UNSET))

        def _parse_budget(data: object) -> Budget | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                budget_type_0 = Budget.from_dict(data)

                return budget_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Budget | None | Unset, data)

        budget = _parse_budget(d.pop("budget", UNSET))

        _if_busy = d.pop("if_busy", UNSET)
        if_busy: SendRequestIfBusy | Unset
        if isinstance(_if_busy, Unset):
            if_busy = UNSET
        else:
            if_busy = SendRequestIfBusy(_if_busy)

        def _parse_max_steps(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_steps = _parse_max_steps(d.pop("max_steps", UNSET))

        def _parse_metadata(data: object) -> None | SendRequestMetadataType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                metadata_type_0 = SendRequestMetadataType0.from_dict(data)

                return metadata_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SendRequestMetadataType0 | Unset, data)

        metadata = _parse_metadata(d.pop("metadata", UNSET))

        def _parse_on_drift(data: object) -> None | SendRequestOnDriftType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                on_drift_type_0 = SendRequestOnDriftType0(data)

                return on_drift_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SendRequestOnDriftType0 | Unset, data)

        on_drift = _parse_on_drift(d.pop("on_drift", UNSET))

        def _parse_session_budget(data: object) -> Budget | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                session_budget_type_0 = Budget.from_dict(data)

                return session_budget_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Budget | None | Unset, data)

        session_budget = _parse_session_budget(d.pop("session_budget", UNSET))

        def _parse_session_metadata(
            data: object,
        ) -> None | SendRequestSessionMetadataType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                session_metadata_type_0 = SendRequestSessionMetadataType0.from_dict(
                    data
                )

                return session_metadata_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SendRequestSessionMetadataType0 | Unset, data)

        session_metadata = _parse_session_metadata(d.pop("session_metadata", UNSET))

        send_request = cls(
            input_=input_,
            agent_id=agent_id,
            agent_version=agent_version,
            budget=budget,
            if_busy=if_busy,
            max_steps=max_steps,
            metadata=metadata,
            on_drift=on_drift,
            session_budget=session_budget,
            session_metadata=session_metadata,
        )

        return send_request
