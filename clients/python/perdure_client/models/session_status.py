from enum import StrEnum


class SessionStatus(StrEnum):
    AWAITING_APPROVAL = "awaiting_approval"
    AWAITING_TOOL_RESULTS = "awaiting_tool_results"
    CANCELLED = "cancelled"
    FAILED = "failed"
    FINISHED = "finished"
    IDLE = "idle"
    QUEUED = "queued"
    RUNNING = "running"

    def __str__(self) -> str:
        return str(self.value)
