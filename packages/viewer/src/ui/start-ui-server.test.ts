import type { StoredRunEvent } from "@agentrx/executors";
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

describe("agentrx ui server: searching the run list", () => {
  /** A store of three runs: two asked about the weather, one answered (its answer is searched too). */
  async function searchableStore(): Promise<MemoryRunStore> {
    const store = new MemoryRunStore();
    const at = Date.now();
    await store.createRun({ runId: "paris", inputs: { input: "Weather in Paris?" }, status: "queued", at });
    await store.createRun({ runId: "oslo", inputs: { input: "Weather in Oslo?" }, status: "queued", at: at + 1 });
    await store.createRun({ runId: "refund", inputs: { input: "Where is my money?" }, status: "running", owner: "test:1", leaseMs: 60_000, at: at + 2 });
    const output = { type: "output", at: at + 3, runId: "refund", output: "Your refund for order 1234 was sent.", returnValues: { output: "x" }, messages: [], stopReason: "finish", withSteps: false };
    await store.write("refund", { owner: "test:1", leaseMs: 60_000, at: at + 3, events: [{ seq: 1, type: "output", at: at + 3, data: output as StoredRunEvent["data"] }], update: { status: "finished", stopReason: "finish", release: true } });
    return store;
  }
  const ids = async (path: string) => {
    const response = await fetch(`${server?.url}${path}`);
    expect(response.status, path).toBe(200);
    const body = (await response.json()) as { runs: { runId: string }[]; search?: string };
    return { ids: body.runs.map((run) => run.runId), search: body.search };
  };

  it("lists the runs whose input or answer has words starting with every word searched, with the other filters", async () => {
    server = await startUiServer({ store: await searchableStore(), source: "memory", port: 0 });
    expect(await ids("/api/runs?search=weather")).toEqual({ ids: ["oslo", "paris"], search: "weather" });
    expect(await ids(`/api/runs?search=${encodeURIComponent("par WEA")}`)).toEqual({ ids: ["paris"], search: "par WEA" });
    expect(await ids("/api/runs?search=refund%201234")).toEqual({ ids: ["refund"], search: "refund 1234" }); // in the answer
    expect(await ids("/api/runs?search=weather&status=finished")).toEqual({ ids: [], search: "weather" });
    expect(await ids("/api/runs?search=weather&limit=1")).toEqual({ ids: ["oslo"], search: "weather" });
    expect(await ids("/api/runs?search=")).toEqual({ ids: ["refund", "oslo", "paris"], search: undefined });
  });

  it("serves the list page searched, the search in the page's data for its box", async () => {
    server = await startUiServer({ store: await searchableStore(), source: "memory", port: 0 });
    const page = await (await fetch(`${server.url}/?search=oslo`)).text();
    const data = JSON.parse(/<script type="application\/json" id="agentrx-data">([\s\S]*?)<\/script>/.exec(page)?.[1] ?? "null") as { runs: { runId: string }[]; search?: string } | null;
    expect(data?.search).toBe("oslo");
    expect(data?.runs.map((run) => run.runId)).toEqual(["oslo"]);
  });
});
