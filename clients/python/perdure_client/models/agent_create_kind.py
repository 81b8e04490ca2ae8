from enum import StrEnum


class AgentCreateKind(StrEnum):
    AGENT = "agent"
    PLANNER = "planner"

    def __str__(self) -> str:
        return str(self.value)
