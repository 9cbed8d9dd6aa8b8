// Inputs that would not reach the model as given are refused before a run starts: an input that is
// a Promise, and the user's message under a name the agent's prompt never reads.
import { ToolCallingAgentOutputParser, createToolCallingAgent, formatToToolMessages } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor } from "@agentrx/executors";
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
import { RunnableLambda, RunnablePassthrough } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { lastValueFrom } from "rxjs";
import { describe, expect, it } from "vitest";
import { z } from "zod";

const noop = tool(async () => "ok", { name: "noop", description: "Does nothing.", schema: z.object({}) });
const withInput = ChatPromptTemplate.fromMessages([["system", "You help."], ["human", "{input}"], new MessagesPlaceholder("agent_scratchpad")]);
const withoutInput = ChatPromptTemplate.fromMessages([["system", "You help."], new MessagesPlaceholder("agent_scratchpad")]);

function executorOf(prompt: ChatPromptTemplate) {
  const llm = new ScriptedChatModel({ responses: ["done"], onExhausted: "cycle" });
  return { llm, executor: new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [noop], prompt }), tools: [noop] }) };
}

describe("inputs that would not reach the model", () => {
  it("refuses an input that is a Promise, naming it, before the model is called", async () => {
    const { llm, executor } = executorOf(withInput);
    await expect(lastValueFrom(executor.invoke({ input: Promise.resolve("What?") }))).rejects.toMatchObject({
      name: "InvalidArgumentError",
      argument: "inputs.input",
      message: "AgentExecutor: `inputs.input` is a Promise (did you forget to `await` it?): pass its value.",
    });
    await expect(lastValueFrom(executor.stream({ input: "hi", extra: Promise.reject(new Error("late")).catch(() => "x") }))).rejects.toMatchObject({ argument: "inputs.extra" });
    expect(llm.calls).toHaveLength(0);
  });

  it("refuses the user's message when the agent's prompt never reads `input`, naming the prompt's variables", async () => {
    const { llm, executor } = executorOf(withoutInput);
    await expect(lastValueFrom(executor.invoke({ input: "What is 6 times 7?" }))).rejects.toMatchObject({
      name: "InvalidArgumentError",
      argument: "inputs.input",
      message: expect.stringContaining('the agent\'s prompt never reads `input` (its variables: "agent_scratchpad"), so the user\'s message would not reach the model. Add it to the prompt, e.g. ["human", "{input}"]'),
    });
    expect(() => executor.fork("any", { inputs: { input: "again" } })).toThrow(/AgentExecutor\.fork: the agent's prompt never reads `input`/);
    expect(llm.calls).toHaveLength(0);
    // Inputs without `input` (a prompt reading other variables only) are the prompt's business.
    await expect(lastValueFrom(executor.invoke({ topic: "x" }))).resolves.toMatchObject({ output: "done" });
  });

  it("reads the prompt's variables through steps that only add values, and not through ones that may rename inputs", async () => {
    const llm = new ScriptedChatModel({ responses: ["done"], onExhausted: "cycle" });
    const question = ChatPromptTemplate.fromMessages([["human", "{question}"], new MessagesPlaceholder("agent_scratchpad")]);
    const assigned = RunnablePassthrough.assign({ agent_scratchpad: (input: { steps: never[] }) => formatToToolMessages(input.steps) })
      .pipe(question)
      .pipe(llm.bindTools([noop]))
      .pipe(new ToolCallingAgentOutputParser());
    await expect(lastValueFrom(new AgentExecutor({ agent: assigned, tools: [noop] }).invoke({ input: "hi", question: "q" }))).rejects.toMatchObject({ argument: "inputs.input" });
    // A step that renames inputs (`input` becomes `question`): the executor cannot tell, so it does not refuse.
    const renamed = RunnableLambda.from((input: { input: string; steps: never[] }) => ({ question: input.input, agent_scratchpad: formatToToolMessages(input.steps) }))
      .pipe(question)
      .pipe(llm.bindTools([noop]))
      .pipe(new ToolCallingAgentOutputParser());
    await expect(lastValueFrom(new AgentExecutor({ agent: renamed, tools: [noop] }).invoke({ input: "hi" }))).resolves.toMatchObject({ output: "done" });
  });
});
