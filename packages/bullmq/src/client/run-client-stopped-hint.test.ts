// The RunStoppedError of a stopped run says what continues it: RunClient.resume for a run submitted
// through RunClient, the executor that recorded it for any other (RunClient.resume refuses those).
import { describe, expect, it } from "vitest";
import { RunStoppedError } from "../errors/run-stopped-error";
import { useQueueFixture } from "../test-helpers/queue-fixture";
import { testServers } from "../test-helpers/test-servers";

const servers = await testServers("RunClient stopped-run hints");

describe.skipIf(servers.skip)("RunStoppedError from RunClient.result (Redis, PostgreSQL)", () => {
  const fixture = useQueueFixture(servers, "stopped-hint-test");

  it("for a run recorded without an executor (an AG-UI handler's, cancelled): names the executor's own resume, not RunClient.resume, which refuses it", async () => {
    const client = fixture.client();
    const runId = `agui-${Math.random().toString(36).slice(2, 8)}`;
    // What an executor in its own process records (no `metadata.executor`), then cancels when its client disconnects.
    await fixture.store.createRun({ runId, inputs: { input: "order Z1" }, status: "queued", at: Date.now() });
    expect(await fixture.store.cancelRun?.(runId, { reason: "The client disconnected.", at: Date.now() })).toBe(true);

    const error = await client.result(runId).catch((caught: unknown) => caught);
    expect(RunStoppedError.isInstance(error) && [error.status, error.executor]).toEqual(["cancelled", undefined]);
    expect((error as Error).message).toBe(
      `Run "${runId}" was cancelled: The client disconnected. It has no output; \`RunClient.resume\` refuses it, as its record names no executor (it was not submitted through RunClient.submit): the executor that recorded it continues it, with \`executor.resume(runId, { store })\` on the same store.`,
    );
    await expect(client.resume(runId)).rejects.toThrow(/must be the id of a run submitted through RunClient.submit \(the record names no executor\)/);
  });

  it("for a run submitted through RunClient (cancelled while queued): names RunClient.resume, which continues it", async () => {
    const client = fixture.client();
    const runId = await client.submit("double", { input: "double 2" });
    await client.cancel(runId);

    const error = await client.result(runId).catch((caught: unknown) => caught);
    expect(RunStoppedError.isInstance(error) && [error.status, error.executor]).toEqual(["cancelled", "double"]);
    expect((error as Error).message).toMatch(/It has no output; `RunClient.resume\(runId\)` continues it from its record\.$/);
    await expect(client.resume(runId)).resolves.toBeUndefined();
    expect((await fixture.store.getRun(runId))?.status).toBe("cancelled"); // the resume job waits for a worker (there is none here)
  });
});
