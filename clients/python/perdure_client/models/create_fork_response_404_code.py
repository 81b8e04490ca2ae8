from enum import StrEnum


class CreateForkResponse404Code(StrEnum):
    CHECKPOINT_NOT_FOUND = "CHECKPOINT_NOT_FOUND"
    NOT_FOUND = "NOT_FOUND"

    def __str__(self) -> str:
        return str(self.value)
