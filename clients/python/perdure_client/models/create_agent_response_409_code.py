from enum import StrEnum


class CreateAgentResponse409Code(StrEnum):
    AGENT_EXISTS = "AGENT_EXISTS"

    def __str__(self) -> str:
        return str(self.value)
