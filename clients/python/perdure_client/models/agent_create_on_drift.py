from enum import StrEnum


class AgentCreateOnDrift(StrEnum):
    ERROR = "error"
    IGNORE = "ignore"
    WARN = "warn"

    def __str__(self) -> str:
        return str(self.value)
