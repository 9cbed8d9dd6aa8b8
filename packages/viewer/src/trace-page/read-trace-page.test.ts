import { encodeRunEvent, type RunStore, type StoredRunEvent } from "@agentrx/executors";
import { MemoryRunStore } from "@agentrx/runs";
import { describe, expect, it } from "vitest";
import { readTracePage } from "./read-trace-page";

const lease = { owner: "worker:1", leaseMs: 60_000 };
const event = (seq: number, data: Record<string, unknown>): StoredRunEvent => ({ seq, type: String(data["type"]), at: 1000 + seq, data: encodeRunEvent({ at: 1000 + seq, ...data } as never) as StoredRunEvent["data"] });

describe("readTracePage", () => {
  it("never gives a finished run without its last events when the run ends while its record is read", async () => {
    const store = new MemoryRunStore();
    await store.createRun({ runId: "r1", inputs: { input: "hi" }, status: "running", ...lease, at: 1000 });
    await store.write("r1", { ...lease, at: 1001, events: [event(1, { type: "start", runId: "r1", inputs: { input: "hi" }, resumed: false })] });
    // The run ends just after the page has read its events.
    let ended = false;
    const racing = new Proxy(store, {
      get(target, key) {
        const value: unknown = Reflect.get(target, key);
        if (key !== "readEvents") return typeof value === "function" ? value.bind(target) : value;
        return async (...args: Parameters<RunStore["readEvents"]>) => {
          const events = await target.readEvents(...args);
          if (!ended) {
            ended = true;
            const output = event(2, { type: "output", runId: "r1", output: "bye", returnValues: { output: "bye" }, messages: [], stopReason: "finish", withSteps: false });
            await target.write("r1", { ...lease, at: 1002, events: [output], update: { status: "finished", stopReason: "finish", release: true } });
          }
          return events;
        };
      },
    });
    const page = JSON.parse(JSON.stringify(await readTracePage(racing, "r1", { mode: "ui", source: "test" })));
    // Either the page holds every event its row counts, or the row is the running one (the page then follows it live).
    expect(page.events.length).toBeGreaterThanOrEqual(page.run.eventCount);
    expect(page.run.status === "running" || page.events.some((item: { type: string }) => item.type === "output")).toBe(true);
  });
});
