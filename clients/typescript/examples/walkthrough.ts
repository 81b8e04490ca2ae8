// Drive a live Perdure server with the generated TypeScript client: define agents, send
// with an Idempotency-Key, follow the run's stream, read the transcript, decide an
// approval, and read a problem's `code` on a 409. Prints `ok`; any surprise throws.
//
//   PERDURE_URL=http://127.0.0.1:8000 PERDURE_API_KEY=pdk_… node dist/examples/walkthrough.js
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";

import { createPerdureClient, followRun, type Schemas } from "../src/index.js";

const baseUrl = process.env.PERDURE_URL ?? "http://127.0.0.1:8000";
const apiKey = process.env.PERDURE_API_KEY;
const perdure = createPerdureClient({ baseUrl, apiKey });
const tag = randomUUID().slice(0, 8); // fresh ids: the program may run again on one server

const add: Schemas["ToolSpec"] = {
  name: "add",
  input_schema: {
    type: "object",
    properties: { a: { type: "integer" }, b: { type: "integer" } },
    required: ["a", "b"],
  },
  executor: { type: "python", path: "app.tools.demo:add" },
};
const script: Schemas["ScriptedModel"]["script"] = [
  { tool_calls: [{ name: "add", arguments: { a: 2, b: 3 } }] },
  { text: "2 + 3 = 5" },
];

async function defineAgent(id: string, tool: Schemas["ToolSpec"]): Promise<void> {
  const { data, error } = await perdure.POST("/v1/agents", {
    body: { id, model: { provider: "scripted", script }, tools: [tool] },
  });
  assert.ok(data, JSON.stringify(error));
  assert.equal(data.version, 1);
}

async function send(session: string, agentId: string, input: string, key: string) {
  const { data, error } = await perdure.POST("/v1/sessions/{session_id}/runs", {
    params: { path: { session_id: session }, query: { wait: 30 }, header: { "Idempotency-Key": key } },
    body: { agent_id: agentId, input },
  });
  assert.ok(data, JSON.stringify(error));
  return data;
}

async function main(): Promise<void> {
  // Define an agent, send with an Idempotency-Key and wait; the same key is the same run.
  await defineAgent(`calc-${tag}`, add);
  const run = await send(`chat-${tag}`, `calc-${tag}`, "What is 2 + 3?", `delivery-${tag}`);
  const again = await send(`chat-${tag}`, `calc-${tag}`, "What is 2 + 3?", `delivery-${tag}`);
  assert.equal(again.id, run.id);
  assert.equal(run.status, "finished");
  assert.equal(run.output, "2 + 3 = 5");

  // Its events: from the start, then resumed after id 2 as a reconnecting client is.
  const all: number[] = [];
  let lastType = "";
  for await (const event of followRun(run.id, { baseUrl, apiKey })) {
    if (event.id !== null) all.push(event.id);
    lastType = event.type;
  }
  assert.equal(lastType, "run.finished");
  const resumed: number[] = [];
  for await (const event of followRun(run.id, { baseUrl, apiKey, lastEventId: 2 })) {
    if (event.id !== null) resumed.push(event.id);
  }
  assert.deepEqual(resumed, all.filter((id) => id > 2));

  // The transcript: the input, the call, its result, the answer.
  const messages = await perdure.GET("/v1/sessions/{session_id}/messages", {
    params: { path: { session_id: `chat-${tag}` } },
  });
  assert.ok(messages.data, JSON.stringify(messages.error));
  assert.deepEqual(
    messages.data.items.map((m) => m.role),
    ["user", "assistant", "tool", "assistant"],
  );

  // An approval: the tool needs a human, the run pauses, a decision lets it go on.
  await defineAgent(`payer-${tag}`, { ...add, needs_approval: true });
  const paused = await send(`pay-${tag}`, `payer-${tag}`, "Add them, with approval", `pay-${tag}`);
  assert.equal(paused.status, "awaiting_approval");
  const queue = await perdure.GET("/v1/approvals", {
    params: { query: { run_id: paused.id, status: "pending" } },
  });
  assert.ok(queue.data, JSON.stringify(queue.error));
  assert.equal(queue.data.items.length, 1);
  const approvalId = queue.data.items[0].id;
  const decided = await perdure.POST("/v1/approvals/{approval_id}/decision", {
    params: { path: { approval_id: approvalId } },
    body: { approved: true, reason: "fine" },
  });
  assert.equal(decided.data?.status, "approved");
  let ended = "";
  for await (const event of followRun(paused.id, { baseUrl, apiKey })) ended = event.type;
  assert.equal(ended, "run.finished");
  const finished = await perdure.GET("/v1/runs/{run_id}", {
    params: { path: { run_id: paused.id } },
  });
  assert.equal(finished.data?.output, "2 + 3 = 5");

  // Deciding twice is a 409 whose `code` says why (typed: the codes this operation has).
  const twice = await perdure.POST("/v1/approvals/{approval_id}/decision", {
    params: { path: { approval_id: approvalId } },
    body: { approved: true },
  });
  assert.equal(twice.response.status, 409);
  const code: string | undefined = twice.error?.code;
  assert.equal(code, "APPROVAL_ALREADY_DECIDED");
  console.log("ok");
}

await main();
