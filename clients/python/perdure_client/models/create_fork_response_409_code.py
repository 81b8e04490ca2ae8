from enum import StrEnum


class CreateForkResponse409Code(StrEnum):
    SESSION_EXISTS = "SESSION_EXISTS"

    def __str__(self) -> str:
        return str(self.value)
