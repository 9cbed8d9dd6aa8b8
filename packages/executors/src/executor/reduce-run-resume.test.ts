// A run cancelled while the model streams its answer (Ctrl-C, or its process dies) leaves that
// agent call's tokens in the record, and nothing else of it. The resume makes the call again as the
// same iteration: the cut-off call used up none of `maxIterations`, under `stream()` (tokens
// recorded) as under `invoke()` (none), and the run counts its turns as an uncut run does.
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor } from "@agentrx/executors";
import { describe, expect, it } from "vitest";
import { InProcessRunStore } from "../runs/in-process-run-store";
import { ANSWER, Streaming, prompt, search, unsubscribeOnFirstToken } from "./cut-stream-fixture";

function executorOn(llm: ScriptedChatModel, store: InProcessRunStore) {
  return new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [search], prompt }), tools: [search], store, maxIterations: 2 });
}

type Recorded = { type: string; iteration?: number };

describe("a run cancelled while the model streams its answer, then resumed", () => {
  for (const how of ["stream", "invoke"] as const) {
    it(`makes the cut-off agent call again as the same iteration, within maxIterations (${how})`, async () => {
      const store = new InProcessRunStore();
      const llm = new Streaming({ streaming: true, tokenDelayMs: 5, responses: [{ toolCalls: [{ name: "search", args: { query: "Paris" } }] }, ANSWER] });
      const executor = executorOn(llm, store);
      const controller = new AbortController();
      if (how === "stream") {
        // Ctrl-C on the first token of iteration 1: the subscriber goes away.
        await unsubscribeOnFirstToken(executor, "cut", 1);
      } else {
        llm.afterFirstChunk = (call) => void (call === 1 && controller.abort());
        const error = await executor.invoke({ input: "Weather in Paris?" }, { runId: "cut", signal: controller.signal }).catch((caught: unknown) => caught);
        expect((error as Error).name).toBe("AbortError");
      }
      await expect.poll(async () => (await store.getRun("cut"))?.status).toBe("cancelled");
      const cut = (await store.readEvents("cut")).map((event) => event.data as Recorded);
      // Nothing of iteration 1 is recorded but its streamed tokens (under `stream()`).
      expect(cut.filter((event) => event.iteration === 1).map((event) => event.type)).toEqual(how === "stream" ? expect.arrayContaining(["token"]) : []);
      expect(cut.some((event) => event.iteration === 1 && event.type !== "token")).toBe(false);

      const again = new ScriptedChatModel({ streaming: true, responses: [ANSWER] });
      const result = await executorOn(again, store).resume("cut");
      expect(result).toMatchObject({ output: ANSWER, stopReason: "finish" });
      expect(again.calls).toHaveLength(1);
      const events = (await store.readEvents("cut")).map((event) => event.data as Recorded);
      const resumed = events.slice(events.map((event) => event.type).lastIndexOf("start"));
      expect(resumed.filter((event) => event.type === "usage").map((event) => event.iteration)).toEqual([1]);
      expect((await store.getRun("cut"))?.checkpoint?.iteration).toBe(2); // two turns, as the run uncut
    });
  }
});
