from enum import StrEnum


class CreateScheduleResponse409Code(StrEnum):
    SCHEDULE_EXISTS = "SCHEDULE_EXISTS"
    SESSION_AGENT_MISMATCH = "SESSION_AGENT_MISMATCH"

    def __str__(self) -> str:
        return str(self.value)
