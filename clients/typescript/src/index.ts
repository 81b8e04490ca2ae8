// A typed Perdure client: openapi-fetch over the types openapi-typescript generates from
// openapi/openapi.json (src/schema.d.ts, by scripts/clients.sh). Paths, parameters, bodies
// and each status's answer (problem codes included) are checked by the compiler.
import createClient from "openapi-fetch";

import type { components, operations, paths } from "./schema.js";

export type { components, operations, paths };
export type Schemas = components["schemas"];
export { followRun, parseEvents, type StreamEvent } from "./stream.js";

export interface PerdureOptions {
  /** e.g. `http://127.0.0.1:8000` */
  baseUrl: string;
  /** An API key (`Authorization: Bearer pdk_…`); none for a server in open mode. */
  apiKey?: string;
}

export function createPerdureClient({ baseUrl, apiKey }: PerdureOptions) {
  // JSON answers and problems: `sendMessage`'s `?stream=true` answer is text/event-stream,
  // which `followRun` reads; left out here, its `data` is a run, not a run-or-event.
  return createClient<paths, "application/json" | "application/problem+json">({
    baseUrl,
    headers: apiKey ? { Authorization: `Bearer ${apiKey}` } : {},
  });
}

export type PerdureClient = ReturnType<typeof createPerdureClient>;
