// Follow a run's Server-Sent Events, reconnecting with Last-Event-ID: written by hand
// beside the generated types (generators do not do SSE well). Each logged event is
// yielded once, in order, however often the connection drops: the server resumes
// exactly after the last id seen.
import type { components } from "./schema.js";

const TERMINAL = new Set(["run.finished", "run.failed", "run.cancelled"]);

/** One SSE event: `id` is null for `message.delta` (not logged, not replayed). */
export interface StreamEvent {
  id: number | null;
  type: string;
  data: components["schemas"]["EventOut"] | { run_id: string; n: number; text: string };
}

/** SSE events from a stream's text chunks (comment lines, the keep-alives, are skipped). */
export async function* parseEvents(chunks: AsyncIterable<string>): AsyncGenerator<StreamEvent> {
  let buffer = "";
  let fields: Record<string, string> = {};
  for await (const chunk of chunks) {
    buffer += chunk;
    let newline: number;
    while ((newline = buffer.search(/\r\n|\r|\n/)) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + (buffer.startsWith("\r\n", newline) ? 2 : 1));
      if (line === "") {
        if ("data" in fields) {
          yield {
            id: fields.id ? Number(fields.id) : null,
            type: fields.event ?? "message",
            data: JSON.parse(fields.data),
          };
        }
        fields = {};
      } else if (!line.startsWith(":")) {
        const colon = line.indexOf(":");
        const name = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        fields[name] = name === "data" && "data" in fields ? `${fields.data}\n${value}` : value;
      }
    }
  }
}

export interface FollowOptions {
  baseUrl: string;
  apiKey?: string;
  /** Resume after this id (what a reconnecting client saw last). */
  lastEventId?: number;
  maxReconnects?: number;
  signal?: AbortSignal;
}

/** The run's events after `lastEventId`, live, until its terminal event. */
export async function* followRun(runId: string, options: FollowOptions): AsyncGenerator<StreamEvent> {
  let last = options.lastEventId;
  let failures = 0;
  for (;;) {
    const headers: Record<string, string> = { Accept: "text/event-stream" };
    if (options.apiKey) headers.Authorization = `Bearer ${options.apiKey}`;
    if (last !== undefined) headers["Last-Event-ID"] = String(last);
    try {
      const response = await fetch(`${options.baseUrl}/v1/runs/${runId}/stream`, {
        headers,
        signal: options.signal,
      });
      if (!response.ok || !response.body) {
        throw new Error(`stream of run ${runId}: HTTP ${response.status} ${await response.text()}`);
      }
      for await (const event of parseEvents(response.body.pipeThrough(new TextDecoderStream()))) {
        if (event.id !== null) {
          last = event.id;
          failures = 0; // progress: the budget is for failures in a row
        }
        yield event;
        if (TERMINAL.has(event.type)) return;
      }
    } catch (error) {
      // A refusal (4xx) will not pass; a dropped connection (a TypeError from fetch) will.
      if (!(error instanceof TypeError) || options.signal?.aborted) throw error;
    }
    failures += 1;
    if (failures > (options.maxReconnects ?? 10)) {
      throw new Error(`the stream of run ${runId} dropped ${failures} times in a row`);
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(200 * 2 ** failures, 5000)));
  }
}
