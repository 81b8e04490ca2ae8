from enum import StrEnum


class CancelRunResponse409Code(StrEnum):
    RUN_NOT_CANCELLABLE = "RUN_NOT_CANCELLABLE"

    def __str__(self) -> str:
        return str(self.value)
