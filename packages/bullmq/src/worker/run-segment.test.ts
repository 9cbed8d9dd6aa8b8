import type { ClaimRun, RunInfo, RunStore } from "@agentrx/executors";
import { MemoryRunStore } from "@agentrx/runs";
import { describe, expect, it } from "vitest";
import { doublingExecutor } from "../test-helpers/doubling-agent";
import { runSegment } from "./run-segment";

/** `store` with its `claimRun` held after the store did it, until `release()`: a stop can land in the middle. */
function heldClaims(store: RunStore): { store: RunStore; claimed: Promise<void>; release: () => void } {
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let reportClaimed: () => void = () => undefined;
  const claimed = new Promise<void>((resolve) => (reportClaimed = resolve));
  const held = new Proxy(store, {
    get(target, name, receiver) {
      if (name === "claimRun") {
        return async (runId: string, given: ClaimRun): Promise<RunInfo> => {
          const info = await target.claimRun(runId, given);
          reportClaimed();
          await gate;
          return info;
        };
      }
      const value = Reflect.get(target, name, receiver) as unknown;
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { store: held, claimed, release };
}

async function stoppedWhileClaiming(handOff: boolean): Promise<{ status: string | undefined; error: string | undefined; tools: number }> {
  const memory = new MemoryRunStore();
  await memory.createRun({ runId: "r1", inputs: { input: "double 2" }, status: "queued", at: Date.now() });
  const { store, claimed, release } = heldClaims(memory);
  let tools = 0;
  const executor = doublingExecutor({ onTool: (phase) => void (phase === "start" && tools++) });
  const controller = new AbortController();
  const segment = runSegment({ executor, store, runId: "r1", decisions: undefined, signal: controller.signal, handingOff: () => handOff, handBackOnLeaseLost: () => false, send: () => undefined });
  await claimed;
  controller.abort(new Error(handOff ? "The worker is closing." : "Cancelled by the user."));
  release();
  const outcome = await segment;
  expect(outcome).toMatchObject({ kind: "error", started: false });
  const info = await memory.getRun("r1");
  return { status: info?.status, error: info?.error, tools };
}

describe("runSegment stopped while resume claims the run", () => {
  it("records a cancel as cancelled, not as the status the run was given back with", async () => {
    const { status, error, tools } = await stoppedWhileClaiming(false);
    expect(status).toBe("cancelled");
    expect(error).toMatch(/The run was aborted: Cancelled by the user\./);
    expect(tools).toBe(0);
  });

  it("gives a run handed off (the worker closing) back queued, for another worker to take", async () => {
    const { status, tools } = await stoppedWhileClaiming(true);
    expect(status).toBe("queued");
    expect(tools).toBe(0);
  });
});
