// Test-only: the definition of a community agent type ("acme/planner", a ReAct agent under another
// name) that the agent-type tests register, select and check.
import { formatLogToString } from "../format-scratchpad/format-log-to-string";
import { createReactAgent } from "../react/create-react-agent";
import { createReactPrompt } from "../react/react-prompt";
import { ReActSingleInputOutputParser } from "../react/react-single-input-output-parser";

export const plannerDefinition = {
  name: "acme/planner",
  version: "1.2.0",
  description: "Plans first.",
  requires: "text" as const,
  create: createReactAgent,
  defaultPrompt: createReactPrompt,
  createOutputParser: ({ toolNames }: { toolNames: string[] }) => new ReActSingleInputOutputParser({ toolNames }),
  formatScratchpad: formatLogToString,
};
