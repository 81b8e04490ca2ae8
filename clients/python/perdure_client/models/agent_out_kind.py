from enum import StrEnum


class AgentOutKind(StrEnum):
    AGENT = "agent"
    PLANNER = "planner"

    def __str__(self) -> str:
        return str(self.value)
