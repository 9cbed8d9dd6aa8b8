import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { estimateMessageTokens } from "./estimate-message-tokens";
import { estimateTextTokens } from "./estimate-tokens";

const CODE_LOOP = `export async function readAll(store: RunStore, runId: string): Promise<StoredRunEvent[]> {
  const events: StoredRunEvent[] = [];
  for (let after = 0; ; ) {
    const page = await store.readEvents(runId, { after, limit: 500 });
    if (page.length === 0) return events;
    events.push(...page);
    after = page[page.length - 1]!.seq;
  }
}
`;
const CODE_CALLS = `const weather = tool(async ({ city }) => (city === "Paris" ? "sunny" : "rainy"), {
  name: "weather", description: "Weather for a city.", schema: z.object({ city: z.string() }),
});
const executor = new AgentExecutor({ agent, tools: [weather], store, maxIterations: 10 });
const result = await lastValueFrom(executor.invoke({ input: "Weather in Paris?" }, { threadId: "support-42" }));
console.log(result.runId, result.output);
`;

/**
 * Texts with their token counts in OpenAI's o200k_base, counted with js-tiktoken 1.0.21
 * (`new Tiktoken(o200k_base).encode(text).length`), so the estimate's accuracy is checked offline.
 */
const MEASURED: [kind: "english" | "code" | "json" | "other", text: string, o200k: number][] = [
  ["english", "Hi, my name is Ada. What's the weather like in Paris today?", 15],
  ["english", "Sure! It's currently 21°C and sunny in Paris, with a light breeze from the northwest.", 20],
  ["english", "TCP is like a phone call: a connection is set up first, and everything you say arrives in order, or the call notices it was lost and repeats it. UDP is like sending postcards: each one travels on its own, quickly, but some may arrive late, out of order, or not at all.", 63],
  ["english", "I found 3 options: United UA 1549 departing 08:05, $312; JetBlue B6 916 departing 11:30, $289; and Delta DL 2211 departing 22:45 (red-eye), $254.", 53],
  ["english", "- Q3 budget approved (+5% for engineering)\n- Hiring plan on hold until the new VP starts\n- Weekly sync moves to Tuesday mornings", 29],
  ["english", "A run normally lives in the memory of the process that started it. Give the executor a run store and every run it executes is recorded as it happens: its inputs, every action, tool result, model reply, token usage and its output.", 49],
  ["code", CODE_LOOP, 98],
  ["code", CODE_CALLS, 112],
  ["code", 'def reverse(text: str) -> str:\n    """Return text reversed."""\n    return text[::-1]\n\nprint(reverse("hello"))\n', 26],
  ["json", JSON.stringify({ location: "Paris, FR", temperature_c: 21.5, conditions: "sunny", wind: { speed_kmh: 12, direction: "NW" }, forecast: [{ day: "Tue", high: 23, low: 14 }, { day: "Wed", high: 19, low: 12 }] }), 60],
  ["json", JSON.stringify({ results: [{ title: "Patagonia travel guide", url: "https://example.com/patagonia/guide", snippet: "The best time to visit Patagonia is between November and March." }, { title: "Hiking Torres del Paine", url: "https://example.com/torres-del-paine", snippet: "The W trek takes four to five days." }] }), 73],
  ["other", "Bonjour ! Je voudrais réserver une table pour quatre personnes samedi soir, vers vingt heures.", 17],
  ["other", "Könnten Sie mir bitte erklären, wie ich mein Passwort zurücksetzen kann?", 16],
  ["other", "Привет! Можешь помочь мне перевести этот текст на английский?", 16],
  ["other", "今天的天气怎么样？我打算下午去公园散步，如果下雨的话就改成去图书馆看书。", 28],
  ["other", "明日の会議は午前十時から始まります。資料は事前に共有フォルダにアップロードしておいてください。", 31],
  ["other", "안녕하세요! 내일 오후 세 시에 회의실을 예약하고 싶은데, 가능한지 확인해 주실 수 있나요?", 28],
  ["other", "مرحبا، أريد أن أعرف مواعيد عمل المكتبة خلال عطلة نهاية الأسبوع", 18],
];

describe("estimateTextTokens", () => {
  it("stays within 20% of o200k_base on each English, code and JSON text, and within 5% over all of them", () => {
    let estimated = 0;
    let measured = 0;
    for (const [kind, text, o200k] of MEASURED) {
      if (kind === "other") continue;
      const estimate = estimateTextTokens(text);
      expect(Math.abs(estimate - o200k) / o200k, `${kind}: ${estimate} for ${o200k}: ${text.slice(0, 40)}`).toBeLessThanOrEqual(0.2);
      estimated += estimate;
      measured += o200k;
    }
    expect(Math.abs(estimated - measured) / measured).toBeLessThanOrEqual(0.05);
  });

  it("stays within 25% of o200k_base on other languages", () => {
    for (const [kind, text, o200k] of MEASURED) {
      if (kind !== "other") continue;
      const estimate = estimateTextTokens(text);
      expect(Math.abs(estimate - o200k) / o200k, `${estimate} for ${o200k}: ${text}`).toBeLessThanOrEqual(0.25);
    }
  });

  it("counts nothing as 0 and any text as at least 1, and keeps up with a 1 MB text", () => {
    expect(estimateTextTokens("")).toBe(0);
    expect(estimateTextTokens("ok")).toBe(1);
    expect(estimateTextTokens(" ")).toBe(1);
    expect(estimateTextTokens("🎉")).toBe(1);
    const big = "tool output line with some text 0123456789\n".repeat(24_000);
    const started = performance.now();
    const tokens = estimateTextTokens(big);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(tokens).toBeGreaterThan(big.length / 6);
    expect(tokens).toBeLessThan(big.length / 2);
  });
});

describe("estimateMessageTokens", () => {
  it("adds 4 per message, the name, and each tool call's name, arguments and 3 more", () => {
    const text = "What's the weather like in Paris today?";
    expect(estimateMessageTokens(new HumanMessage(text))).toBe(4 + estimateTextTokens(text));
    expect(estimateMessageTokens(new SystemMessage(""))).toBe(4);
    expect(estimateMessageTokens(new HumanMessage({ content: "hi", name: "ada" }))).toBe(4 + 1 + 1 + 1);
    const call = new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "weather", args: { city: "Paris" } }] });
    expect(estimateMessageTokens(call)).toBe(4 + 3 + estimateTextTokens("weather") + estimateTextTokens('{"city":"Paris"}'));
    expect(estimateMessageTokens(new ToolMessage({ content: "sunny", tool_call_id: "c1" }))).toBe(4 + 1);
  });

  it("counts the text of content blocks, a fixed 765 per image, and other blocks as JSON", () => {
    const message = new HumanMessage({
      content: [
        { type: "text", text: "What is in this picture?" },
        { type: "image_url", image_url: { url: `data:image/png;base64,${"A".repeat(100_000)}` } },
      ],
    });
    expect(estimateMessageTokens(message)).toBe(4 + estimateTextTokens("What is in this picture?") + 765);
  });

  it("prices an image as an image in every provider's block format, and 85 in low detail", () => {
    const data = "iVBORw0KGgo".repeat(20_000);
    const images: Record<string, unknown>[] = [
      { type: "input_image", image_url: `data:image/png;base64,${data}` }, // OpenAI responses
      { type: "media", mimeType: "image/png", data }, // Gemini
      { type: "image", source_type: "base64", mime_type: "image/png", data }, // LangChain standard
      { type: "image", source: { type: "base64", media_type: "image/png", data } }, // Anthropic
    ];
    for (const image of images) expect(estimateMessageTokens(new HumanMessage({ content: [image as never] })), String(image.type)).toBe(4 + 765);
    const low = new HumanMessage({ content: [{ type: "image_url", image_url: { url: `data:image/png;base64,${data}`, detail: "low" } }] });
    expect(estimateMessageTokens(low)).toBe(4 + 85);
    expect(estimateMessageTokens(new HumanMessage({ content: [{ type: "input_image", image_url: "https://example.com/a.png", detail: "low" } as never] }))).toBe(4 + 85);
  });
});

describe("estimateMessageTokens on files, audio and video", () => {
  const base64 = (bytes: string | Uint8Array) => Buffer.from(typeof bytes === "string" ? Buffer.from(bytes, "latin1") : bytes).toString("base64");
  const tokens = (block: Record<string, unknown>) => estimateMessageTokens(new HumanMessage({ content: [block as never] })) - 4;
  /** A PDF of `pages` uncompressed page objects, padded to `size` bytes. */
  const pdf = (pages: number, size: number) => {
    const objects = ["%PDF-1.4", "1 0 obj << /Type /Pages /Count 3 >> endobj", ...Array.from({ length: pages }, (_, i) => `${i + 2} 0 obj << /Type /Page /Parent 1 0 R >> endobj`)].join("\n");
    return objects.padEnd(size, "\u00ff");
  };
  /** A WAV file: its 44-byte header (PCM, `byteRate` bytes a second) and `seconds` of samples. */
  const wav = (byteRate: number, seconds: number) => {
    const header = Buffer.alloc(44);
    header.write("RIFF", 0, "latin1");
    header.write("WAVE", 8, "latin1");
    header.write("fmt ", 12, "latin1");
    header.writeUInt32LE(byteRate, 28);
    header.write("data", 36, "latin1");
    return Buffer.concat([header, Buffer.alloc(byteRate * seconds, 7)]);
  };

  it("prices a PDF at 1,500 a page, its pages counted, in every provider's block format", () => {
    const data = base64(pdf(3, 300_000));
    const blocks: Record<string, unknown>[] = [
      { type: "file", file: { filename: "a.pdf", file_data: `data:application/pdf;base64,${data}` } }, // OpenAI chat
      { type: "input_file", filename: "a.pdf", file_data: `data:application/pdf;base64,${data}` }, // OpenAI responses
      { type: "document", source: { type: "base64", media_type: "application/pdf", data } }, // Anthropic
      { type: "file", source_type: "base64", mime_type: "application/pdf", data }, // LangChain standard
      { type: "file", mimeType: "application/pdf", data: Buffer.from(pdf(3, 300_000), "latin1") }, // LangChain v1, bytes
      { type: "media", mimeType: "application/pdf", data }, // Gemini
    ];
    for (const block of blocks) expect(tokens(block), JSON.stringify(block).slice(0, 60)).toBe(3 * 1_500);
  });

  it("prices a PDF whose pages cannot be counted (compressed) at 50 KB a page, and a linearized one by its page count", () => {
    const compressed = base64("%PDF-1.7\n".padEnd(300_000, "\u00ab"));
    expect(tokens({ type: "file", source_type: "base64", mime_type: "application/pdf", data: compressed })).toBe(6 * 1_500);
    const linearized = base64("%PDF-1.7\n1 0 obj << /Linearized 1 /L 300000 /N 12 /T 299000 >> endobj\n".padEnd(300_000, "\u00ab"));
    expect(tokens({ type: "document", source: { type: "base64", media_type: "application/pdf", data: linearized } })).toBe(12 * 1_500);
  });

  it("prices audio at 32 a second: a WAV file's length from its header, compressed audio's at 128 kbit/s", () => {
    const data = base64(wav(32_000, 2));
    const blocks: Record<string, unknown>[] = [
      { type: "input_audio", input_audio: { data, format: "wav" } }, // OpenAI chat
      { type: "audio", source_type: "base64", mime_type: "audio/wav", data }, // LangChain standard
      { type: "media", mimeType: "audio/wav", data }, // Gemini
    ];
    for (const block of blocks) expect(tokens(block), String(block.type)).toBe(64);
    expect(tokens({ type: "input_audio", input_audio: { data: base64(wav(48_000, 10)), format: "wav" } })).toBe(320);
    expect(tokens({ type: "input_audio", input_audio: { data: base64(new Uint8Array(160_000).fill(9)), format: "mp3" } })).toBe(320);
  });

  it("prices video at 300 a second (1 Mbit/s), a text file as its text, and a file, audio or video sent by reference as a page or a minute", () => {
    expect(tokens({ type: "video", source_type: "base64", mime_type: "video/mp4", data: base64(new Uint8Array(1_250_000).fill(3)) })).toBe(3_000);
    const text = "Meeting notes: ship the release on Friday, then write the changelog.\n".repeat(50);
    expect(tokens({ type: "file", source_type: "base64", mime_type: "text/plain", data: base64(Buffer.from(text)) })).toBe(estimateTextTokens(text));
    expect(tokens({ type: "file", file: { file_data: `data:application/json;base64,${base64(Buffer.from('{"a": [1, 2, 3]}'))}` } })).toBe(estimateTextTokens('{"a": [1, 2, 3]}'));
    expect(tokens({ type: "document", source: { type: "text", media_type: "text/plain", data: text } })).toBe(estimateTextTokens(text));
    expect(tokens({ type: "file", source_type: "text", mime_type: "text/plain", text })).toBe(estimateTextTokens(text));
    expect(tokens({ type: "input_file", file_id: "file-abc123" })).toBe(1_500);
    expect(tokens({ type: "file", source_type: "url", url: "https://example.com/report.pdf", mime_type: "application/pdf" })).toBe(1_500);
    expect(tokens({ type: "audio", source_type: "url", url: "https://example.com/call.mp3", mime_type: "audio/mpeg" })).toBe(60 * 32);
    expect(tokens({ type: "video", source_type: "id", id: "file-9" })).toBe(60 * 300);
  });

  it("keeps a message with a 300 KB PDF far below the count of its base64 text", () => {
    const data = base64(pdf(3, 300_000));
    const message = new HumanMessage({ content: [{ type: "text", text: "Summarize this." }, { type: "file", source_type: "base64", mime_type: "application/pdf", data } as never] });
    expect(estimateMessageTokens(message)).toBe(4 + estimateTextTokens("Summarize this.") + 4_500);
    expect(estimateTextTokens(data)).toBeGreaterThan(100_000);
  });
});
