from enum import StrEnum


class Scope(StrEnum):
    ADMIN = "admin"
    AGENTSREAD = "agents:read"
    AGENTSWRITE = "agents:write"
    APPROVALSDECIDE = "approvals:decide"
    RUNSREAD = "runs:read"
    RUNSWRITE = "runs:write"

    def __str__(self) -> str:
        return str(self.value)
