import { OutputParserException } from "@langchain/core/output_parsers";
import { describe, expect, it } from "vitest";
import { assertParserHandlesAnyGeneration } from "../test-utils/parser-properties";
import { ChatConversationalAgentOutputParser } from "./chat-conversational-agent-output-parser";

const parser = new ChatConversationalAgentOutputParser({ toolNames: ["blogpost", "metabase"] });
const sql = "SELECT * FROM orders\\nJOIN users ON users.id = orders.user_id\\nWHERE users.email = 'bud'";

describe("ChatConversationalAgentOutputParser", () => {
  // LangChain's cases: JSON with text (and other code blocks) before and after it.
  it("finds the final answer blob after prose and an sql code block, with a fence inside its answer", async () => {
    const text = `Here is the query:\n\n\`\`\`sql\nSELECT 1\n\`\`\`\n\nAdapt it.\n\n\`\`\`json\n{\n  "action": "Final Answer",\n  "action_input": "Use:\\n\\n\`\`\`\\n${sql}\\n\`\`\`\\n\\nAdapt it."\n}\n\`\`\``;
    const output = await parser.parse(text);
    expect(output).toMatchObject({ returnValues: { output: expect.stringContaining("Use:\n\n```\nSELECT * FROM orders") } });
  });

  it("reads a tool call whose input is a list, with prose before and after the fence, or an untagged fence", async () => {
    const blob = '{\n  "action": "metabase",\n  "action_input": ["GET", "/api/table/1"]\n}';
    for (const text of [`Here is an example:\n\n\`\`\`json\n${blob}\n\`\`\`\n\nIn this example, the action is metabase.`, `\`\`\`\n${blob}\n\`\`\``]) {
      expect(await parser.parse(text)).toEqual({ tool: "metabase", toolInput: ["GET", "/api/table/1"], log: text });
    }
  });

  it("reads a fence that opens mid-line, whose string holds a fence, with tabs and carriage returns around", async () => {
    const input = `\`\`\`sql\\n${sql}\`\`\``;
    const plain = `Here we have some boilerplate nonsense\`\`\`\n{\n "action": "blogpost",\n  "action_input": "${input}"\n}\n\`\`\` and at the end there is more nonsense`;
    const spaced = `Here we have some boilerplate nonsense\`\`\`json\n{\n \t\r\n"action": "blogpost",\n\t\r  "action_input": "${input}"\n\t\r}\n\n\n\t\r\`\`\` and at the end there is more nonsense`;
    for (const text of [plain, spaced]) {
      expect(await parser.parse(text)).toMatchObject({ tool: "blogpost", toolInput: `\`\`\`sql\n${sql.replaceAll("\\n", "\n")}\`\`\`` });
    }
  });

  it("requires both action and action_input, as LangChain does, and refuses text without a blob", async () => {
    for (const text of ['```json\n{"action": "blogpost"}\n```', "Just prose.", '{"action_input": "x"}']) {
      const error = await parser.parse(text).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OutputParserException);
      expect((error as OutputParserException).sendToLLM).toBe(true);
    }
    expect(parser.getFormatInstructions()).toContain('"blogpost", "metabase"');
  });

  it("throws only OutputParserException for any generation", async () => {
    await assertParserHandlesAnyGeneration(parser);
  });
});
