from enum import StrEnum


class ResumeRunResponse409Code(StrEnum):
    RUN_NOT_RESUMABLE = "RUN_NOT_RESUMABLE"

    def __str__(self) -> str:
        return str(self.value)
