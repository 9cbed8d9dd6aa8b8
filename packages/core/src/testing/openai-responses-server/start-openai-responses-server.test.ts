import { afterEach, describe, expect, it } from "vitest";
import { type OpenAIResponsesServer, startOpenAIResponsesServer } from "./start-openai-responses-server";

let server: OpenAIResponsesServer | undefined;
afterEach(async () => server?.close());

async function post(body: Record<string, unknown>) {
  const response = await fetch(`${server?.baseURL}/responses`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "o4-mini", ...body }),
  });
  return { status: response.status, body: (await response.json()) as any };
}

describe("startOpenAIResponsesServer", () => {
  it("answers reasoning then calls, and takes them back only in that order", async () => {
    server = await startOpenAIResponsesServer({
      responses: [{ reasoning: "Both.", toolCalls: [{ name: "weather", arguments: { city: "Paris" } }, { name: "weather", arguments: { city: "Rome" } }] }, "ok", "ok"],
    });
    const first = await post({ input: "Weather?", reasoning: { summary: "auto" } });
    const [reasoning, call1, call2] = first.body.output;
    expect(reasoning).toMatchObject({ type: "reasoning", summary: [{ type: "summary_text", text: "Both." }] });
    expect(first.body.usage.output_tokens_details.reasoning_tokens).toBeGreaterThan(0);
    const outputs = [call1, call2].map((call: { call_id: string }) => ({ type: "function_call_output", call_id: call.call_id, output: "Sunny." }));
    expect((await post({ input: [{ role: "user", content: "Weather?" }, reasoning, call1, call2, ...outputs] })).status).toBe(200);
    const withoutReasoning = await post({ input: [{ role: "user", content: "Weather?" }, call1, call2, ...outputs] });
    expect(withoutReasoning.body.error.message).toBe("Item 'fc_loopback_0_0' of type 'function_call' was provided without its required 'reasoning' item: 'rs_loopback_0'.");
    const reasoningAlone = await post({ input: [{ role: "user", content: "Weather?" }, reasoning, call2, ...outputs.slice(1)] });
    expect(reasoningAlone.body.error.message).toBe("Item 'rs_loopback_0' of type 'reasoning' was provided without its required following item.");
    const unanswered = await post({ input: [{ role: "user", content: "Weather?" }, reasoning, call1, call2, outputs[0]] });
    expect(unanswered.body.error.message).toBe(`No tool output found for function call ${call2.call_id}.`);
    expect(server.rejections).toHaveLength(3);
  });

  it("checks encrypted reasoning, and reports cached tokens for a repeated long prefix", async () => {
    server = await startOpenAIResponsesServer({ responses: [{ reasoning: "Hmm.", text: "a" }, "b"] });
    const instructions = "Be helpful. ".repeat(600);
    const first = await post({ instructions, input: "one", include: ["reasoning.encrypted_content"], store: false });
    const reasoning = first.body.output[0];
    expect(reasoning.encrypted_content).toMatch(/^loopback:/);
    const forged = await post({ instructions, input: [{ role: "user", content: "one" }, { ...reasoning, encrypted_content: "x" }, first.body.output[1], { role: "user", content: "two" }] });
    expect(forged.body.error.message).toBe("The encrypted content for item rs_loopback_0 could not be verified.");
    const second = await post({ instructions, input: [{ role: "user", content: "one" }, reasoning, first.body.output[1], { role: "user", content: "two" }] });
    expect(second.status).toBe(200);
    expect(second.body.usage.input_tokens_details.cached_tokens).toBeGreaterThanOrEqual(1024);
    expect(second.body.usage.input_tokens_details.cached_tokens % 128).toBe(0);
  });

  it("streams the response as the Responses API's events", async () => {
    server = await startOpenAIResponsesServer({ responses: [{ reasoning: "Hmm.", text: "Hello there." }] });
    const response = await fetch(`${server.baseURL}/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "o4-mini", input: "hi", stream: true }),
    });
    const names = (await response.text()).split("\n").filter((line) => line.startsWith("event: ")).map((line) => line.slice(7));
    expect(names[0]).toBe("response.created");
    expect(names.at(-1)).toBe("response.completed");
    expect(names).toContain("response.output_text.delta");
  });
});
