from enum import StrEnum


class GetApprovalResponse403Code(StrEnum):
    FORBIDDEN = "FORBIDDEN"

    def __str__(self) -> str:
        return str(self.value)
