from enum import StrEnum


class RunStatus(StrEnum):
    AWAITING_APPROVAL = "awaiting_approval"
    AWAITING_CHILDREN = "awaiting_children"
    AWAITING_TOOL_RESULTS = "awaiting_tool_results"
    CANCELLED = "cancelled"
    FAILED = "failed"
    FINISHED = "finished"
    QUEUED = "queued"
    RUNNING = "running"

    def __str__(self) -> str:
        return str(self.value)
