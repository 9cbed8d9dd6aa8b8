import { describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../../errors/invalid-argument-error";
import { startOpenAICompatibleServer } from "./start-openai-compatible-server";
import { start } from "./test-helpers";


function post(url: string, body: string) {
  return fetch(`${url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body });
}

const user = { role: "user", content: "weather?" };
const assistant = {
  role: "assistant",
  content: null,
  tool_calls: [
    { id: "call_a", type: "function", function: { name: "w", arguments: "{}" } },
    { id: "call_b", type: "function", function: { name: "w", arguments: "{}" } },
  ],
};

describe("the loopback server rejects what the OpenAI API rejects", () => {
  it("answers invalid JSON with a 400 in OpenAI's error format, without using up the script", async () => {
    const { url } = await start({ responses: ["first"] });
    const bad = await post(url, '{"model": "m", "messages": [');
    expect(bad.status).toBe(400);
    const { error } = await bad.json();
    expect(error).toMatchObject({ type: "invalid_request_error", param: null, code: null });
    expect(error.message).toMatch(/^We could not parse the JSON body of your request \(.+\)\./);
    const good = await post(url, JSON.stringify({ model: "m", messages: [user] }));
    expect((await good.json()).choices[0].message.content).toBe("first");
  });

  it.each([
    ["no model", { messages: [user] }, "model", "you must provide a model parameter"],
    ["no messages", { model: "m" }, "messages", "Missing required parameter: 'messages'."],
    ["stream_options without stream", { model: "m", messages: [user], stream_options: { include_usage: true } }, "stream_options", "only allowed when 'stream' is enabled"],
    ["tool_choice without tools", { model: "m", messages: [user], tool_choice: "auto" }, "tool_choice", "only allowed when 'tools' are specified"],
    ["parallel_tool_calls without tools", { model: "m", messages: [user], parallel_tool_calls: false, tools: [] }, "parallel_tool_calls", "only allowed when 'tools'"],
    ["an unknown role", { model: "m", messages: [{ role: "bot", content: "x" }] }, "messages.[0].role", "Invalid value: 'bot'"],
    [
      "a tool message without tool_call_id",
      { model: "m", messages: [user, assistant, { role: "tool", content: "sunny" }] },
      "messages.[2].tool_call_id",
      "Missing required parameter: 'messages.[2].tool_call_id'.",
    ],
    [
      "tool calls left without a result",
      { model: "m", messages: [user, assistant, { role: "tool", tool_call_id: "call_a", content: "sunny" }, user] },
      "messages.[1].role",
      "did not have response messages: call_b",
    ],
    [
      "a tool result that answers no tool call",
      { model: "m", messages: [user, { role: "tool", tool_call_id: "call_z", content: "sunny" }] },
      "messages.[1].role",
      "must be a response to a preceeding message with 'tool_calls'",
    ],
  ])("400 for %s", async (_case, body, param, message) => {
    const { url, requests } = await start({ responses: ["never"] });
    const response = await post(url, JSON.stringify(body));
    expect(response.status).toBe(400);
    const { error } = await response.json();
    expect(error.param).toBe(param);
    expect(error.message).toContain(message);
    expect(requests).toHaveLength(1);
  });

  it.each([
    ["a LangChain file block as it is", { type: "file", mimeType: "application/pdf", data: "JVBERi0=" }, "messages.[0].content[1].file", "Missing required parameter: 'messages.[0].content[1].file'."],
    ["file_data without a filename", { type: "file", file: { file_data: "data:application/pdf;base64,JVBERi0=" } }, "messages.[0].content[1].file.file_id", "Missing required parameter"],
    ["an image_url without url", { type: "image_url", image_url: { detail: "low" } }, "messages.[0].content[1].image_url.url", "Missing required parameter"],
    ["an image_url given as a string", { type: "image_url", image_url: "https://example.com/a.png" }, "messages.[0].content[1].image_url.url", "Missing required parameter"],
    ["input_audio without data", { type: "input_audio", input_audio: { format: "wav" } }, "messages.[0].content[1].input_audio.data", "Missing required parameter"],
    ["input_audio of another format", { type: "input_audio", input_audio: { data: "T2dnUw==", format: "ogg" } }, "messages.[0].content[1].input_audio.format", "Invalid value: 'ogg'. Supported values are: 'wav' and 'mp3'."],
  ])("400 for a content part without its required fields: %s", async (_case, part, param, message) => {
    const { url } = await start({ responses: ["never"] });
    const response = await post(url, JSON.stringify({ model: "m", messages: [{ role: "user", content: [{ type: "text", text: "What is this?" }, part] }] }));
    expect(response.status).toBe(400);
    const { error } = await response.json();
    expect(error.param).toBe(param);
    expect(error.message).toContain(message);
  });

  it("accepts every content part in OpenAI's shape", async () => {
    const { url } = await start({ responses: ["ok"] });
    const content = [
      { type: "text", text: "Compare" },
      { type: "image_url", image_url: { url: "https://example.com/a.png", detail: "low" } },
      { type: "input_audio", input_audio: { data: "UklGRg==", format: "wav" } },
      { type: "file", file: { file_data: "data:application/pdf;base64,JVBERi0=", filename: "a.pdf" } },
      { type: "file", file: { file_id: "file-abc" } },
    ];
    expect((await post(url, JSON.stringify({ model: "m", messages: [{ role: "user", content }] }))).status).toBe(200);
  });

  it("accepts a complete tool-call exchange, and anything with validateRequests: false", async () => {
    const complete = [
      user,
      assistant,
      { role: "tool", tool_call_id: "call_a", content: "sunny" },
      { role: "tool", tool_call_id: "call_b", content: "rainy" },
    ];
    const { url } = await start({ responses: ["ok"] });
    expect((await post(url, JSON.stringify({ model: "m", messages: complete }))).status).toBe(200);
    const lenient = await start({ responses: ["anything goes"], validateRequests: false });
    const response = await post(lenient.url, JSON.stringify({ messages: [{ role: "tool", content: "x" }] }));
    expect((await response.json()).choices[0].message.content).toBe("anything goes");
  });

  it("rejects a validateRequests option that is not a boolean", async () => {
    await expect(startOpenAICompatibleServer({ responses: [], validateRequests: "no" as never })).rejects.toSatisfy(
      (error: unknown) => InvalidArgumentError.isInstance(error) && error.argument === "validateRequests",
    );
  });
});
