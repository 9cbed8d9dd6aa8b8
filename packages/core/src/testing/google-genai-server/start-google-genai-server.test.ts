import { afterEach, describe, expect, it } from "vitest";
import { type GoogleGenAIServer, startGoogleGenAIServer } from "./start-google-genai-server";

let server: GoogleGenAIServer | undefined;
afterEach(async () => server?.close());

describe("startGoogleGenAIServer", () => {
  it("answers Google's 400 for unanswered calls and bad image parts", async () => {
    server = await startGoogleGenAIServer({ responses: ["ok", { thinking: "Hmm.", text: "4" }] });
    const post = async (contents: unknown) => {
      const response = await fetch(`${server?.url}/v1beta/models/gemini-2.5-flash:generateContent`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ contents }) });
      return { status: response.status, body: (await response.json()) as { error?: { message: string; status: string } } };
    };
    const call = { role: "model", parts: [{ functionCall: { name: "weather", args: {} }, thoughtSignature: "x" }] };
    expect((await post([{ role: "user", parts: [{ text: "hi" }] }, { role: "model", parts: [{ functionCall: { name: "weather", args: {} } }] }, { role: "user", parts: [{ text: "hi" }] }])).body.error?.message).toBe(
      "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.",
    );
    expect((await post([{ role: "user", parts: [{ text: "hi" }] }, call])).body.error?.message).toBe("Corrupted thought signature.");
    const badImage = await post([{ role: "user", parts: [{ inlineData: { mimeType: "image/png", data: "not base64!" } }] }]);
    expect(badImage).toMatchObject({ status: 400, body: { error: { status: "INVALID_ARGUMENT" } } });
    expect(badImage.body.error?.message).toContain("Base64 decoding failed");
    expect((await post([{ role: "user", parts: [{ inlineData: { mimeType: "image/bmp", data: "AAAA" } }] }])).body.error?.message).toBe("Unsupported MIME type: image/bmp");
    expect((await post([{ role: "user", parts: [{ text: "hi" }] }])).status).toBe(200);
    expect(server.rejections).toHaveLength(4);
  });

  it("streams thought, text and usage as Gemini's server-sent chunks", async () => {
    server = await startGoogleGenAIServer({ responses: [{ thinking: "Hmm.", text: "Two plus two is four." }] });
    const response = await fetch(`${server.url}/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "2 + 2?" }] }], generationConfig: { thinkingConfig: { includeThoughts: true } } }),
    });
    const chunks = (await response.text()).split("\n\n").filter(Boolean).map((event) => JSON.parse(event.replace(/^data: /, "")));
    expect(chunks[0].candidates[0].content.parts).toEqual([{ text: "Hmm.", thought: true }]);
    expect(chunks.slice(1, -1).map((chunk) => chunk.candidates[0].content.parts[0].text).join("")).toBe("Two plus two is four.");
    expect(chunks.at(-1)).toMatchObject({ candidates: [{ finishReason: "STOP" }], usageMetadata: { thoughtsTokenCount: 2 } });
  });
});
