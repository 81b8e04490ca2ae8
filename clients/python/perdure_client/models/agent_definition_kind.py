from enum import StrEnum


class AgentDefinitionKind(StrEnum):
    AGENT = "agent"
    PLANNER = "planner"

    def __str__(self) -> str:
        return str(self.value)
