import { InvalidArgumentError } from "@agentrx/core";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
import { describe, expect, it } from "vitest";
import {
  createJsonChatAgent,
  createJsonChatPrompt,
  createOpenAIFunctionsAgent,
  createReactAgent,
  createReactPrompt,
  createStructuredChatAgent,
  createStructuredChatPrompt,
  createToolCallingAgent,
  createXmlAgent,
  createXmlPrompt,
} from "../index";

const llm = new ScriptedChatModel({ responses: ["ok"] });
const chatPrompt = ChatPromptTemplate.fromMessages([["human", "{input}"], new MessagesPlaceholder("agent_scratchpad")]);

describe("the agent constructors refuse an option they do not take", () => {
  it.each([
    ["createToolCallingAgent", () => createToolCallingAgent({ llm, tools: [], prompt: chatPrompt, toolImage: "text" } as never), /createToolCallingAgent: unknown option `toolImage`; did you mean `toolImages`\? Known options: llm, tools, prompt, forceFinalAnswerMode, toolImages\.$/],
    ["createOpenAIFunctionsAgent", () => createOpenAIFunctionsAgent({ llm, tools: [], prompt: chatPrompt, forceFinalAnswer: "tool-choice-none" } as never), /createOpenAIFunctionsAgent: unknown option `forceFinalAnswer`/],
    ["createReactAgent", () => createReactAgent({ llm, tools: [], prompt: createReactPrompt(), stops: ["x"] } as never), /createReactAgent: unknown option `stops`.*Known options: llm, tools, prompt, stop\./],
    ["createStructuredChatAgent", () => createStructuredChatAgent({ llm, tools: [], prompt: createStructuredChatPrompt(), tool: [] } as never), /createStructuredChatAgent: unknown option `tool`/],
    ["createXmlAgent", () => createXmlAgent({ llm, tools: [], prompt: createXmlPrompt(), verbose: true } as never), /createXmlAgent: unknown option `verbose`/],
    ["createJsonChatAgent", () => createJsonChatAgent({ llm, tools: [], prompt: createJsonChatPrompt(), toolRenderer: () => "" } as never), /createJsonChatAgent: unknown option `toolRenderer`.*toolsRenderer/],
  ])("%s", (_name, make, message) => {
    expect(make).toThrow(InvalidArgumentError);
    expect(make).toThrow(message);
  });

  it("says what to do with LangChain's options that have no counterpart, and where the model goes", () => {
    expect(() => createToolCallingAgent({ llm, tools: [], prompt: chatPrompt, streamRunnable: false } as never)).toThrow(
      /unknown option `streamRunnable`.*an AgentRx agent streams its model's tokens when the run is streamed \(executor\.stream\), so remove it/,
    );
    expect(() => createReactAgent({ model: llm, tools: [], prompt: createReactPrompt() } as never)).toThrow(/unknown option `model`: the model goes in `llm`\. Known options: llm, tools, prompt, stop\.$/);
  });
});
