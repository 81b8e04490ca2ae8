from enum import StrEnum


class SendMessageResponse409Code(StrEnum):
    SESSION_AGENT_MISMATCH = "SESSION_AGENT_MISMATCH"
    SESSION_AWAITING_APPROVAL = "SESSION_AWAITING_APPROVAL"
    SESSION_BUDGET_EXHAUSTED = "SESSION_BUDGET_EXHAUSTED"
    SESSION_BUSY = "SESSION_BUSY"

    def __str__(self) -> str:
        return str(self.value)
