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
});
