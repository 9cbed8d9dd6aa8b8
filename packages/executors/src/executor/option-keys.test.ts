// A near miss of a short option (fork's `at`): one character added, dropped or swapped is refused
// as a misspelling of it, rather than ignored (the fork would start at its default turn); a
// changed character, and any key of another call or of LangChain and LangGraph, is not.
import { InvalidArgumentError } from "@agentrx/core";
import { AgentExecutor } from "@agentrx/executors";
import { RunnableLambda } from "@langchain/core/runnables";
import { describe, expect, it } from "vitest";
import { InProcessRunStore } from "../runs/in-process-run-store";
import { CALL_CONFIG, FORK_OPTIONS, PASSED_ON_CONFIG_KEYS, RESUME_OPTIONS, nearMissOfOption } from "./option-keys";
import { finish } from "./test-helpers";

describe("fork refuses a near miss of `at`", () => {
  const store = new InProcessRunStore();
  const executor = new AgentExecutor({ agent: RunnableLambda.from(() => finish("done")), tools: [], store });

  it.each(["ats", "At_", "a", "t", "ta", "aat"])("`%s`, naming `at`", (key) => {
    let error: unknown;
    try {
      executor.fork("run", { [key]: 1 } as never);
    } catch (thrown) {
      error = thrown;
    }
    expect(InvalidArgumentError.isInstance(error), String(error)).toBe(true);
    expect(error).toMatchObject({ argument: `options.${key}` });
    expect((error as Error).message).toBe(`AgentExecutor.fork options: unknown key \`${key}\` (it would be ignored); did you mean \`at\`?`);
  });

  it("still forks with `at`, and lets through a key a character away from it in place (`it`, `as`)", async () => {
    const first = await executor.invoke({ input: "x" });
    expect((await executor.fork(first.runId, { at: 0, runId: "fork-at" })).output).toBe("done");
    expect((await executor.fork(first.runId, { at: 0, runId: "fork-it", it: 1, as: 2 } as never)).output).toBe("done");
  });
});

describe("nearMissOfOption", () => {
  it("matches a short name by one character added, dropped or swapped, a longer one as before", () => {
    expect(nearMissOfOption("ats", ["at", "inputs"])).toBe("at");
    expect(nearMissOfOption("ta", ["at"])).toBe("at");
    expect(nearMissOfOption("it", ["at"])).toBeUndefined();
    expect(nearMissOfOption("atss", ["at"])).toBeUndefined();
    expect(nearMissOfOption("input", ["at", "inputs"])).toBe("inputs");
    expect(nearMissOfOption("score", ["store"])).toBeUndefined();
  });

  it("takes no key LangChain or LangGraph passes on, nor any other option of the executor's calls, for a near miss of one of a call's options", () => {
    const langChain = ["callbacks", "configurable", "maxConcurrency", "metadata", "recursionLimit", "runId", "runName", "signal", "tags", "timeout", "config", "id", "checkpoint_id", "checkpoint_ns"];
    const every = [...new Set([...CALL_CONFIG.names, ...RESUME_OPTIONS.names, ...FORK_OPTIONS.names])];
    for (const known of [CALL_CONFIG, RESUME_OPTIONS, FORK_OPTIONS]) {
      for (const key of [...langChain, ...PASSED_ON_CONFIG_KEYS, ...every]) {
        if (known.allowed.has(key)) continue;
        expect(nearMissOfOption(key, known.names), key).toBeUndefined();
      }
    }
  });
});
