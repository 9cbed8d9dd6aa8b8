import { InvalidArgumentError } from "@agentrx/core";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { describe, expect, it } from "vitest";
import { createToolCallingAgent } from "./create-tool-calling-agent";
import { modelOf, replayingModelOf } from "./test-models";
import { toolImagesFor } from "./tool-images";

const image = { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" };
const url = "data:image/png;base64,iVBORw0KGgo=";
const call = (id: string) => new AIMessage({ content: "", tool_calls: [{ id, name: "chart", args: {} }] });
const result = (id: string, content: ToolMessage["content"]) => new ToolMessage({ tool_call_id: id, name: "chart", content, status: "success" });

describe("toolImagesFor", () => {
  it('"auto" leaves the images of every model but OpenAI\'s in the tool result', () => {
    const values = { steps: [call("a"), result("a", [{ type: "text", text: "A:" }, image])] };
    for (const [mode, model] of [["auto", modelOf("anthropic")], ["auto", modelOf("scripted")], ["tool-result", modelOf("openai", false)]] as const) {
      expect(toolImagesFor(mode, model)?.(values)).toBe(values);
    }
    expect(toolImagesFor("auto", modelOf("openai"))?.(values)).not.toBe(values);
    expect(toolImagesFor("auto", modelOf("azure_openai", false))?.(values)).not.toBe(values);
  });

  it("user-message: images of consecutive tool results follow them in one user message; other messages and values are untouched", () => {
    const prepare = toolImagesFor("auto", modelOf("openai", false));
    const plain = [new HumanMessage("hi"), call("a"), result("a", "text only")];
    const history = [call("a"), result("a", [{ type: "text", text: "A:" }, image]), result("b", [image, { type: "image", fileId: "file_1" }]), new AIMessage("done")];
    const values = { input: "x", plain, chat_history: history, agent_scratchpad: [] };
    const prepared = prepare?.(values) as typeof values;
    expect(prepared.plain).toBe(plain);
    expect(prepared.input).toBe("x");
    expect(values.chat_history).toBe(history); // the caller's values are not changed
    const sent = prepared.chat_history;
    expect(sent.map((message) => message.getType())).toEqual(["ai", "tool", "tool", "human", "ai"]);
    expect(sent[1]).toMatchObject({ content: "A:\n[image 1: in the user message after the tool results]", tool_call_id: "a", name: "chart", status: "success" });
    // An image known only by a provider's file id cannot go in a Chat Completions message: a note says what it was.
    expect(sent[2]?.content).toBe("[image 2: in the user message after the tool results]\n[image: image, id file_1; this agent reads text only]");
    expect(sent[3]?.content).toEqual([
      { type: "text", text: "The images the tools above returned:" },
      { type: "text", text: "Image 1 (from chart, call a):" },
      { type: "image_url", image_url: { url } },
      { type: "text", text: "Image 2 (from chart, call b):" },
      { type: "image_url", image_url: { url } },
    ]);
    expect(prepare?.({ plain })).toEqual({ plain });
  });

  it("Responses API: the blocks become input_text and input_image items", () => {
    const prepare = toolImagesFor("auto", modelOf("openai", true));
    const prepared = prepare?.({ steps: [call("a"), result("a", [{ type: "text", text: "A:" }, image, { type: "json", value: 1 }])] }) as { steps: ToolMessage[] };
    expect(prepared.steps[1]?.content).toEqual([
      { type: "input_text", text: "A:" },
      { type: "input_image", image_url: url, detail: "auto" },
      { type: "input_text", text: '{"type":"json","value":1}' },
    ]);
  });

  it("text: a note in place of each image, for any model", () => {
    const prepare = toolImagesFor("text", modelOf("anthropic"));
    const prepared = prepare?.({ steps: [call("a"), result("a", [{ type: "text", text: "A:" }, image])] }) as { steps: ToolMessage[] };
    expect(prepared.steps[1]?.content).toBe("A:\n[image: image/png, 8 B; this agent reads text only]");
  });
});

describe("toolImagesFor a model that replays a recorded run", () => {
  const values = { steps: [call("a"), result("a", [{ type: "text", text: "A:" }, image])] };
  const reply = (response_metadata: Record<string, unknown>, id?: string) => new AIMessage({ content: "", response_metadata, ...(id === undefined ? {} : { id }) });

  it('"auto" places the images for the model that gave the recorded reply of the call, as its metadata says', async () => {
    const placed = async (recorded: unknown, mode: "auto" | "tool-result" = "auto") => (await toolImagesFor(mode, replayingModelOf(recorded))?.(values)) as { steps: ToolMessage[] };
    // OpenAI's Chat Completions: in a user message after the tool results.
    const completions = await placed(reply({ model_provider: "openai", model_name: "gpt-4o" }, "chatcmpl-1"));
    expect(completions.steps.map((message) => message.getType())).toEqual(["ai", "tool", "human"]);
    expect(completions.steps[1]?.content).toBe("A:\n[image 1: in the user message after the tool results]");
    // OpenAI's Responses API (a response's metadata, or its id): items of the function call's output.
    for (const recorded of [reply({ model_provider: "openai", object: "response" }), reply({ model_provider: "openai" }, "resp_1")]) {
      expect((await placed(recorded)).steps[1]?.content).toEqual([
        { type: "input_text", text: "A:" },
        { type: "input_image", image_url: url, detail: "auto" },
      ]);
      expect((await placed(recorded, "tool-result")).steps[1]?.content).toEqual([
        { type: "input_text", text: "A:" },
        { type: "input_image", image_url: url, detail: "auto" },
      ]);
    }
    // Anthropic and the others, or a reply that does not say: in the tool result, as they are.
    for (const recorded of [reply({ model_provider: "anthropic" }), reply({ model_provider: "google-genai" }), reply({}), undefined]) {
      expect(await placed(recorded)).toBe(values);
    }
  });

  it("for Anthropic's reply, what Anthropic takes no tool result of becomes a note, as it did", async () => {
    const audio = { steps: [call("a"), result("a", [{ type: "audio", mimeType: "audio/wav", data: "UklGRg==" }])] };
    const prepared = (await toolImagesFor("auto", replayingModelOf(reply({ model_provider: "anthropic" })))?.(audio)) as { steps: ToolMessage[] };
    expect(JSON.stringify(prepared.steps[1]?.content)).toContain("Anthropic's API takes no audio in a tool result");
  });

  it("reads the recorded reply only when a tool result has more than text, and falls back to the model's own placement when it cannot", async () => {
    const model = replayingModelOf(reply({ model_provider: "openai" }));
    const plain = { steps: [call("a"), result("a", "text only")], input: "x" };
    expect(toolImagesFor("auto", model)?.(plain)).toBe(plain);
    expect(toolImagesFor("user-message", model)?.(values)).not.toBeInstanceOf(Promise);
    expect(model.reads).toBe(0);
    expect(await toolImagesFor("auto", replayingModelOf(new Error("connection reset")))?.(values)).toBe(values);
  });
});

describe("createToolCallingAgent's toolImages", () => {
  it("refuses an unknown placement, naming the option", () => {
    const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
    const build = () => createToolCallingAgent({ llm: new ScriptedChatModel({ responses: [] }), tools: [], prompt, toolImages: "user" as never });
    expect(build).toThrow(InvalidArgumentError);
    expect(build).toThrow('createToolCallingAgent: `toolImages` must be "auto", "tool-result", "user-message" or "text", got "user".');
  });
});
