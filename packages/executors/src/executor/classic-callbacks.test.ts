import { createToolCallingAgent } from "@agentrx/agents";
import type { AgentAction, AgentFinish } from "@agentrx/core";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, toolCallBudget } from "@agentrx/executors";
import { withApproval } from "@agentrx/tools";
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { InProcessRunStore } from "../runs/in-process-run-store";
import { collect, unhandledDuring } from "./test-helpers";

// The callbacks LangChain's classic `AgentExecutor` calls besides the chain's: `handleAgentAction`
// for each action, before its tool starts, and `handleAgentEnd` before the chain's end.

const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);

/** Records the calls a classic app's logging handler would see, in order (of chains, the executor's own only). */
class Recording extends BaseCallbackHandler {
  name = "recording";
  override awaitHandlers = true;
  readonly calls: string[] = [];
  readonly finishes: AgentFinish[] = [];
  /** The executor's chain run (the first chain that starts without a parent). */
  private root: string | undefined;

  override handleChainStart(_chain: unknown, _inputs: unknown, runId: string, parentRunId?: string) {
    if (parentRunId !== undefined) return;
    this.root ??= runId;
    this.calls.push("chainStart");
  }

  override handleChainEnd(_outputs: unknown, runId: string, parentRunId?: string) {
    if (parentRunId === undefined && runId === this.root) this.calls.push("chainEnd");
  }

  override handleAgentAction(action: AgentAction, runId: string) {
    this.calls.push(`agentAction ${action.tool} ${JSON.stringify(action.toolInput)}${this.whose(runId)}`);
  }

  override handleAgentEnd(finish: AgentFinish, runId: string) {
    this.finishes.push(finish);
    this.calls.push(`agentEnd ${String(finish.returnValues["output"])}${this.whose(runId)}`);
  }

  override handleToolStart(_tool: unknown, input: string) {
    this.calls.push(`toolStart ${input}`);
  }

  /** A new chain run (a resumed run's). */
  reset(): void {
    this.root = undefined;
    this.calls.length = 0;
  }

  private whose(runId: string): string {
    return runId === this.root ? "" : " (not the executor's run)";
  }
}

const work = tool(async ({ name }: { name: string }) => `${name} done`, { name: "work", description: "Works.", schema: z.object({ name: z.string() }) });

type Responses = ConstructorParameters<typeof ScriptedChatModel>[0]["responses"];

function executor(responses: Responses, options: { eagerTools?: boolean; tools?: (typeof work)[]; tokenDelayMs?: number } = {}) {
  const tools = options.tools ?? [work];
  const llm = new ScriptedChatModel({ responses, tokenDelayMs: options.tokenDelayMs ?? 0 });
  const agent = createToolCallingAgent({ llm, tools, prompt });
  return new AgentExecutor({ agent, tools, ...(options.eagerTools ? { eagerTools: true } : {}) });
}

/** A model turn calling `work` with each of `names`. */
const calls = (...names: string[]) => ({ toolCalls: names.map((name) => ({ name: "work", args: { name } })) });

describe("classic callbacks: handleAgentAction and handleAgentEnd", () => {
  for (const method of ["invoke", "stream"] as const) {
    it(`${method}: chainStart, the action before its tool starts, agentEnd before chainEnd`, async () => {
      const handler = new Recording();
      const run = executor([calls("a"), "All done."]);
      if (method === "invoke") await run.invoke({ input: "go" }, { callbacks: [handler] });
      else await collect(run.stream({ input: "go" }, { callbacks: [handler] }));
      expect(handler.calls).toEqual(["chainStart", 'agentAction work {"name":"a"}', 'toolStart {"name":"a"}', "agentEnd All done.", "chainEnd"]);
      expect(handler.finishes).toEqual([expect.objectContaining({ returnValues: expect.objectContaining({ output: "All done." }) })]);
    });
  }

  it("calls handleAgentAction once for each of a turn's parallel actions, in their order, before the tools start", async () => {
    const handler = new Recording();
    await executor([calls("a", "b"), "All done."]).invoke({ input: "go" }, { callbacks: [handler] });
    expect(handler.calls.filter((call) => call.startsWith("agentAction"))).toEqual(['agentAction work {"name":"a"}', 'agentAction work {"name":"b"}']);
    expect(handler.calls.indexOf('agentAction work {"name":"b"}')).toBeLessThan(handler.calls.indexOf('toolStart {"name":"a"}'));
    expect(handler.calls.slice(-2)).toEqual(["agentEnd All done.", "chainEnd"]);
  });

  it("calls handleAgentAction once for an action whose tool started early (eagerTools), before it starts", async () => {
    const handler = new Recording();
    const events = await collect(executor([calls("a", "b"), "All done."], { eagerTools: true, tokenDelayMs: 10 }).stream({ input: "go" }, { callbacks: [handler] }));
    const actions = events.filter((event) => event.type === "action");
    expect(actions.map((event) => event.type === "action" && event.early)).toEqual([true, true]);
    expect(handler.calls.filter((call) => call.startsWith("agentAction"))).toEqual(['agentAction work {"name":"a"}', 'agentAction work {"name":"b"}']);
    for (const name of ["a", "b"]) {
      expect(handler.calls.indexOf(`agentAction work {"name":"${name}"}`)).toBeLessThan(handler.calls.indexOf(`toolStart {"name":"${name}"}`));
    }
    expect(handler.calls.slice(-2)).toEqual(["agentEnd All done.", "chainEnd"]);
  });

  it("tells of the early calls a budget's halt kept as a partial turn once, before they started", async () => {
    const handler = new Recording();
    const llm = new ScriptedChatModel({ tokenDelayMs: 30, responses: [calls("a", "b", "c", "d"), "From two results."] });
    const run = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [work], prompt }), tools: [work], eagerTools: true, earlyStoppingMethod: "generate" });
    const events = await collect(run.stream({ input: "go" }, { stopWhen: toolCallBudget(2), callbacks: [handler] }));
    expect(events.filter((event) => event.type === "action")).toHaveLength(2);
    expect(handler.calls).toEqual(["chainStart", 'agentAction work {"name":"a"}', 'toolStart {"name":"a"}', 'agentAction work {"name":"b"}', 'toolStart {"name":"b"}', "agentEnd From two results.", "chainEnd"]);
  });

  it("a resumed run tells of the early calls its last agent call left in doubt, as its turn's", async () => {
    const store = new InProcessRunStore();
    const cut = new AbortController();
    const ran: string[] = [];
    const dying = tool(
      async ({ name }: { name: string }) => {
        ran.push(name);
        cut.abort(); // the run stops while the model still streams, as a process that died there
        return `${name} done`;
      },
      { name: "work", description: "Works.", schema: z.object({ name: z.string() }) },
    );
    const llm = new ScriptedChatModel({ tokenDelayMs: 30, responses: [calls("a", "b"), "Answered after the resume."] });
    const run = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [dying], prompt }), tools: [dying], eagerTools: true, store });
    await collect(run.stream({ input: "go" }, { runId: "cut", signal: cut.signal })).catch(() => undefined);
    expect(ran).toEqual(["a"]);
    const handler = new Recording();
    const resumed = await run.resume("cut", { callbacks: [handler] });
    expect(resumed.output).toBe("Answered after the resume.");
    expect(handler.calls).toEqual(["chainStart", 'agentAction work {"name":"a"}', 'toolStart {"name":"a"}', "agentEnd Answered after the resume.", "chainEnd"]);
  });

  it("fails the run with the error of a raiseError handler that throws in handleAgentAction, and runs no tool", async () => {
    class Refusing extends Recording {
      override raiseError = true;
      override handleAgentAction(action: AgentAction, runId: string) {
        super.handleAgentAction(action, runId);
        throw new Error("handler refuses the action");
      }
    }
    const handler = new Refusing();
    const { unhandled, error } = await unhandledDuring(() => executor([calls("a"), "All done."]).invoke({ input: "go" }, { callbacks: [handler] }));
    expect((error as Error | undefined)?.message).toBe("handler refuses the action");
    expect(unhandled).toEqual([]);
    expect(handler.calls).toEqual(["chainStart", 'agentAction work {"name":"a"}']);
  });

  it("fails the run with the error of a raiseError handler that throws for an early call's action, which never starts", async () => {
    class Refusing extends Recording {
      override raiseError = true;
      override handleAgentAction(action: AgentAction, runId: string) {
        super.handleAgentAction(action, runId);
        throw new Error("handler refuses the early action");
      }
    }
    const started: string[] = [];
    const counted = tool(
      async ({ name }: { name: string }) => {
        started.push(name);
        return `${name} done`;
      },
      { name: "work", description: "Works.", schema: z.object({ name: z.string() }) },
    );
    const handler = new Refusing();
    const llm = new ScriptedChatModel({ tokenDelayMs: 20, responses: [calls("a", "b"), "All done."] });
    // Recorded: the early call's write-ahead is awaited with the handler.
    const run = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [counted], prompt }), tools: [counted], eagerTools: true, store: new InProcessRunStore() });
    const { unhandled, error } = await unhandledDuring(() => collect(run.stream({ input: "go" }, { callbacks: [handler] })));
    expect((error as Error | undefined)?.message).toBe("handler refuses the early action");
    expect(unhandled).toEqual([]);
    expect(started).toEqual([]);
    expect(handler.calls.filter((call) => call.startsWith("agentAction"))).toEqual(['agentAction work {"name":"a"}']);
  });

  it("fails the run with the error of a raiseError handler that throws in handleAgentEnd", async () => {
    class Refusing extends Recording {
      override raiseError = true;
      override handleAgentEnd(finish: AgentFinish, runId: string) {
        super.handleAgentEnd(finish, runId);
        throw new Error("handler refuses the finish");
      }
    }
    const handler = new Refusing();
    await expect(executor(["All done."]).invoke({ input: "go" }, { callbacks: [handler] })).rejects.toThrow("handler refuses the finish");
    expect(handler.calls).toEqual(["chainStart", "agentEnd All done."]);
  });

  it("a run that pauses for approval ends without handleAgentEnd; its resume's finish calls it once", async () => {
    const handler = new Recording();
    const run = executor([calls("a"), "All done."], { tools: [withApproval(work)] });
    const paused = await run.invoke({ input: "go" }, { runId: "paused", callbacks: [handler] });
    expect(paused.interrupts).toHaveLength(1);
    expect(handler.calls).toEqual(["chainStart", 'agentAction work {"name":"a"}', "chainEnd"]);
    handler.reset();
    const done = await run.resume("paused", { decisions: { [paused.interrupts?.[0]?.id as string]: "approve" }, callbacks: [handler] });
    expect(done.output).toBe("All done.");
    // The action was told of in the paused run's chain run: the resume runs its tool without telling of it again.
    expect(handler.calls).toEqual(["chainStart", 'toolStart {"name":"a"}', "agentEnd All done.", "chainEnd"]);
    expect(handler.finishes).toHaveLength(1);
  });

  it("tells only of the run's own actions: an executor called as a tool tells of its own under its own chain run", async () => {
    const handler = new Recording();
    const helper = executor([calls("inner"), "Inner done."]).asTool({ name: "helper", description: "Helps." });
    const llm = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "helper", args: { input: "help" } }] }, "All done."] });
    await new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [helper], prompt }), tools: [helper] }).invoke({ input: "go" }, { callbacks: [handler] });
    expect(handler.calls.filter((call) => call.startsWith("agent"))).toEqual([
      'agentAction helper {"input":"help"}',
      'agentAction work {"name":"inner"} (not the executor\'s run)',
      "agentEnd Inner done. (not the executor's run)",
      "agentEnd All done.",
    ]);
  });
});
