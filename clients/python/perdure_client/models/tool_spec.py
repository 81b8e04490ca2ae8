from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.agent_executor import AgentExecutor
    from ..models.approval_rules import ApprovalRules
    from ..models.client_executor import ClientExecutor
    from ..models.http_executor import HttpExecutor
    from ..models.python_executor import PythonExecutor
    from ..models.tool_spec_input_schema import ToolSpecInputSchema
    from ..models.tool_spec_needs_approval_type_1 import ToolSpecNeedsApprovalType1


T = TypeVar("T", bound="ToolSpec")


@_attrs_define
class ToolSpec:
    """
    Attributes:
        executor (AgentExecutor | ClientExecutor | HttpExecutor | PythonExecutor):
        name (str):
        approval (ApprovalRules | Unset): Who may decide this tool's approvals.
        approval_timeout_s (float | None | Unset): An undecided approval of this tool is rejected after this long.
        description (str | Unset):  Default: ''.
        input_schema (ToolSpecInputSchema | Unset):
        needs_approval (bool | ToolSpecNeedsApprovalType1 | Unset): true, false, or a JSON Schema: approval is needed
            when the arguments match it (e.g. {"properties": {"amount": {"minimum": 100}}}). Default: False.
    """

    executor: AgentExecutor | ClientExecutor | HttpExecutor | PythonExecutor
    name: str
    approval: ApprovalRules | Unset = UNSET
    approval_timeout_s: float | None | Unset = UNSET
    description: str | Unset = ""
    input_schema: ToolSpecInputSchema | Unset = UNSET
    needs_approval: bool | ToolSpecNeedsApprovalType1 | Unset = False

    def to_dict(self) -> dict[str, Any]:
        from ..models.client_executor import ClientExecutor  # noqa: PLC0415
        from ..models.http_executor import HttpExecutor  # noqa: PLC0415
        from ..models.python_executor import PythonExecutor  # noqa: PLC0415
        from ..models.tool_spec_needs_approval_type_1 import ToolSpecNeedsApprovalType1  # noqa: PLC0415

        executor: dict[str, Any]
        if isinstance(self.executor, HttpExecutor):
            executor = self.executor.to_dict()
        elif isinstance(self.executor, PythonExecutor):
            executor = self.executor.to_dict()
        elif isinstance(self.executor, ClientExecutor):
            executor = self.executor.to_dict()
        else:
            executor = self.executor.to_dict()

        name = self.name

        approval: dict[str, Any] | Unset = UNSET
        if not isinstance(self.approval, Unset):
            approval = self.approval.to_dict()

        approval_timeout_s: float | None | Unset
        if isinstance(self.approval_timeout_s, Unset):
            approval_timeout_s = UNSET
        else:
            approval_timeout_s = self.approval_timeout_s

        description = self.description

        input_schema: dict[str, Any] | Unset = UNSET
        if not isinstance(self.input_schema, Unset):
            input_schema = self.input_schema.to_dict()

        needs_approval: bool | dict[str, Any] | Unset
        if isinstance(self.needs_approval, Unset):
            needs_approval = UNSET
        elif isinstance(self.needs_approval, ToolSpecNeedsApprovalType1):
            needs_approval = self.needs_approval.to_dict()
        else:
            needs_approval = self.needs_approval

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "executor": executor,
                "name": name,
            }
        )
        if approval is not UNSET:
            field_dict["approval"] = approval
        if approval_timeout_s is not UNSET:
            field_dict["approval_timeout_s"] = approval_timeout_s
        if description is not UNSET:
            field_dict["description"] = description
        if input_schema is not UNSET:
            field_dict["input_schema"] = input_schema
        if needs_approval is not UNSET:
            field_dict["needs_approval"] = needs_approval

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.agent_executor import AgentExecutor  # noqa: PLC0415
        from ..models.approval_rules import ApprovalRules  # noqa: PLC0415
        from ..models.client_executor import ClientExecutor  # noqa: PLC0415
        from ..models.http_executor import HttpExecutor  # noqa: PLC0415
        from ..models.python_executor import PythonExecutor  # noqa: PLC0415
        from ..models.tool_spec_input_schema import ToolSpecInputSchema  # noqa: PLC0415
        from ..models.tool_spec_needs_approval_type_1 import ToolSpecNeedsApprovalType1  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_executor(
            data: object,
        ) -> AgentExecutor | ClientExecutor | HttpExecutor | PythonExecutor:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                executor_type_0 = HttpExecutor.from_dict(data)

                return executor_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                executor_type_1 = PythonExecutor.from_dict(data)

                return executor_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                executor_type_2 = ClientExecutor.from_dict(data)

                return executor_type_2
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            executor_type_3 = AgentExecutor.from_dict(data)

            return executor_type_3

        executor = _parse_executor(d.pop("executor"))

        name = d.pop("name")

        _approval = d.pop("approval", UNSET)
        approval: ApprovalRules | Unset
        if isinstance(_approval, Unset):
            approval = UNSET
        else:
            approval = ApprovalRules.from_dict(_approval)

        def _parse_approval_timeout_s(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        approval_timeout_s = _parse_approval_timeout_s(
            d.pop("approval_timeout_s", UNSET)
        )

        description = d.pop("description", UNSET)

        _input_schema = d.pop("input_schema", UNSET)
        input_schema: ToolSpecInputSchema | Unset
        if isinstance(_input_schema, Unset):
            input_schema = UNSET
        else:
            input_schema = ToolSpecInputSchema.from_dict(_input_schema)

        def _parse_needs_approval(
            data: object,
        ) -> bool | ToolSpecNeedsApprovalType1 | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                needs_approval_type_1 = ToolSpecNeedsApprovalType1.from_dict(data)

                return needs_approval_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(bool | ToolSpecNeedsApprovalType1 | Unset, data)

        needs_approval = _parse_needs_approval(d.pop("needs_approval", UNSET))

        tool_spec = cls(
            executor=executor,
            name=name,
            approval=approval,
            approval_timeout_s=approval_timeout_s,
            description=description,
            input_schema=input_schema,
            needs_approval=needs_approval,
        )

        return tool_spec
