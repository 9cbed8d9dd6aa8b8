// A tool's result with more than text in it (an image, a PDF, audio, a plain-text document) is the
// step's observation as content blocks, so the agent can send each where its model takes it; the
// run's record keeps each block's inline data up to MAX_RECORDED_IMAGE_CHARS (docs/models.md#images).
import { AgentExecutor, MAX_RECORDED_IMAGE_CHARS } from "@agentrx/executors";
import { ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { InProcessRunStore } from "../runs/in-process-run-store";
import { act, finish, scriptedAgent } from "./test-helpers";

const pdf = { type: "file", mimeType: "application/pdf", data: "JVBERi0xLjQ=" };

/** A `report` tool that returns `result`. */
const reportTool = (result: unknown) => tool(async () => result as string, { name: "report", description: "Writes the report.", schema: z.object({}) });

async function observationOf(result: unknown) {
  const { agent } = scriptedAgent([act("report"), finish("done")]);
  const run = await new AgentExecutor({ agent, tools: [reportTool(result)], returnIntermediateSteps: true }).invoke({ input: "go" });
  return run.intermediateSteps[0]?.observation;
}

describe("a tool's result with files, audio or documents", () => {
  it("is the step's observation as content blocks, with no image in it too", async () => {
    const wav = { type: "audio", mimeType: "audio/wav", data: "UklGRg==" };
    const csv = { type: "text-plain", mimeType: "text/csv", text: "a,b" };
    expect(await observationOf([pdf])).toEqual([pdf]);
    expect(await observationOf([{ type: "text", text: "Clip:" }, wav])).toEqual([{ type: "text", text: "Clip:" }, wav]);
    expect(await observationOf([csv])).toEqual([csv]);
    // The same through a ToolMessage a tool returns, as MCP tools do.
    expect(await observationOf(new ToolMessage({ content: [pdf] as never, tool_call_id: "c1" }))).toEqual([pdf]);
    // Text blocks alone, and other values, are text as before.
    expect(await observationOf([{ type: "text", text: "Sunny" }])).toBe('[{"type":"text","text":"Sunny"}]');
    expect(await observationOf({ temperature: 21 })).toBe('{"temperature":21}');
  });

  it("is recorded with each file's data up to MAX_RECORDED_IMAGE_CHARS; a larger one as a text that says what it was", async () => {
    const big = { type: "file", mimeType: "application/pdf", data: "JVBERi0".padEnd(MAX_RECORDED_IMAGE_CHARS + 4, "A") };
    const audio = { type: "input_audio", input_audio: { data: "SUQz".padEnd(MAX_RECORDED_IMAGE_CHARS + 4, "A"), format: "mp3" } };
    const store = new InProcessRunStore();
    const { agent } = scriptedAgent([act("report"), finish("done")]);
    const run = await new AgentExecutor({ agent, tools: [reportTool([{ type: "text", text: "Report:" }, pdf, big, audio])], store, returnIntermediateSteps: true }).invoke({ input: "go" }, { runId: "big-pdf" });
    // The run itself had the whole file.
    expect((run.intermediateSteps[0]?.observation as unknown[])[2]).toEqual(big);
    const step = (await store.readEvents("big-pdf")).find((event) => event.type === "step");
    expect(step?.data["observation"]).toEqual([
      { type: "text", text: "Report:" },
      pdf,
      { type: "text", text: "[application/pdf file of 384 KB, left out of the run record: too large to keep]" },
      { type: "text", text: "[audio/mp3 audio of 384 KB, left out of the run record: too large to keep]" },
    ]);
  });
});
