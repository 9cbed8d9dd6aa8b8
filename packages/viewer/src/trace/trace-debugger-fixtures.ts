// Test-only (not exported by the package): recorded runs for the trace page's debugger views
// (sub-runs, cost and recorded prompts, images) and for the screenshots in docs/trace-viewer.md.
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, type RunStore } from "@agentrx/executors";
import { deflateSync } from "node:zlib";
import { HumanMessage } from "@langchain/core/messages";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { lastValueFrom } from "rxjs";
import { z } from "zod";

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const usage = { inputTokens: 120, outputTokens: 30 };

/**
 * Records a supervisor run into `store`: its model asks the `researcher` tool (an executor called
 * as a tool, `asTool`) about tides; the researcher calls `lookup` twice, in two turns, and answers;
 * the supervisor then answers. Resolves with the run id.
 */
export async function recordSupervisorRun(store: RunStore, runId = "supervisor", options: { delayMs?: number } = {}): Promise<string> {
  const { delayMs = 20 } = options;
  const prompt = ChatPromptTemplate.fromMessages([["system", "You answer with facts."], ["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
  const lookup = tool(
    async ({ q }) => {
      await sleep(delayMs);
      return `facts about ${q}: the moon's pull raises the sea twice a day`;
    },
    { name: "lookup", description: "Looks facts up.", schema: z.object({ q: z.string() }) },
  );
  const researcherModel = new ScriptedChatModel({
    streaming: true,
    latencyMs: delayMs,
    responses: [
      { toolCalls: [{ name: "lookup", args: { q: "tides" } }], usage },
      { toolCalls: [{ name: "lookup", args: { q: "spring tides" } }], usage },
      { content: "Tides follow the moon; spring tides come at new and full moon.", usage },
    ],
  });
  const researcher = new AgentExecutor({ agent: createToolCallingAgent({ llm: researcherModel, tools: [lookup], prompt }), tools: [lookup] });
  const research = researcher.asTool({ name: "researcher", description: "Researches a topic." });
  const supervisorModel = new ScriptedChatModel({
    streaming: true,
    latencyMs: delayMs,
    responses: [{ toolCalls: [{ name: "researcher", args: { input: "How do tides work?" } }], usage }, { content: "Tides follow the moon (researched).", usage }],
  });
  const supervisor = new AgentExecutor({ agent: createToolCallingAgent({ llm: supervisorModel, tools: [research], prompt }), tools: [research], store });
  await lastValueFrom(supervisor.stream({ input: "Explain tides." }, { runId }));
  return runId;
}

/** A PNG (RGB, 8 bits) of `width` × `height` pixels coloured by `pixel`, as base64. */
export function pngBase64(width: number, height: number, pixel: (x: number, y: number) => [number, number, number]): string {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (bytes: Buffer) => {
    let c = 0xffffffff;
    for (const byte of bytes) c = (crcTable[(c ^ byte) & 0xff] as number) ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const out = Buffer.alloc(body.length + 8);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc(body), body.length + 4);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const rows = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) rows.set(pixel(x, y), y * (width * 3 + 1) + 1 + x * 3);
  }
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk("IHDR", header), chunk("IDAT", deflateSync(rows)), chunk("IEND", Buffer.alloc(0))]).toString("base64");
}

/** A small bar chart (120 × 72), as PNG base64. */
export const CHART_PNG = pngBase64(120, 72, (x, y) => {
  const heights = [30, 52, 41, 64, 22, 47];
  const bar = Math.floor(x / 20);
  const inBar = x % 20 >= 4 && x % 20 < 16 && 72 - y <= (heights[bar] ?? 0);
  return inBar ? [59, 111, 212] : [246, 248, 250];
});

/** Base64 longer than a run's record keeps of one image (`MAX_RECORDED_IMAGE_CHARS`): recorded as a note. */
export const LARGE_IMAGE_BASE64 = "A".repeat(600 * 1024);

/**
 * Records a run with images into `store`: its inputs carry a photo (a small PNG in a
 * `HumanMessage`), and its `render_chart` tool returns text, a small chart and a screenshot too
 * large for the record (kept as a note with its type and size). Resolves with the run id.
 */
export async function recordImageRun(store: RunStore, runId = "images"): Promise<string> {
  const prompt = ChatPromptTemplate.fromMessages([["system", "You chart data."], ["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
  const chart = tool(
    async () => [
      { type: "text", text: "Sales by month, and the dashboard:" },
      { type: "image", mimeType: "image/png", data: CHART_PNG },
      { type: "image", mimeType: "image/png", data: LARGE_IMAGE_BASE64 },
    ],
    { name: "render_chart", description: "Charts sales.", schema: z.object({ months: z.number() }) },
  );
  const llm = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "render_chart", args: { months: 6 } }] }, "Sales peaked in April."] });
  const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [chart], prompt }), tools: [chart], store });
  const photo = new HumanMessage({ content: [{ type: "text", text: "Our logo:" }, { type: "image", mimeType: "image/png", data: pngBase64(16, 16, (x, y) => ((x + y) % 2 === 0 ? [207, 34, 46] : [255, 255, 255])) }] });
  await lastValueFrom(executor.stream({ input: "Chart the sales.", attachment: photo }, { runId }));
  return runId;
}
