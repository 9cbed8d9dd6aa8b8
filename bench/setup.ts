// The three contestants over one agent runnable and one set of tools: AgentRx's executor,
// @langchain/classic's AgentExecutor, and a bare loop (the floor).
import { createToolCallingAgent } from "@agentrx/agents";
import type { AgentInput, AgentOutput, AgentStep } from "@agentrx/core";
import { ScriptedChatModel, type ScriptedCall, type ScriptedResponse } from "@agentrx/core/testing";
import { AgentExecutor } from "@agentrx/executors";
import { AgentExecutor as ClassicAgentExecutor } from "@langchain/classic/agents";
import type { BaseMessage } from "@langchain/core/messages";
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
import type { Runnable } from "@langchain/core/runnables";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { setMaxListeners } from "node:events";
import { lastValueFrom } from "rxjs";

/** The agent type @langchain/classic's AgentExecutor takes. */
export type ClassicAgent = ConstructorParameters<typeof ClassicAgentExecutor>[0]["agent"];

export const prompt = ChatPromptTemplate.fromMessages([
  ["system", "You are a benchmark agent."],
  ["human", "{input}"],
  new MessagesPlaceholder("agent_scratchpad"),
]);

function countToolMessages(messages: BaseMessage[]): number {
  let count = 0;
  for (const message of messages) if (message.getType() === "tool") count++;
  return count;
}

/**
 * One scripted response, as a function of the conversation so far (so any number of runs can
 * share the model): `callsPerTurn` tool calls per turn until `steps` tool results exist, then a
 * final answer.
 */
export function stepScript(
  steps: number,
  { tool, callsPerTurn = 1, answer = "done" }: { tool: string; callsPerTurn?: number; answer?: string },
): ScriptedResponse {
  return (messages) => {
    const done = countToolMessages(messages);
    if (done >= steps) return answer;
    const calls = Array.from({ length: Math.min(callsPerTurn, steps - done) }, (_, index) => ({
      name: tool,
      args: { i: done + index },
    }));
    return { toolCalls: calls };
  };
}

export interface Contestants {
  model: ScriptedChatModel;
  agentrx: (input: string) => Promise<unknown>;
  classic: (input: string) => Promise<unknown>;
  floor: (input: string) => Promise<unknown>;
  /** The floor plus what cancellation costs in @langchain/core: an AbortSignal passed to every call. */
  floorSignal: (input: string) => Promise<unknown>;
  /** Forget the calls the model recorded (between runs, so memory does not grow). */
  reset: () => void;
}

export function contestants(
  tools: StructuredToolInterface[],
  script: ScriptedResponse,
  { latencyMs = 0, maxIterations = 1000 }: { latencyMs?: number; maxIterations?: number } = {},
): Contestants {
  const model = new ScriptedChatModel({ responses: [script], onExhausted: "cycle", latencyMs });
  const agent = createToolCallingAgent({ llm: model, tools, prompt });
  const executor = new AgentExecutor({ agent, tools, maxIterations });
  // Classic's steps carry string observations, which AgentRx's agents read too (its own may also carry images).
  const classic = new ClassicAgentExecutor({ agent: agent as unknown as ClassicAgent, tools, maxIterations });
  const floor = bareLoop(agent, tools);
  const floorSignal = bareLoop(agent, tools, true);
  return {
    model,
    agentrx: (input) => lastValueFrom(executor.invoke({ input })),
    classic: (input) => classic.invoke({ input }),
    floor: (input) => floor({ input }),
    floorSignal: (input) => floorSignal({ input }),
    reset: () => {
      (model.calls as ScriptedCall[]).length = 0;
    },
  };
}

/**
 * The floor: call the agent, run its tools concurrently, repeat; nothing else. With `withSignal`,
 * every call also gets an `AbortSignal` (as any cancellable run must pass), which makes
 * @langchain/core race each nested runnable against it.
 */
export function bareLoop(agent: Runnable<AgentInput, AgentOutput>, tools: StructuredToolInterface[], withSignal = false) {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  return async (inputs: Record<string, unknown>): Promise<unknown> => {
    let config: { signal: AbortSignal } | undefined;
    if (withSignal) {
      config = { signal: new AbortController().signal };
      setMaxListeners(0, config.signal); // parallel tools share it, as the executor's do
    }
    let steps: AgentStep[] = [];
    for (;;) {
      const output = await agent.invoke({ ...inputs, steps }, config);
      if ("returnValues" in output) return output.returnValues;
      const actions = Array.isArray(output) ? output : [output];
      const done = await Promise.all(
        actions.map(async (action) => {
          const result: unknown = await byName.get(action.tool)?.invoke(action.toolInput as never, config);
          return { action, observation: typeof result === "string" ? result : JSON.stringify(result) };
        }),
      );
      steps = steps.concat(done);
    }
  };
}
