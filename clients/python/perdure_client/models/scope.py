from enum import StrEnum


class Scope(StrEnum):
    ADMIN = "admin"
    AGENTSREAD = "agents:read"
    AGENTSWRITE = "agents:write"
    APPROVALSDECIDE = "approvals:decide"
    METRICSREAD = "metrics:read"
    RUNSREAD = "runs:read"
    RUNSWRITE = "runs:write"

    def __str__(self) -> str:
        return str(self.value)
