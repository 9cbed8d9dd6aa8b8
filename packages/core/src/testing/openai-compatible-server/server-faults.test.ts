import { describe, expect, it } from "vitest";
import { start } from "./test-helpers";


function chat(url: string, body: Record<string, unknown> = {}) {
  return fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }], ...body }),
  });
}

/** The `data:` payloads of an SSE body. */
async function events(response: Response): Promise<string[]> {
  return (await response.text())
    .split("\n\n")
    .filter(Boolean)
    .map((event) => event.replace(/^data: /, ""));
}

describe("startOpenAICompatibleServer: addresses, concurrency and exhaustion", () => {
  it("does not answer on another address than 127.0.0.1", async () => {
    const { url } = await start({ responses: [] });
    const port = new URL(url).port;
    expect((await fetch(`${url}/v1/models`)).status).toBe(200);
    await expect(fetch(`http://127.0.0.2:${port}/v1/models`)).rejects.toThrow();
  });

  it("serves concurrent requests, each its own reply, recording every body", async () => {
    const { url, chatRequests } = await start({ responses: ["a", "b", "c", "d", "e"], tokenDelayMs: 5 });
    const contents = await Promise.all(
      ["1", "2", "3", "4", "5"].map(async (n) => {
        const data = await events(await chat(url, { stream: true, user: n }));
        return data
          .slice(0, -1)
          .map((payload) => JSON.parse(payload).choices[0]?.delta.content ?? "")
          .join("");
      }),
    );
    expect([...contents].sort()).toEqual(["a", "b", "c", "d", "e"]);
    expect(chatRequests().map((body) => body.user).sort()).toEqual(["1", "2", "3", "4", "5"]);
  });

  it("repeats the last reply when told to", async () => {
    const { url } = await start({ responses: ["a", "b"], onExhausted: "repeat-last" });
    const contents = [];
    for (let i = 0; i < 4; i++) contents.push((await (await chat(url)).json()).choices[0].message.content);
    expect(contents).toEqual(["a", "b", "b", "b"]);
  });
});

describe("startOpenAICompatibleServer: stream faults and refusals", () => {
  it("sends an error event mid-stream on cue", async () => {
    const { url } = await start({ responses: [{ content: "a b c", errorAfterChunks: 2, errorMessage: "Overloaded." }] });
    const data = await events(await chat(url, { stream: true }));
    expect(data).toHaveLength(3);
    expect(JSON.parse(data[2] as string)).toEqual({
      error: { message: "Overloaded.", type: "server_error", param: null, code: null },
    });
  });

  it("ends a stream early and cleanly, or without [DONE], on cue", async () => {
    const { url } = await start({ responses: [{ content: "a b c d", endAfterChunks: 2 }, { content: "a b", omitDone: true }] });
    const short = await events(await chat(url, { stream: true }));
    expect(short).toHaveLength(2);
    expect(short.map((payload) => JSON.parse(payload).choices[0].finish_reason)).toEqual([null, null]);
    const whole = await events(await chat(url, { stream: true }));
    expect(whole).not.toContain("[DONE]");
    expect(JSON.parse(whole.at(-1) as string).choices[0].finish_reason).toBe("stop");
  });

  it("sends a refusal as message.refusal, and streamed as refusal deltas", async () => {
    const { url } = await start({ responses: [{ refusal: "I can't do that." }], onExhausted: "repeat-last" });
    const message = (await (await chat(url)).json()).choices[0].message;
    expect(message).toMatchObject({ content: null, refusal: "I can't do that." });
    const chunks = (await events(await chat(url, { stream: true }))).slice(0, -1).map((payload) => JSON.parse(payload));
    const deltas = chunks.flatMap((chunk) => (chunk.choices[0]?.delta.refusal ? [chunk.choices[0].delta.refusal] : []));
    expect(deltas).toEqual(["I ", "can't ", "do ", "that."]);
  });
});
