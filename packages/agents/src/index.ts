// Errors
export { AgentTypeRegistryError, InvalidPromptError, UnsupportedModelError } from "./errors/index";

// Building blocks
export { AgentOutputParser } from "./shared/agent-output-parser";
export { createAgentRunnable } from "./shared/create-agent-runnable";
export type { AgentOverrideOptions, CreateAgentRunnableOptions } from "./shared/create-agent-runnable";
export type { TextAgentOptions } from "./shared/create-text-agent";
export { renderTextDescription, renderTextDescriptionAndArgs } from "./shared/render-tools";
// Internal: the tool-list check @agentrx/executors shares (its messages name the caller).
export { assertTools } from "./shared/validate-tools";
export type { AssertToolsOptions, ReservedToolName } from "./shared/validate-tools";

// Scratchpad formatters
export { formatAgentScratchpad } from "./format-scratchpad/format-agent-scratchpad";
export type { FormatAgentScratchpadOptions } from "./format-scratchpad/format-agent-scratchpad";
export { formatLogToString } from "./format-scratchpad/format-log-to-string";
export type { FormatLogToStringOptions } from "./format-scratchpad/format-log-to-string";
export { formatLogToMessages } from "./format-scratchpad/format-log-to-messages";
export type { FormatLogToMessagesOptions } from "./format-scratchpad/format-log-to-messages";

// Tool calling
export { createOpenAIToolsAgent, createToolCallingAgent } from "./tool-calling/create-tool-calling-agent";
export type { CreateToolCallingAgentOptions, ForceFinalAnswerMode } from "./tool-calling/create-tool-calling-agent";
export type { ToolImages } from "./tool-calling/tool-images";
export { formatToToolMessages } from "./tool-calling/format-to-tool-messages";
export { ToolCallingAgentOutputParser } from "./tool-calling/tool-calling-agent-output-parser";

// OpenAI functions
export { createOpenAIFunctionsAgent } from "./openai-functions/create-openai-functions-agent";
export type { CreateOpenAIFunctionsAgentOptions } from "./openai-functions/create-openai-functions-agent";
export { formatToOpenAIFunctionMessages } from "./openai-functions/format-to-openai-function-messages";
export { OpenAIFunctionsAgentOutputParser } from "./openai-functions/openai-functions-agent-output-parser";
export type { FunctionsAgentAction } from "./openai-functions/openai-functions-agent-output-parser";

// ReAct
export { createReactAgent, REACT_STOP_SEQUENCES } from "./react/create-react-agent";
export type { CreateReactAgentOptions } from "./react/create-react-agent";
export { REACT_FORMAT_INSTRUCTIONS, createReactPrompt } from "./react/react-prompt";
export {
  FINAL_ANSWER_ACTION,
  FINAL_ANSWER_AND_PARSABLE_ACTION_ERROR_MESSAGE,
  MISSING_ACTION_AFTER_THOUGHT_ERROR_MESSAGE,
  MISSING_ACTION_INPUT_AFTER_ACTION_ERROR_MESSAGE,
  ReActSingleInputOutputParser,
} from "./react/react-single-input-output-parser";
export type { ReActSingleInputOutputParserOptions } from "./react/react-single-input-output-parser";

// Structured chat
export { createStructuredChatAgent, STRUCTURED_CHAT_STOP_SEQUENCES } from "./structured-chat/create-structured-chat-agent";
export type { CreateStructuredChatAgentOptions } from "./structured-chat/create-structured-chat-agent";
export { createStructuredChatPrompt } from "./structured-chat/structured-chat-prompt";
export { STRUCTURED_CHAT_FINAL_ANSWER, StructuredChatOutputParser } from "./structured-chat/structured-chat-output-parser";
export type { StructuredChatOutputParserOptions } from "./structured-chat/structured-chat-output-parser";

// XML
export { createXmlAgent, XML_STOP_SEQUENCES } from "./xml/create-xml-agent";
export type { CreateXmlAgentOptions } from "./xml/create-xml-agent";
export { createXmlPrompt } from "./xml/xml-prompt";
export { formatXml } from "./xml/format-xml";
export type { FormatXmlOptions } from "./xml/format-xml";
export { XMLAgentOutputParser } from "./xml/xml-agent-output-parser";
export type { XMLAgentOutputParserOptions } from "./xml/xml-agent-output-parser";

// JSON chat
export { createJsonChatAgent, formatJsonChatScratchpad, JSON_CHAT_STOP_SEQUENCES } from "./json-chat/create-json-chat-agent";
export type { CreateJsonChatAgentOptions } from "./json-chat/create-json-chat-agent";
export { createJsonChatPrompt, JSON_CHAT_TOOL_RESPONSE, JSON_CHAT_USER_MESSAGE } from "./json-chat/json-chat-prompt";
export { JSON_FINAL_ANSWER_ACTION, JSONAgentOutputParser } from "./json-chat/json-agent-output-parser";
export type { JSONAgentOutputParserOptions } from "./json-chat/json-agent-output-parser";
export { ReActJsonSingleInputOutputParser } from "./json-chat/react-json-single-input-output-parser";
export type { ReActJsonSingleInputOutputParserOptions } from "./json-chat/react-json-single-input-output-parser";

// Conversational (LangChain's older agents)
export { ConvoOutputParser } from "./conversational/convo-output-parser";
export type { ConvoOutputParserOptions } from "./conversational/convo-output-parser";
export { ChatConversationalAgentOutputParser } from "./conversational/chat-conversational-agent-output-parser";
export type { ChatConversationalAgentOutputParserOptions } from "./conversational/chat-conversational-agent-output-parser";

// Self-ask with search
export { createSelfAskWithSearchAgent, SELF_ASK_STOP_SEQUENCES } from "./self-ask/create-self-ask-with-search-agent";
export type { CreateSelfAskWithSearchAgentOptions } from "./self-ask/create-self-ask-with-search-agent";
export { createSelfAskPrompt } from "./self-ask/self-ask-prompt";
export { INTERMEDIATE_ANSWER_TOOL, SelfAskOutputParser } from "./self-ask/self-ask-output-parser";
export type { SelfAskOutputParserOptions } from "./self-ask/self-ask-output-parser";

// Agent types, the registry and strategy selection
export { createToolCallingPrompt } from "./tool-calling/tool-calling-prompt";
export { defineAgentType, isAgentType } from "./agent-types/define-agent-type";
export type {
  AgentType,
  AgentTypeCreateOptions,
  AgentTypeDefinition,
  AgentTypeOptions,
  AnyAgentType,
  ModelRequirement,
} from "./agent-types/define-agent-type";
export {
  builtInAgentTypes,
  jsonChatAgentType,
  openAIFunctionsAgentType,
  openAIToolsAgentType,
  reactAgentType,
  selfAskWithSearchAgentType,
  structuredChatAgentType,
  toolCallingAgentType,
  xmlAgentType,
} from "./agent-types/built-in-agent-types";
export type { BuiltInAgentTypes } from "./agent-types/built-in-agent-types";
export { AgentTypeRegistry, createAgentTypeRegistry } from "./agent-types/agent-type-registry";
export type { AgentTypeInfo } from "./agent-types/agent-type-registry";
export { createAgentForModel, modelSupportsToolCalling, selectAgentType } from "./agent-types/select-agent-type";
export type { CreateAgentForModelOptions, SelectAgentTypeOptions } from "./agent-types/select-agent-type";
