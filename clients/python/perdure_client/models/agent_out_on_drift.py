from enum import StrEnum


class AgentOutOnDrift(StrEnum):
    ERROR = "error"
    IGNORE = "ignore"
    WARN = "warn"

    def __str__(self) -> str:
        return str(self.value)
