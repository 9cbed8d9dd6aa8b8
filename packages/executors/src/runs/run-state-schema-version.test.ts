import { AgentExecutor, RUN_STATE_SCHEMA_VERSION, RunStoreError, initialRunState, restoreRunState, serializeRunState, type RunWrite, type RunWriteResult } from "@agentrx/executors";
import { withApproval } from "@agentrx/tools";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { act, finish, scriptedAgent } from "../executor/test-helpers";
import { InProcessRunStore } from "./in-process-run-store";

const send = (ran: string[]) =>
  withApproval(tool(async ({ to }: { to: string }) => (ran.push(to), `sent to ${to}`), { name: "send", description: "Sends an email.", schema: z.object({ to: z.string() }) }));

/** A store that keeps the `schemaVersion` of every checkpoint written, and can write them as another release would. */
class VersionedStore extends InProcessRunStore {
  readonly written: unknown[] = [];
  /** When set, every checkpoint is written with this `schemaVersion` (a release that writes it). */
  writeAs: number | undefined;

  override write(runId: string, write: RunWrite): Promise<RunWriteResult> {
    const checkpoint = write.update?.checkpoint;
    if (checkpoint !== undefined) {
      this.written.push(checkpoint.schemaVersion);
      if (this.writeAs !== undefined) write = { ...write, update: { ...write.update, checkpoint: { ...checkpoint, schemaVersion: this.writeAs } } };
    }
    return super.write(runId, write);
  }
}

/** A run paused on one `send` call (interrupt `call-0-0`), its checkpoints written with `writeAs`. */
async function pausedRun(runId: string, writeAs?: number) {
  const ran: string[] = [];
  const store = new VersionedStore();
  store.writeAs = writeAs;
  const { agent } = scriptedAgent([act("send", { to: "ana" }), (input) => finish(`done: ${input.steps[0]?.observation}`)]);
  const executor = new AgentExecutor({ agent, tools: [send(ran)], store });
  const paused = await executor.invoke({ input: "mail ana" }, { runId });
  expect(paused.interrupts?.map((interrupt) => interrupt.id)).toEqual(["call-0-0"]);
  store.writeAs = undefined;
  return { ran, store, executor };
}

describe("the run state's schemaVersion", () => {
  it("is 2: every checkpoint this release writes, and every state it serializes, carries it", async () => {
    expect(RUN_STATE_SCHEMA_VERSION).toBe(2);
    const { ran, store, executor } = await pausedRun("now");
    expect((await store.getRun("now"))?.checkpoint?.schemaVersion).toBe(2);
    expect(await executor.resume("now", { decisions: { "call-0-0": "approve" } })).toMatchObject({ output: "done: sent to ana", stopReason: "finish" });
    expect(ran).toEqual(["ana"]);
    expect(store.written.length).toBeGreaterThan(1);
    expect(new Set(store.written)).toEqual(new Set([2]));
    expect(serializeRunState(initialRunState("r", undefined, { input: "hi" })).schemaVersion).toBe(2);
  });

  it("reads a record whose checkpoint says 1 (an older release's) exactly as one that says 2, resumes it, and checkpoints it as 2 from then on", async () => {
    const { ran, store, executor } = await pausedRun("older", 1);
    const info = (await store.getRun("older"))!;
    expect(info.checkpoint?.schemaVersion).toBe(1);
    const events = await store.readEvents("older");
    const asOne = restoreRunState(info, events);
    expect(asOne).toEqual(restoreRunState({ ...info, checkpoint: { ...info.checkpoint!, schemaVersion: 2 } }, events));
    expect(asOne.state).toMatchObject({ schemaVersion: 2, phase: "interrupted" });
    expect(await executor.resume("older", { decisions: { "call-0-0": "approve" } })).toMatchObject({ output: "done: sent to ana", stopReason: "finish" });
    expect(ran).toEqual(["ana"]);
    expect((await store.getRun("older"))?.checkpoint?.schemaVersion).toBe(2);
  });

  it("refuses a record whose checkpoint says 3 (a newer release's) with reason \"unsupported\", naming the versions it reads; nothing runs", async () => {
    const { ran, store, executor } = await pausedRun("newer", 3);
    const info = (await store.getRun("newer"))!;
    let refused: unknown;
    try {
      restoreRunState(info, []);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(RunStoreError);
    expect(refused).toMatchObject({ reason: "unsupported" });
    expect((refused as Error).message).toMatch(/schemaVersion 3, which this version of @agentrx\/executors does not know \(it reads 1, 2\).*A newer release/);
    const error = await executor.resume("newer", { decisions: { "call-0-0": "approve" } }).then(() => undefined, (e: unknown) => e);
    expect(error).toMatchObject({ name: "RunStoreError", reason: "unsupported" });
    expect(ran).toEqual([]);
    expect(await store.getRun("newer")).toMatchObject({ status: info.status, eventCount: info.eventCount, checkpoint: { schemaVersion: 3 } });
  });
});
