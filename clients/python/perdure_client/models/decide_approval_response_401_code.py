from enum import StrEnum


class DecideApprovalResponse401Code(StrEnum):
    UNAUTHORIZED = "UNAUTHORIZED"

    def __str__(self) -> str:
        return str(self.value)
