// The reasoning of compatible servers sent back as it came: OpenRouter's `reasoning` in
// `reasoning`, DeepSeek's `reasoning_content` in `reasoning_content`, and OpenRouter's
// `reasoning_details` (Gemini's thought signatures, Anthropic's signed thinking) unchanged.
import { type AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { setup, streamAll } from "./test-helpers";

const THOUGHT = "The user wants Paris: call the weather tool.";
const DETAILS = [
  { type: "reasoning.text", text: "The user wants Paris: call the weather tool.", signature: "sig-abc", format: "anthropic-claude-v1", index: 0 },
  { type: "reasoning.encrypted", data: "c2lnbmF0dXJl", id: "tool_weather_1", format: "google-gemini-v1", index: 1 },
];
const weatherCall = { name: "weather", arguments: { city: "Paris" }, id: "call_1" };

type Mode = "invoke" | "stream" | "streaming invoke";
const MODES: Mode[] = ["invoke", "stream", "streaming invoke"];

/** The model's first reply, got as `mode` says. */
async function firstReply(model: Awaited<ReturnType<typeof setup>>["model"], mode: Mode): Promise<AIMessage> {
  if (mode === "stream") return (await streamAll(model, "Weather in Paris?")).reduce((all, chunk) => all.concat(chunk)) as unknown as AIMessage;
  return model.invoke("Weather in Paris?");
}

/** Sends the first reply back with its tool result, and returns the assistant message of that second request. */
async function sentBack(server: Awaited<ReturnType<typeof setup>>["server"], model: Awaited<ReturnType<typeof setup>>["model"], reply: AIMessage) {
  await model.invoke([new HumanMessage("Weather in Paris?"), reply, new ToolMessage({ content: "Sunny.", tool_call_id: "call_1" })]);
  return server.chatRequests()[1].messages[1] as Record<string, unknown>;
}

describe("OpenAIChatModel sends reasoning back in the field it came in", () => {
  for (const mode of MODES) {
    it(`sends OpenRouter's \`reasoning\` back as \`reasoning\` (${mode})`, async () => {
      const { server, model } = await setup(
        { reasoningField: "reasoning", requireReasoningBack: true, responses: [{ reasoning: THOUGHT, toolCalls: [weatherCall] }, "Sunny in Paris."] },
        { streaming: mode === "streaming invoke" },
      );
      const reply = await firstReply(model, mode);
      expect(reply.additional_kwargs).toMatchObject({ reasoning_content: THOUGHT, reasoning_field: "reasoning" });
      const assistant = await sentBack(server, model, reply);
      expect(assistant.reasoning).toBe(THOUGHT);
      expect(assistant).not.toHaveProperty("reasoning_content");
      expect(assistant).not.toHaveProperty("reasoning_field");
      expect(server.rejections).toEqual([]);
    });

    it(`still sends DeepSeek's \`reasoning_content\` back as \`reasoning_content\` (${mode})`, async () => {
      const { server, model } = await setup(
        { requireReasoningBack: true, responses: [{ reasoning: THOUGHT, toolCalls: [weatherCall] }, "Sunny in Paris."] },
        { streaming: mode === "streaming invoke" },
      );
      const reply = await firstReply(model, mode);
      expect(reply.additional_kwargs.reasoning_content).toBe(THOUGHT);
      expect(reply.additional_kwargs).not.toHaveProperty("reasoning_field");
      const assistant = await sentBack(server, model, reply);
      expect(assistant.reasoning_content).toBe(THOUGHT);
      expect(assistant).not.toHaveProperty("reasoning");
      expect(server.rejections).toEqual([]);
    });

    it(`keeps OpenRouter's \`reasoning_details\` and sends them back unchanged (${mode})`, async () => {
      const { server, model } = await setup(
        { reasoningField: "reasoning", responses: [{ reasoning: THOUGHT, reasoningDetails: DETAILS, toolCalls: [weatherCall] }, "Sunny in Paris."] },
        { streaming: mode === "streaming invoke" },
      );
      const reply = await firstReply(model, mode);
      expect(reply.additional_kwargs.reasoning_details).toEqual(DETAILS);
      const assistant = await sentBack(server, model, reply);
      expect(assistant.reasoning_details).toEqual(DETAILS);
      expect(assistant.reasoning).toBe(THOUGHT);
    });
  }

  it("assembles streamed reasoning_details deltas (OpenRouter's layout) into the details of the whole message", async () => {
    const base = { id: "gen-1", object: "chat.completion.chunk", created: 0, model: "m" };
    const chunk = (delta: object, finishReason: string | null = null) => ({ ...base, choices: [{ index: 0, delta, finish_reason: finishReason }] });
    const deltas = [
      chunk({ role: "assistant", content: "", reasoning: "Think ", reasoning_details: [{ type: "reasoning.text", text: "Think ", format: "anthropic-claude-v1", index: 0 }] }),
      chunk({ content: "", reasoning: "first.", reasoning_details: [{ type: "reasoning.text", text: "first.", format: "anthropic-claude-v1", index: 0 }] }),
      chunk({ content: "", reasoning_details: [{ type: "reasoning.text", signature: "sig-1", format: "anthropic-claude-v1", index: 0 }] }),
      chunk({ content: "", reasoning_details: [{ type: "reasoning.encrypted", data: "opaque", format: "anthropic-claude-v1", index: 1 }] }),
      chunk({ content: "Done." }),
      chunk({}, "stop"),
    ];
    const raw = `${deltas.map((event) => `data: ${JSON.stringify(event)}\n\n`).join("")}data: [DONE]\n\n`;
    const { model } = await setup({ responses: [{ raw, contentType: "text/event-stream" }] }, { streaming: true });
    const message = await model.invoke("go");
    expect(message.additional_kwargs.reasoning_content).toBe("Think first.");
    expect(message.additional_kwargs.reasoning_details).toEqual([
      { type: "reasoning.text", text: "Think first.", signature: "sig-1", format: "anthropic-claude-v1", index: 0 },
      { type: "reasoning.encrypted", data: "opaque", format: "anthropic-claude-v1", index: 1 },
    ]);
  });

  it("sends reasoning_details back with a turn without tool calls too, and its reasoning text only with tool calls", async () => {
    const { server, model } = await setup({ reasoningField: "reasoning", responses: [{ reasoning: THOUGHT, reasoningDetails: DETAILS, content: "Hello." }, "ok"] });
    const reply = await model.invoke("Hi");
    await model.invoke([new HumanMessage("Hi"), reply, new HumanMessage("Again")]);
    const assistant = server.chatRequests()[1].messages[1];
    expect(assistant).toEqual({ role: "assistant", content: "Hello.", reasoning_details: DETAILS });
  });
});
