from enum import StrEnum


class AgentDefinitionOnDrift(StrEnum):
    ERROR = "error"
    IGNORE = "ignore"
    WARN = "warn"

    def __str__(self) -> str:
        return str(self.value)
