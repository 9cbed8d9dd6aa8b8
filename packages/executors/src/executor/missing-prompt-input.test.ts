import { createToolCallingAgent } from "@agentrx/agents";
import { InvalidArgumentError } from "@agentrx/core";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor } from "@agentrx/executors";
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
import { lastValueFrom } from "rxjs";
import { describe, expect, it } from "vitest";
import { echoTool } from "./test-helpers";

const prompt = ChatPromptTemplate.fromMessages([["system", "Answer in {language}."], ["human", "{input}"], new MessagesPlaceholder("agent_scratchpad")]);

describe("inputs the agent's prompt needs", () => {
  it("a missing one fails the run with an InvalidArgumentError naming it and the inputs given, before any model call", async () => {
    const llm = new ScriptedChatModel({ responses: ["Bonjour."] });
    const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [echoTool], prompt }), tools: [echoTool] });
    const error = await lastValueFrom(executor.invoke({ input: "Hi", lang: "French" })).catch((caught: unknown) => caught);
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect((error as InvalidArgumentError).argument).toBe("inputs");
    expect((error as Error).message).toBe(
      "AgentExecutor: the agent's prompt reads `language`, which the inputs do not have; the inputs given are `input`, `lang`. Pass it in the inputs (invoke({ language: ... })), or give the prompt a default for it.",
    );
    expect((error as Error).cause).toBeInstanceOf(Error);
    expect(llm.calls).toHaveLength(0);
    // Given, the run goes on as usual.
    const result = await lastValueFrom(executor.invoke({ input: "Hi", language: "French" }));
    expect(result.output).toBe("Bonjour.");
  });

  it("an undefined one is missing too (not the text \"undefined\" in the prompt), with or without middleware", async () => {
    for (const middleware of [undefined, [{ name: "passing", wrapModelCall: (request: never, next: (request: never) => Promise<unknown>) => next(request) }]]) {
      const llm = new ScriptedChatModel({ responses: ["Bonjour."] });
      const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [echoTool], prompt }), tools: [echoTool], ...(middleware ? { middleware: middleware as never } : {}) });
      const error = await lastValueFrom(executor.invoke({ input: undefined, language: "French" })).catch((caught: unknown) => caught);
      expect(InvalidArgumentError.isInstance(error), `middleware: ${middleware !== undefined}`).toBe(true);
      expect((error as InvalidArgumentError).argument).toBe("inputs");
      expect((error as Error).message).toBe(
        "AgentExecutor: the agent's prompt reads `input`, which the inputs do not have; `input` is undefined. Pass it in the inputs (invoke({ input: ... })), or give the prompt a default for it.",
      );
      expect(llm.calls).toHaveLength(0);
    }
  });

  it("an undefined one leaves the prompt's default in place", async () => {
    const llm = new ScriptedChatModel({ responses: ["Bonjour."] });
    const withDefault = await prompt.partial({ language: "French" });
    const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [echoTool], prompt: withDefault }), tools: [echoTool] });
    await lastValueFrom(executor.invoke({ input: "Hi", language: undefined }));
    expect(llm.calls[0]!.messages[0]!.text).toBe("Answer in French.");
  });

  it("an undefined one is left out of the generate early-stopping call too, with or without middleware", async () => {
    const withDefault = await prompt.partial({ language: "French" });
    for (const middleware of [undefined, [{ name: "passing", wrapModelCall: (request: never, next: (request: never) => Promise<unknown>) => next(request) }]]) {
      const llm = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "echo", args: { text: "a" } }] }, "Au revoir."] });
      const executor = new AgentExecutor({
        agent: createToolCallingAgent({ llm, tools: [echoTool], prompt: withDefault }),
        tools: [echoTool],
        maxIterations: 1,
        earlyStoppingMethod: "generate",
        ...(middleware ? { middleware: middleware as never } : {}),
      });
      const result = await lastValueFrom(executor.invoke({ input: "Hi", language: undefined }));
      expect(result.output, `middleware: ${middleware !== undefined}`).toBe("Au revoir.");
      expect(llm.calls.map((call) => call.messages[0]!.text)).toEqual(["Answer in French.", "Answer in French."]);
    }
  });
});
