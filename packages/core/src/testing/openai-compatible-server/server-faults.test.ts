import { describe, expect, it } from "vitest";
import { start } from "./test-helpers";


function chat(url: string, body: Record<string, unknown> = {}, signal?: AbortSignal) {
  return fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    ...(signal ? { signal } : {}),
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

describe("startOpenAICompatibleServer: raw replies and stalls", () => {
  it("sends a raw reply as is, with its status, content type and headers", async () => {
    const { url } = await start({ responses: [{ raw: "<html>Bad gateway</html>", contentType: "text/html", headers: { "x-served-by": "proxy" } }] });
    const response = await chat(url);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html");
    expect(response.headers.get("x-served-by")).toBe("proxy");
    expect(await response.text()).toBe("<html>Bad gateway</html>");
  });

  it("stalls a non-streamed body after the given bytes until the client gives up", async () => {
    const { url, requests } = await start({ responses: [{ content: "hello", stallAfterBytes: 12 }] });
    const controller = new AbortController();
    const response = await chat(url, {}, controller.signal);
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe('{"id":"chatc');
    controller.abort();
    await requests[0]?.done;
    expect(requests[0]?.clientDisconnected).toBe(true);
  });

  it("delivers every event before a dropped connection", async () => {
    const { url } = await start({ responses: [{ content: "a b c d e", dropAfterChunks: 3 }] });
    const response = await chat(url, { stream: true });
    const reader = response.body!.getReader();
    let text = "";
    await expect(
      (async () => {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          text += new TextDecoder().decode(value);
        }
      })(),
    ).rejects.toThrow();
    expect(text.split("\n\n").filter(Boolean)).toHaveLength(3);
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
