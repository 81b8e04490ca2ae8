"""The `scripted` model: replies by position, for demos, tests and benchmarks.

The k-th model call of a session gets `script[k]`; past the end, the last reply without
tool calls. When `PERDURE_SCRIPTED_CALL_LOG` names a file, every call appends one JSON
line to it (session, position, attempt, pid): crash tests count model calls this way.
"""

from __future__ import annotations

import asyncio
import json
import os

from app.domain.agent import ScriptedModel, ScriptReply
from app.domain.run import Usage
from app.providers.base import ModelError, ModelReply, ModelRequest, ProposedCall

CALL_LOG_ENV = "PERDURE_SCRIPTED_CALL_LOG"


class Scripted:
    def __init__(self, spec: ScriptedModel) -> None:
        self.spec = spec
        self._call_log = os.environ.get(CALL_LOG_ENV)

    def reply_at(self, position: int) -> ScriptReply:
        script = self.spec.script
        if position < len(script):
            return script[position]
        final = [r for r in script if not r.tool_calls and r.error is None]
        return final[-1] if final else ScriptReply(text="")

    async def generate(self, request: ModelRequest) -> ModelReply:
        reply = self.reply_at(request.position)
        if self._call_log:
            self._log(request)
        if reply.delay_s:
            await asyncio.sleep(reply.delay_s)
        error = reply.error
        if error is not None and (error.times is None or request.attempt < error.times):
            raise ModelError(error.message, retryable=error.retryable, code="scripted_error")
        return ModelReply(
            text=reply.text or "",
            tool_calls=[ProposedCall(c.name, c.arguments) for c in reply.tool_calls],
            usage=Usage(input_tokens=reply.input_tokens, output_tokens=reply.output_tokens),
        )

    def _log(self, request: ModelRequest) -> None:
        assert self._call_log is not None
        line = json.dumps(
            {
                "session_id": request.session_id,
                "run_id": str(request.run_id),
                "position": request.position,
                "attempt": request.attempt,
                "pid": os.getpid(),
            }
        )
        # One small O_APPEND write per line: lines from several processes never interleave.
        fd = os.open(self._call_log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, (line + "\n").encode())
        finally:
            os.close(fd)
