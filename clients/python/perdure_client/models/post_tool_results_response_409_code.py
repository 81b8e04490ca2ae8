from enum import StrEnum


class PostToolResultsResponse409Code(StrEnum):
    RUN_NOT_AWAITING_TOOL_RESULTS = "RUN_NOT_AWAITING_TOOL_RESULTS"
    TOOL_RESULT_ALREADY_RECORDED = "TOOL_RESULT_ALREADY_RECORDED"

    def __str__(self) -> str:
        return str(self.value)
