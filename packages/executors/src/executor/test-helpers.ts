// Shared helpers for the executor's tests (not exported from the package).
import type { AgentAction, AgentFinish, AgentInput, AgentOutput, AgentStep } from "@agentrx/core";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { type AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { RunnableLambda, type RunnableConfig } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { type Observable, lastValueFrom, toArray } from "rxjs";
import { z } from "zod";

export { deferred } from "@agentrx/core/testing";

/** An agent that plays `turns` in order (a function of the input, or a fixed output); records its inputs. */
export function scriptedAgent(turns: (AgentOutput | Error | ((input: AgentInput) => AgentOutput | Promise<AgentOutput>))[]) {
  const inputs: AgentInput[] = [];
  const agent = RunnableLambda.from(async (input: AgentInput) => {
    inputs.push(input);
    const turn = turns[inputs.length - 1];
    if (turn === undefined) throw new Error(`scriptedAgent: no turn ${inputs.length - 1}`);
    if (turn instanceof Error) throw turn;
    return typeof turn === "function" ? turn(input) : turn;
  });
  return { agent, inputs };
}

export function act(tool: string, toolInput: AgentAction["toolInput"] = {}, log = `calling ${tool}`): AgentAction {
  return { tool, toolInput, log };
}

export function toolCall(tool: string, args: Record<string, unknown>, id: string): AgentAction & { toolCallId: string; messageLog: [] } {
  return { tool, toolInput: args, log: `calling ${tool}`, toolCallId: id, messageLog: [] };
}

export function finish(output: string): AgentFinish {
  return { returnValues: { output }, log: output };
}

/** An agent that calls `name` (call id `callId`, with `toolInput`) first, then answers with what it said. */
export function callsFirst(name: string, callId: string, toolInput: Record<string, unknown>) {
  return RunnableLambda.from((input: { steps: AgentStep[] }) =>
    input.steps.length === 0 ? { tool: name, toolInput, log: "", toolCallId: callId } : { returnValues: { output: `done: ${input.steps[0]?.observation}` }, log: "" },
  );
}

/** A tool `refund({ amount })`; `refunded` gets each amount it refunded. */
export function refundTool(refunded: number[]) {
  return tool(
    async ({ amount }: { amount: number }) => {
      refunded.push(amount);
      return `refunded ${amount}`;
    },
    { name: "refund", description: "Refunds an amount.", schema: z.object({ amount: z.number() }) },
  );
}

/** A tool `echo({ text })` that returns `text`. */
export const echoTool = tool(async ({ text }: { text: string }) => text, {
  name: "echo",
  description: "Returns its input.",
  schema: z.object({ text: z.string() }),
});

/** All values of an observable. */
export function collect<T>(observable: Observable<T>): Promise<T[]> {
  return lastValueFrom(observable.pipe(toArray()));
}

/**
 * A minimal tool-calling agent over a chat model (until `createToolCallingAgent` is used): the
 * model sees the input and one tool-result message per step; tool calls become ToolAgentActions.
 */
export function modelAgent(model: BaseChatModel) {
  return RunnableLambda.from(async (input: AgentInput, config?: RunnableConfig) => {
    const messages: BaseMessage[] = [new HumanMessage(String(input["input"]))];
    for (const step of input.steps) messages.push(new HumanMessage(`${step.action.tool} -> ${step.observation}`));
    const message = (await model.invoke(messages, config)) as AIMessage;
    const calls = message.tool_calls ?? [];
    if (calls.length === 0) return finish(message.text);
    return calls.map((call) => ({
      tool: call.name,
      toolInput: call.args,
      toolCallId: call.id ?? "",
      log: `Invoking ${call.name}`,
      messageLog: [message],
    }));
  });
}

/** The unhandled rejections while `run` runs (and a little after it settles), and what it threw. */
export async function unhandledDuring(run: () => PromiseLike<unknown>): Promise<{ unhandled: unknown[]; error: unknown }> {
  const unhandled: unknown[] = [];
  const listener = (reason: unknown): void => void unhandled.push(reason);
  process.on("unhandledRejection", listener);
  try {
    const error = await Promise.resolve(run()).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    await new Promise((resolve) => setTimeout(resolve, 20)); // Node reports unhandled rejections after the microtasks
    return { unhandled, error };
  } finally {
    process.off("unhandledRejection", listener);
  }
}
