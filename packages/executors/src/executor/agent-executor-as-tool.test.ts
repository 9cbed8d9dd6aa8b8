import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, type AgentStreamEvent, finalAnswerTokens, renderTrace, tokenBudget } from "@agentrx/executors";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { collect } from "./test-helpers";

const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
const usage = { inputTokens: 10, outputTokens: 5 };

function specialist(answer: string, options: { slow?: { aborted: string[] } } = {}) {
  const lookup = tool(
    async ({ q }: { q: string }, config) => {
      if (options.slow) {
        await new Promise<void>((_, reject) =>
          config?.signal?.addEventListener("abort", () => {
            options.slow?.aborted.push(q);
            reject(new Error("aborted"));
          }),
        );
      }
      return `facts about ${q}`;
    },
    { name: "lookup", description: "Looks facts up.", schema: z.object({ q: z.string() }) },
  );
  const llm = new ScriptedChatModel({ streaming: true, onExhausted: "cycle", responses: [{ toolCalls: [{ name: "lookup", args: { q: "tides" } }], usage }, { content: answer, usage }] });
  return new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [lookup], prompt }), tools: [lookup] });
}

function supervisor(researcher: AgentExecutor, options: ConstructorParameters<typeof AgentExecutor>[0]["stopWhen"] = undefined) {
  const research = researcher.asTool({ name: "researcher", description: "Researches a topic." });
  const llm = new ScriptedChatModel({
    streaming: true,
    onExhausted: "cycle",
    responses: [{ toolCalls: [{ name: "researcher", args: { input: "tides" } }], usage }, (messages) => ({ content: `Summary: ${messages.at(-1)?.text}`, usage })],
  });
  return new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [research], prompt }), tools: [research], ...(options ? { stopWhen: options } : {}) });
}

describe("executor.asTool", () => {
  it("runs the executor as a sub-run: its events reach the caller labelled with subRun, the caller's output last", async () => {
    const events = await collect(supervisor(specialist("Tides follow the moon.")).stream({ input: "Explain tides" }));
    const sub = events.filter((event) => event.subRun !== undefined);
    expect(sub.map((event) => event.type)).toEqual(expect.arrayContaining(["start", "action", "step", "output"]));
    expect(sub.every((event) => event.subRun?.[0] === "researcher")).toBe(true);
    expect(sub.find((event) => event.type === "output")).toMatchObject({ output: "Tides follow the moon.", subRun: ["researcher"] });
    const last = events.at(-1) as Extract<AgentStreamEvent, { type: "output" }>;
    expect(last).toMatchObject({ type: "output", output: "Summary: Tides follow the moon." });
    expect(last.subRun).toBeUndefined();
    // The caller's usage includes the sub-run's two model calls.
    expect(last.usage).toMatchObject({ total_tokens: 60 });
    // Sub-run events come between the caller's action and its step.
    const types = events.filter((event) => event.subRun === undefined).map((event) => event.type);
    expect(types.filter((type) => type !== "token" && type !== "usage")).toEqual(["start", "action", "step", "output"]);
  });

  it("invoke's result adds the sub-run's usage too; finalAnswerTokens keeps to the caller's answer; renderTrace shows the sub-run", async () => {
    const result = await supervisor(specialist("Moon.")).invoke({ input: "Explain tides" });
    expect(result.output).toBe("Summary: Moon.");
    expect(result.usage).toMatchObject({ total_tokens: 60 });
    const tokens = await lastValueFrom(supervisor(specialist("Moon.")).stream({ input: "x" }).pipe(finalAnswerTokens(), toArray()));
    expect(tokens.join("")).toBe("Summary: Moon.");
    let trace = "";
    await lastValueFrom(supervisor(specialist("Moon.")).stream({ input: "x" }).pipe(renderTrace({ write: (text) => (trace += text), colors: false })));
    expect(trace).toMatch(/\[researcher\] action\s+lookup \{"q":"tides"\}/);
    expect(trace).toMatch(/\[researcher\] answer\s+Moon\. \(finish\)/);
    expect(trace).toMatch(/^answer\s+Summary: Moon\. \(finish\)$/m);
  });

  it("cancelling the caller cancels the sub-run's tools; a budget on the caller counts the sub-run's tokens", async () => {
    const aborted: string[] = [];
    const run = supervisor(specialist("never", { slow: { aborted } })).stream({ input: "x" });
    const seen: AgentStreamEvent[] = [];
    const subscription = run.subscribe((event) => {
      seen.push(event);
      if (event.type === "action" && event.subRun) setTimeout(() => subscription.unsubscribe(), 5);
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(aborted).toEqual(["tides"]);

    // The caller's 20-token budget is spent inside the sub-run (its first call reports 15 more).
    const events = await collect(supervisor(specialist("Moon."), tokenBudget(20)).stream({ input: "x" }));
    expect(events.at(-1)).toMatchObject({ type: "output", stopReason: "budget" });
  });

  it("validates its options", () => {
    const executor = specialist("x");
    expect(() => executor.asTool({ name: "has space", description: "d" })).toThrow(/`name`/);
    expect(() => executor.asTool({ name: "ok", description: "" })).toThrow(/`description`/);
  });
});
