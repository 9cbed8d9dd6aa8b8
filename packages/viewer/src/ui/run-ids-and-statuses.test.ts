// The ui server's routes for any run id (`.` and `..` too, and ids with `/`, `%`, `?`, `#`), and
// its list's status filter given several statuses, comma-separated or repeated.
import { MemoryRunStore } from "@agentrx/runs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runIdOfRouteSegment, runPagePath, runRouteSegment } from "../trace-page/run-route";
import { writeSyntheticRun } from "../trace/trace-test-fixtures";
import { type UiServer, startUiServer } from "./start-ui-server";

/** Run ids a URL path cannot hold as they are. */
const ODD_IDS = [".", "..", "~.", "~~..", "~", "~x", "...", "a/b%c?d#e", "%2E", "%2e%2E", " . ", "é ünï 🦀"];

let server: UiServer;
const store = new MemoryRunStore();

beforeAll(async () => {
  for (const runId of ODD_IDS) await writeSyntheticRun(store, { runId, iterations: 1, toolsPerIteration: 1, observationLength: 40 });
  for (const [runId, status] of [["f", "failed"], ["i", "interrupted"], ["c", "cancelled"], ["r", "running"]] as const) {
    await store.createRun({ runId, inputs: { input: runId }, status: "running", owner: "t:1", leaseMs: 600_000, at: Date.now() });
    if (status !== "running") await store.write(runId, { owner: "t:1", leaseMs: 600_000, at: Date.now(), events: [], update: { status, release: true } });
  }
  server = await startUiServer({ store, source: "memory", port: 0 });
});

afterAll(async () => {
  await server?.close();
});

describe("a run id in a ui URL", () => {
  it("round-trips every id, and leaves ids that were openable before as they were", () => {
    for (const runId of [...ODD_IDS, "plain", "run 1", "8c1f0b3e-5d2a"]) expect(runIdOfRouteSegment(runRouteSegment(runId)), runId).toBe(runId);
    expect(runRouteSegment(".")).toBe("~.");
    expect(runRouteSegment("..")).toBe("~..");
    expect(runRouteSegment("~.")).toBe("~~.");
    expect(runRouteSegment("~x")).toBe("~x");
    expect(runRouteSegment("a/b%c?d#e")).toBe("a%2Fb%25c%3Fd%23e");
    expect(runRouteSegment("run 1")).toBe(encodeURIComponent("run 1"));
    expect(runIdOfRouteSegment("%E0%A4%A")).toBeUndefined();
  });

  it("serves the page and the whole texts of runs whose ids are . and .., or hold / % ? #", async () => {
    for (const runId of ODD_IDS) {
      // As the browser resolves the link: `new URL` removes `.` and `..` path steps, `%2E` ones too.
      const page = new URL(runPagePath(runId), server.url);
      const response = await fetch(page);
      expect(response.status, runId).toBe(200);
      const html = await response.text();
      expect(html, runId).toContain(`"runId":${JSON.stringify(runId).replace(/</g, "\\u003c")}`);
      const text = await fetch(new URL(`/api/runs/${runRouteSegment(runId)}/text?seq=5&field=observation`, server.url));
      expect(text.status, runId).toBe(200);
      expect(((await text.json()) as { text: string }).text, runId).toBe("result 0.0 ".padEnd(40, "x"));
    }
  });
});

describe("the run list's status filter", () => {
  const listed = async (query: string) => {
    const response = await fetch(`${server.url}/api/runs?${query}`);
    const body = (await response.json()) as { runs?: { runId: string }[]; status?: string[]; error?: string };
    return { status: response.status, runs: body.runs?.map((run) => run.runId).sort(), filter: body.status, error: body.error };
  };

  it("takes several statuses, repeated or comma-separated, and still one", async () => {
    expect(await listed("status=failed&status=interrupted")).toEqual({ status: 200, runs: ["f", "i"], filter: ["failed", "interrupted"], error: undefined });
    expect(await listed("status=failed,interrupted")).toEqual({ status: 200, runs: ["f", "i"], filter: ["failed", "interrupted"], error: undefined });
    expect(await listed("status=failed,interrupted&status=cancelled&status=failed")).toEqual({ status: 200, runs: ["c", "f", "i"], filter: ["failed", "interrupted", "cancelled"], error: undefined });
    expect(await listed("status=interrupted")).toEqual({ status: 200, runs: ["i"], filter: ["interrupted"], error: undefined });
    // An empty one is no filter, as before.
    expect((await listed("status=")).runs).toHaveLength(ODD_IDS.length + 4);
  });

  it("names an unknown status wherever it is given", async () => {
    const refused = await listed("status=failed&status=bogus");
    expect(refused.status).toBe(400);
    expect(refused.error).toMatch(/Unknown status "bogus" in `status`: use one or more of queued, running, .* comma-separated or with `status` repeated/);
    expect((await fetch(`${server.url}/?status=failed&status=bogus`)).status).toBe(400);
  });
});
