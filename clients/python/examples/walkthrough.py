"""Drive a live Perdure server with the generated Python client: define agents, send with
an Idempotency-Key, follow the run's stream, read the transcript, decide an approval, and
read a problem's `code` on a 409. Prints `ok` at the end; any surprise raises.

    PERDURE_URL=http://127.0.0.1:8000 PERDURE_API_KEY=pdk_… python examples/walkthrough.py
"""

from __future__ import annotations

import os
import sys
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout

from perdure_client import AuthenticatedClient
from perdure_client.api.agents import create_agent
from perdure_client.api.approvals import decide_approval, list_approvals
from perdure_client.api.runs import get_run
from perdure_client.api.sessions import list_messages, send_message
from perdure_client.models import AgentCreate, DecisionIn, RunOut, SendRequest
from perdure_stream import follow_run

ADD = {
    "name": "add",
    "input_schema": {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"],
    },
    "executor": {"type": "python", "path": "app.tools.demo:add"},
}


def main() -> None:
    client = AuthenticatedClient(
        base_url=os.environ["PERDURE_URL"], token=os.environ["PERDURE_API_KEY"], timeout=60
    )
    tag = uuid.uuid4().hex[:8]  # fresh ids: the program may run again on the same server

    # Define an agent: a scripted model (no network) that calls `add`, then answers.
    script = [
        {"tool_calls": [{"name": "add", "arguments": {"a": 2, "b": 3}}]},
        {"text": "2 + 3 = 5"},
    ]
    agent = create_agent.sync(
        client=client,
        body=AgentCreate.from_dict(
            {
                "id": f"calc-{tag}",
                "model": {"provider": "scripted", "script": script},
                "tools": [ADD],
            }
        ),
    )
    assert agent is not None and agent.version == 1, agent

    # Send with an Idempotency-Key and wait; the same key again is the same run.
    def send(session: str, agent_id: str, text: str, key: str) -> RunOut:
        run = send_message.sync(
            session,
            client=client,
            body=SendRequest.from_dict({"agent_id": agent_id, "input": text}),
            wait=30,
            idempotency_key=key,
        )
        assert isinstance(run, RunOut), run
        return run

    run = send(f"chat-{tag}", agent.id, "What is 2 + 3?", f"delivery-{tag}")
    again = send(f"chat-{tag}", agent.id, "What is 2 + 3?", f"delivery-{tag}")
    assert again.id == run.id, (again.id, run.id)
    assert run.status == "finished" and run.output == "2 + 3 = 5", run

    # Its events: from the start, then resumed after id 2 as a reconnecting client is.
    everything = [e for e in follow_run(client, str(run.id)) if e.id is not None]
    assert everything[-1].type == "run.finished", everything
    resumed = [e.id for e in follow_run(client, str(run.id), last_event_id=2) if e.id]
    assert resumed == [e.id for e in everything if e.id > 2], resumed

    # The transcript: the input, the call, its result, the answer.
    page = list_messages.sync(f"chat-{tag}", client=client)
    assert page is not None and not isinstance(page, int)
    assert [m.to_dict()["role"] for m in page.items] == ["user", "assistant", "tool", "assistant"]

    # An approval: the tool needs a human, the run pauses, a decision lets it go on.
    gated = {**ADD, "needs_approval": True}
    create_agent.sync(
        client=client,
        body=AgentCreate.from_dict(
            {
                "id": f"payer-{tag}",
                "model": {"provider": "scripted", "script": script},
                "tools": [gated],
            }
        ),
    )
    paused = send(f"pay-{tag}", f"payer-{tag}", "Add them, with approval", f"pay-{tag}")
    assert paused.status == "awaiting_approval", paused
    queue = list_approvals.sync(client=client, run_id=paused.id, status="pending")
    assert queue is not None and len(queue.items) == 1, queue
    approval = queue.items[0]
    decided = decide_approval.sync(
        approval.id, client=client, body=DecisionIn(approved=True, reason="fine")
    )
    assert decided is not None and decided.status == "approved", decided
    events = [e.type for e in follow_run(client, str(paused.id))]
    assert events[-1] == "run.finished", events
    finished = get_run.sync(paused.id, client=client)
    assert isinstance(finished, RunOut) and finished.output == "2 + 3 = 5", finished

    # Deciding twice is a 409 whose `code` says why.
    twice = decide_approval.sync_detailed(
        approval.id, client=client, body=DecisionIn(approved=True)
    )
    assert twice.status_code == 409, twice
    assert twice.parsed is not None and twice.parsed.code == "APPROVAL_ALREADY_DECIDED", twice
    print("ok")


if __name__ == "__main__":
    main()
