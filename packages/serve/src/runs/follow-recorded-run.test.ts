import { RunNotFoundError } from "@agentrx/executors";
import { MemoryRunStore, replayRun } from "@agentrx/runs";
import { firstValueFrom, lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { ANSWER, weatherExecutor } from "../test-helpers/weather-executor";
import { followRecordedRun } from "./follow-recorded-run";

const strip = <T extends { at?: number }>(events: T[]) => events.map(({ at: _at, ...event }) => event);

describe("followRecordedRun", () => {
  it("follows a running run from its first event until it stops: every recorded event once", async () => {
    const store = new MemoryRunStore();
    const executor = weatherExecutor({ store, tokenDelayMs: 5, toolMs: 30 });
    const running = lastValueFrom(executor.stream({ input: "Weather?" }, { runId: "live" }));
    // Join once the run is recorded and under way.
    await expect.poll(async () => (await store.getRun("live"))?.eventCount ?? 0).toBeGreaterThan(1);
    expect((await store.getRun("live"))?.status).toBe("running");
    const followed = lastValueFrom(followRecordedRun(store, "live", { pollMs: 10 }).pipe(toArray()));
    await running;
    const events = await followed;
    expect(events.at(-1)).toMatchObject({ type: "output", output: ANSWER });
    expect(strip(events)).toEqual(strip(await lastValueFrom(replayRun(store, "live").pipe(toArray()))));
    const text = events.flatMap((event) => (event.type === "token" ? [event.text] : [])).join("");
    expect(text).toBe(`Let me check. ${ANSWER}`);
  });

  it("completes at once after the record of a finished run, and errors for an unknown run", async () => {
    const store = new MemoryRunStore();
    await lastValueFrom(weatherExecutor({ store }).invoke({ input: "Weather?" }, { runId: "done" }));
    const events = await lastValueFrom(followRecordedRun(store, "done").pipe(toArray()));
    expect(events.map((event) => event.type)).toEqual((await lastValueFrom(replayRun(store, "done").pipe(toArray()))).map((event) => event.type));
    await expect(firstValueFrom(followRecordedRun(store, "nope"))).rejects.toSatisfy((error) => RunNotFoundError.isInstance(error));
    expect(() => followRecordedRun(store, "done", { pollMs: 0 })).toThrow(/pollMs/);
  });
});
