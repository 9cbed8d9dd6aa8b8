import { afterEach, describe, expect, it } from "vitest";
import { MemoryRunStore } from "@agentrx/runs";
import { type UiServer, startUiServer } from "./start-ui-server";

let server: UiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("agentrx ui server: malformed requests", () => {
  it("answers 400 for a malformed % escape in a run's URL, and 404 for an unknown run", async () => {
    server = await startUiServer({ store: new MemoryRunStore(), source: "memory", port: 0 });
    for (const path of ["/runs/%E0%A4%A", "/api/runs/100%/events", "/api/runs/%zz/text"]) {
      expect((await fetch(`${server.url}${path}`)).status, path).toBe(400);
    }
    expect((await fetch(`${server.url}/runs/nope`)).status).toBe(404);
  });

  it("answers 400 for a Last-Event-ID or after that is not a decimal integer", async () => {
    const store = new MemoryRunStore();
    await store.createRun({ runId: "r1", inputs: {}, status: "queued", at: Date.now() });
    server = await startUiServer({ store, source: "memory", port: 0 });
    for (const lastEventId of ["1e308", "0x10", "-1", "1.5"]) {
      const response = await fetch(`${server.url}/api/runs/r1/events`, { headers: { "last-event-id": lastEventId } });
      expect(response.status, lastEventId).toBe(400);
    }
    expect((await fetch(`${server.url}/api/runs/r1/events?after=1e308`)).status).toBe(400);
  });
});
