// A tool that returns an image (a chart, a screenshot, as MCP tools do): the tool-calling agent
// sends it to the provider as content blocks (Anthropic's tool_result with an image block, which
// the loopback server checks), text agents get its text and a note, the record keeps images up to
// a cap, and a run resumed from the record sends the same blocks.
import { join } from "node:path";
import { createReactAgent } from "@agentrx/agents";
import { ScriptedChatModel, startAnthropicMessagesServer } from "@agentrx/core/testing";
import { AgentExecutor, MAX_RECORDED_IMAGE_CHARS } from "@agentrx/executors";
import { SqliteRunStore } from "@agentrx/runs";
import { withApproval } from "@agentrx/tools";
import { PromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { lastValueFrom } from "rxjs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { anthropicThinking } from "./models";
import { cleanupAfterEach, toolCallingExecutor } from "./support";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
const chart = tool(async () => [{ type: "text", text: "Sales by month:" }, { type: "image", mimeType: "image/png", data: PNG }], {
  name: "chart",
  description: "Draws the sales chart.",
  schema: z.object({}),
});

const { track, tempDir } = cleanupAfterEach();

describe("images in observations", () => {
  it("the tool-calling agent sends a tool's image to Anthropic as an image block in its tool_result", async () => {
    const server = track(await startAnthropicMessagesServer({ responses: [{ thinking: "Draw it.", toolCalls: [{ name: "chart", input: {} }] }, { thinking: "Seen.", text: "Sales grow." }] }));
    const executor = toolCallingExecutor(anthropicThinking(server.url), [chart], { returnIntermediateSteps: true });
    const result = await lastValueFrom(executor.invoke({ input: "Show the sales." }));
    expect(server.rejections).toEqual([]);
    expect(result.output).toBe("Sales grow.");
    expect(result.intermediateSteps?.[0]?.observation).toEqual([{ type: "text", text: "Sales by month:" }, { type: "image", mimeType: "image/png", data: PNG }]);
    const toolResult = server.messageRequests()[1].messages[2].content[0];
    expect(toolResult).toMatchObject({ type: "tool_result", content: [{ type: "text", text: "Sales by month:" }, { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } }] });
  });

  it("a text agent gets the text and a note", async () => {
    const llm = new ScriptedChatModel({ responses: ["Thought: draw\nAction: chart\nAction Input: {}", "Thought: done\nFinal Answer: seen"] });
    const react = PromptTemplate.fromTemplate("Tools: {tools} ({tool_names})\nQuestion: {input}\n{agent_scratchpad}");
    const executor = new AgentExecutor({ agent: createReactAgent({ llm, tools: [chart], prompt: react }), tools: [chart] });
    await lastValueFrom(executor.invoke({ input: "Show the sales." }));
    const sent = llm.calls[1]?.messages.map((message) => message.text).join("\n") ?? "";
    expect(sent).toContain("Sales by month:\n[image: image/png, 70 B; this agent reads text only]");
  });

  it("the record keeps the image (capped), and a run resumed from SQLite sends it again", async () => {
    const server = track(await startAnthropicMessagesServer({
      responses: [{ thinking: "Draw it.", toolCalls: [{ name: "chart", input: {} }] }, { thinking: "Now save.", toolCalls: [{ name: "save", input: {} }] }, { thinking: "Done.", text: "Saved." }],
    }));
    const save = withApproval(tool(async () => "saved", { name: "save", description: "Saves.", schema: z.object({}) }));
    const path = join(tempDir("agentrx-images-"), "runs.db");
    const build = (store: SqliteRunStore) =>
      toolCallingExecutor(anthropicThinking(server.url), [chart, save], { store });
    const first = new SqliteRunStore({ path });
    const paused = await lastValueFrom(build(first).invoke({ input: "Chart, then save." }, { runId: "img" }));
    const step = (await first.readEvents("img")).find((event) => event.type === "step");
    expect(step?.data["observation"]).toEqual([{ type: "text", text: "Sales by month:" }, { type: "image", mimeType: "image/png", data: PNG }]);
    await first.close();
    const second = new SqliteRunStore({ path });
    const done = await lastValueFrom(build(second).resume("img", { decisions: { [paused.interrupts?.[0]?.id as string]: "approve" } }));
    await second.close();
    expect(server.rejections).toEqual([]);
    expect(done).toMatchObject({ type: "output", output: "Saved." });
    expect(server.messageRequests()[2].messages[2].content[0].content[1]).toMatchObject({ type: "image", source: { data: PNG } });
  });

  it("an input's image larger than the cap is recorded as a note with its size and hash; a small one as it is", async () => {
    const { encodeRunEvent } = await import("@agentrx/executors");
    const { HumanMessage } = await import("@langchain/core/messages");
    const { sha256 } = await import("@langchain/core/utils/hash");
    const big = "B".repeat(MAX_RECORDED_IMAGE_CHARS + 4);
    const photo = (data: string) => new HumanMessage({ content: [{ type: "text", text: "This photo:" }, { type: "image", mimeType: "image/jpeg", data }] });
    const inputs = { input: "What is in it?", chat_history: [photo(big), photo(PNG)], note: { data: big } };
    const event = encodeRunEvent({ type: "start", at: 0, runId: "r", inputs, resumed: false });
    const recorded = JSON.stringify(event["inputs"]);
    expect(recorded.length).toBeLessThan(MAX_RECORDED_IMAGE_CHARS + 2000); // only `note.data`, a string that is not an image, is long
    expect(recorded).toContain(`[image/jpeg image of 384 KB, sha256 ${sha256(big)}, left out of the run record: too large to keep]`);
    expect(recorded).toContain(PNG); // the small image is kept as it is
    const encoded = event["inputs"] as { note: { data: string }; chat_history: { message: { data: { content: unknown } } }[] };
    expect(encoded.note.data).toBe(big); // a long string that is not an image is kept whole
    expect(encoded.chat_history[1]?.message.data.content).toEqual([{ type: "text", text: "This photo:" }, { type: "image", mimeType: "image/jpeg", data: PNG }]);
  });

  it("an image larger than the cap is left out of the record with a note", async () => {
    const { encodeRunEvent } = await import("@agentrx/executors");
    const big = "A".repeat(MAX_RECORDED_IMAGE_CHARS + 4);
    const event = encodeRunEvent({
      type: "step",
      iteration: 0,
      at: 0,
      durationMs: 1,
      messages: [],
      step: { action: { tool: "chart", toolInput: {}, log: "" }, observation: [{ type: "image", mimeType: "image/png", data: big }] },
    });
    expect(event["observation"]).toEqual([{ type: "text", text: "[image/png image of 384 KB, left out of the run record: too large to keep]" }]);
  });
});
