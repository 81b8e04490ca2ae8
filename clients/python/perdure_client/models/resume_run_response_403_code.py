from enum import StrEnum


class ResumeRunResponse403Code(StrEnum):
    FORBIDDEN = "FORBIDDEN"

    def __str__(self) -> str:
        return str(self.value)
