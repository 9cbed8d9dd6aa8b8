import type { BaseMessage } from "@langchain/core/messages";
import { formatLogToString } from "../format-scratchpad/format-log-to-string";
import type { TextAgentOptions } from "../shared/create-text-agent";
import { type CreateJsonChatAgentOptions, createJsonChatAgent, formatJsonChatScratchpad } from "../json-chat/create-json-chat-agent";
import { createJsonChatPrompt } from "../json-chat/json-chat-prompt";
import { ReActJsonSingleInputOutputParser } from "../json-chat/react-json-single-input-output-parser";
import { type CreateOpenAIFunctionsAgentOptions, createOpenAIFunctionsAgent } from "../openai-functions/create-openai-functions-agent";
import { formatToOpenAIFunctionMessages } from "../openai-functions/format-to-openai-function-messages";
import { OpenAIFunctionsAgentOutputParser } from "../openai-functions/openai-functions-agent-output-parser";
import { createReactAgent } from "../react/create-react-agent";
import { createReactPrompt } from "../react/react-prompt";
import { ReActSingleInputOutputParser } from "../react/react-single-input-output-parser";
import { createSelfAskWithSearchAgent } from "../self-ask/create-self-ask-with-search-agent";
import { createSelfAskPrompt } from "../self-ask/self-ask-prompt";
import { SelfAskOutputParser } from "../self-ask/self-ask-output-parser";
import { createStructuredChatAgent } from "../structured-chat/create-structured-chat-agent";
import { createStructuredChatPrompt } from "../structured-chat/structured-chat-prompt";
import { StructuredChatOutputParser } from "../structured-chat/structured-chat-output-parser";
import { type CreateToolCallingAgentOptions, createOpenAIToolsAgent, createToolCallingAgent } from "../tool-calling/create-tool-calling-agent";
import { formatToToolMessages } from "../tool-calling/format-to-tool-messages";
import { ToolCallingAgentOutputParser } from "../tool-calling/tool-calling-agent-output-parser";
import { createToolCallingPrompt } from "../tool-calling/tool-calling-prompt";
import { createXmlAgent } from "../xml/create-xml-agent";
import { formatXml } from "../xml/format-xml";
import { XMLAgentOutputParser } from "../xml/xml-agent-output-parser";
import { createXmlPrompt } from "../xml/xml-prompt";
import { type AgentType, defineAgentType } from "./define-agent-type";

// Each constant's type is written out rather than inferred: an inferred one spells the scratchpad
// messages with the generics of the @langchain/core the package was built with (1.4's
// `BaseMessage<MessageStructure<...>>`), which earlier versions of the peer range (1.0, where
// `MessageStructure` is not generic) cannot read. `BaseMessage[]` means the same in each.

/**
 * The tool-calling agent type (`"tool-calling"`): native tool calls, several per turn.
 *
 * @example
 * ```ts
 * import { toolCallingAgentType } from "@agentrx/agents";
 * import { ScriptedChatModel } from "@agentrx/core/testing";
 *
 * const agent = toolCallingAgentType.create({ llm: new ScriptedChatModel({ responses: ["Hi!"] }), tools: [] });
 * console.log(await agent.invoke({ input: "Hello", steps: [] })); // { returnValues: { output: "Hi!" }, log: "Hi!" }
 * ```
 */
export const toolCallingAgentType: AgentType<"tool-calling", CreateToolCallingAgentOptions, BaseMessage[], ToolCallingAgentOutputParser, "tool-calling"> = /* @__PURE__ */ defineAgentType({
  name: "tool-calling",
  version: "1.0.0",
  description: "Native tool calling through bindTools; several tool calls per turn run in parallel.",
  requires: "tool-calling",
  create: createToolCallingAgent,
  defaultPrompt: () => createToolCallingPrompt(),
  createOutputParser: () => new ToolCallingAgentOutputParser(),
  formatScratchpad: formatToToolMessages,
});

/** The `"openai-tools"` agent type: the tool-calling agent under its older LangChain name. */
export const openAIToolsAgentType: AgentType<"openai-tools", CreateToolCallingAgentOptions, BaseMessage[], ToolCallingAgentOutputParser, "tool-calling"> = /* @__PURE__ */ defineAgentType({
  name: "openai-tools",
  version: "1.0.0",
  description: "Alias of the tool-calling agent, for users migrating from LangChain's createOpenAIToolsAgent.",
  requires: "tool-calling",
  create: createOpenAIToolsAgent,
  defaultPrompt: () => createToolCallingPrompt(),
  createOutputParser: () => new ToolCallingAgentOutputParser(),
  formatScratchpad: formatToToolMessages,
});

/** The `"openai-functions"` agent type: function calling, one action per turn. */
export const openAIFunctionsAgentType: AgentType<"openai-functions", CreateOpenAIFunctionsAgentOptions, BaseMessage[], OpenAIFunctionsAgentOutputParser, "tool-calling"> = /* @__PURE__ */ defineAgentType({
  name: "openai-functions",
  version: "1.0.0",
  description: "Function calling with one action per turn, for prompts written for OpenAI functions.",
  requires: "tool-calling",
  create: createOpenAIFunctionsAgent,
  defaultPrompt: () => createToolCallingPrompt(),
  createOutputParser: () => new OpenAIFunctionsAgentOutputParser(),
  formatScratchpad: formatToOpenAIFunctionMessages,
});

/** The `"react"` agent type: text ReAct for models without tool calling. */
export const reactAgentType: AgentType<"react", TextAgentOptions, string, ReActSingleInputOutputParser, "text"> = /* @__PURE__ */ defineAgentType({
  name: "react",
  version: "1.0.0",
  description: "Text ReAct (Thought / Action / Action Input / Observation) for any text model.",
  requires: "text",
  create: createReactAgent,
  defaultPrompt: createReactPrompt,
  createOutputParser: ({ toolNames }) => new ReActSingleInputOutputParser({ toolNames }),
  formatScratchpad: (steps) => formatLogToString(steps),
});

/** The `"structured-chat"` agent type: a fenced JSON blob per turn, for multi-argument tools. */
export const structuredChatAgentType: AgentType<"structured-chat", TextAgentOptions, string, StructuredChatOutputParser, "text"> = /* @__PURE__ */ defineAgentType({
  name: "structured-chat",
  version: "1.0.0",
  description: "A JSON blob {action, action_input} in a code fence per turn; tools may take several arguments.",
  requires: "text",
  create: createStructuredChatAgent,
  defaultPrompt: createStructuredChatPrompt,
  createOutputParser: ({ toolNames }) => new StructuredChatOutputParser({ toolNames }),
  formatScratchpad: (steps) => formatLogToString(steps),
});

/** The `"xml"` agent type: `<tool>` / `<tool_input>` / `<final_answer>` tags. */
export const xmlAgentType: AgentType<"xml", TextAgentOptions, string, XMLAgentOutputParser, "text"> = /* @__PURE__ */ defineAgentType({
  name: "xml",
  version: "1.0.0",
  description: "XML tags <tool>, <tool_input> and <final_answer>, for models that follow XML prompts well.",
  requires: "text",
  create: createXmlAgent,
  defaultPrompt: createXmlPrompt,
  createOutputParser: () => new XMLAgentOutputParser(),
  formatScratchpad: (steps) => formatXml(steps),
});

/** The `"self-ask-with-search"` agent type: follow-up questions answered by one search tool. */
export const selfAskWithSearchAgentType: AgentType<"self-ask-with-search", TextAgentOptions, string, SelfAskOutputParser, "text"> = /* @__PURE__ */ defineAgentType({
  name: "self-ask-with-search",
  version: "1.0.0",
  description: 'Self-ask: follow-up questions answered by one tool named "Intermediate Answer".',
  requires: "text",
  create: createSelfAskWithSearchAgent,
  defaultPrompt: createSelfAskPrompt,
  createOutputParser: () => new SelfAskOutputParser(),
  formatScratchpad: (steps) => formatLogToString(steps, { observationPrefix: "\nIntermediate answer: ", llmPrefix: "" }),
});

/**
 * The `"json-chat"` agent type: a JSON blob per turn from a chat model, with the steps as messages.
 *
 * @example
 * ```ts
 * import { jsonChatAgentType } from "@agentrx/agents";
 * import { ScriptedChatModel } from "@agentrx/core/testing";
 *
 * const llm = new ScriptedChatModel({ responses: ['```json\n{"action": "Final Answer", "action_input": "Hi!"}\n```'] });
 * const agent = jsonChatAgentType.create({ llm, tools: [] });
 * console.log(await agent.invoke({ input: "Hello", steps: [] })); // { returnValues: { output: "Hi!" }, log: "..." }
 * ```
 */
export const jsonChatAgentType: AgentType<"json-chat", CreateJsonChatAgentOptions, BaseMessage[], ReActJsonSingleInputOutputParser, "text"> = /* @__PURE__ */ defineAgentType({
  name: "json-chat",
  version: "1.0.0",
  description: 'A JSON blob {action, action_input} per turn from a chat model, the steps as messages; "Final Answer:" text accepted.',
  requires: "text",
  create: createJsonChatAgent,
  defaultPrompt: createJsonChatPrompt,
  createOutputParser: ({ toolNames }) => new ReActJsonSingleInputOutputParser({ toolNames }),
  formatScratchpad: formatJsonChatScratchpad,
});

/**
 * Every built-in agent type, in the order `createAgentTypeRegistry` registers them. The array is
 * frozen: copy it (`[...builtInAgentTypes, myType]`) to build a list of your own.
 */
export const builtInAgentTypes: readonly [
  typeof toolCallingAgentType,
  typeof openAIToolsAgentType,
  typeof openAIFunctionsAgentType,
  typeof reactAgentType,
  typeof structuredChatAgentType,
  typeof xmlAgentType,
  typeof selfAskWithSearchAgentType,
  typeof jsonChatAgentType,
] = /* @__PURE__ */ Object.freeze([
  toolCallingAgentType,
  openAIToolsAgentType,
  openAIFunctionsAgentType,
  reactAgentType,
  structuredChatAgentType,
  xmlAgentType,
  selfAskWithSearchAgentType,
  jsonChatAgentType,
] as const);

/** The built-in agent types by name. */
export type BuiltInAgentTypes = { [T in (typeof builtInAgentTypes)[number] as T["name"]]: T };
