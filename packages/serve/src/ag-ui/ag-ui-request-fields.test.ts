import { HttpAgent } from "@ag-ui/client";
import { MemoryRunStore } from "@agentrx/runs";
import { afterEach, describe, expect, it } from "vitest";
import { closeLoopback, startLoopback } from "../../../runs/src/sse/loopback-test-server";
import { ANSWER, weatherExecutor } from "../test-helpers/weather-executor";
import { createAGUIHandler } from "./create-ag-ui-handler";

// What createAGUIHandler does with the fields of a RunAgentInput it cannot carry to a run: a
// request it cannot answer as asked is refused, naming why, never run on something else
// (docs/serving.md, "What a request carries").

afterEach(closeLoopback);

const post = (url: string, body: unknown) => fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
const eventsOf = (text: string) => text.split("\n\n").filter((frame) => frame.startsWith("data: ")).map((frame) => JSON.parse(frame.slice("data: ".length)) as { type: string; result?: unknown; outcome?: { interrupts?: { id: string }[] } });
const HOW = "The handler's default `inputs` run the executor on the text of the last message, which must be a user message; pass `inputs` to map other requests (see docs/serving.md).";

describe("createAGUIHandler, with its default inputs", () => {
  it.each([
    ["no message at all", [], `\`messages\` is empty: there is no user message to answer. ${HOW}`],
    [
      "the assistant's answer last (nothing new to answer: not the earlier question again)",
      [{ id: "u1", role: "user", content: "Weather in Paris?" }, { id: "a1", role: "assistant", content: "Sunny." }],
      `\`messages[1]\`, the last message, is a message of role \`assistant\`, not a new user message. ${HOW}`,
    ],
    [
      "a frontend tool's result last",
      [{ id: "u1", role: "user", content: "Locate me." }, { id: "a1", role: "assistant", toolCalls: [{ id: "c1", type: "function", function: { name: "locate", arguments: "{}" } }] }, { id: "t1", role: "tool", toolCallId: "c1", content: "Paris" }],
      `\`messages[2]\`, the last message, is a tool's result (the executor's tools run on the server; a frontend tool's result cannot be given to a run). ${HOW}`,
    ],
    [
      "an image in the user's message",
      [{ id: "u1", role: "user", content: [{ type: "text", text: "What is this?" }, { type: "binary", mimeType: "image/png", data: "iVBORw0KGgo=" }] }],
      `\`messages[0].content[1]\` is a \`binary\` part: the default \`inputs\` take text only, and would drop it. ${HOW}`,
    ],
    ["a user message without text", [{ id: "u1", role: "user", content: "  " }], `\`messages[0]\`, the last user message, has no text to answer. ${HOW}`],
  ])("refuses a request with %s (400, naming it), and starts no run", async (_name, messages, reason) => {
    const store = new MemoryRunStore();
    const url = await startLoopback(createAGUIHandler(weatherExecutor({ store })));
    const response = await post(url, { threadId: "t", runId: "r", messages, tools: [], context: [] });
    expect([response.status, await response.text()]).toEqual([400, `${reason}\n`]);
    expect(await store.getRun("r")).toBeUndefined();
  });

  it("answers the last user message given as text parts", async () => {
    const store = new MemoryRunStore();
    const url = await startLoopback(createAGUIHandler(weatherExecutor({ store })));
    const content = [{ type: "text", text: "Weather and time " }, { type: "text", text: "in Paris?" }];
    const events = eventsOf(await (await post(url, { threadId: "t", runId: "r", messages: [{ id: "u1", role: "user", content }] })).text());
    expect(events.at(-1)).toMatchObject({ type: "RUN_FINISHED", result: ANSWER });
    expect(await store.getRun("r")).toMatchObject({ inputs: { input: "Weather and time in Paris?" } });
  });

  it("leaves the messages to `inputs` when it is given: a request the default would refuse runs as `inputs` maps it", async () => {
    const url = await startLoopback(createAGUIHandler(weatherExecutor(), { inputs: (input) => ({ input: `Follow up on ${input.messages.length} messages: weather and time in Paris?` }) }));
    const messages = [{ id: "u1", role: "user", content: "Weather?" }, { id: "a1", role: "assistant", content: "Where?" }];
    expect(eventsOf(await (await post(url, { threadId: "t", runId: "r", messages })).text()).at(-1)).toMatchObject({ type: "RUN_FINISHED", result: ANSWER });
  });
});

describe("createAGUIHandler, resume entries", () => {
  it.each([
    ["no payload", undefined, "none"],
    ["an `approved` that is not a boolean", { approved: "yes" }, '{"approved":"yes"}'],
    ["a payload it cannot read", { ok: true }, '{"ok":true}'],
  ])("refuses a resolved entry with %s (400), rather than taking it as a rejection; the run stays paused and takes a readable one", async (_name, payload, shown) => {
    const store = new MemoryRunStore();
    const url = await startLoopback(createAGUIHandler(weatherExecutor({ approval: true, store })));
    const agent = new HttpAgent({ url, threadId: "thread-resume" });
    agent.messages = [{ id: "u1", role: "user", content: "Weather and time in Paris?" }];
    await agent.runAgent({ runId: "run-r" });
    const interruptId = (agent.state as { agentrx: { interrupts: { id: string }[] } }).agentrx.interrupts[0]?.id ?? "";
    const resume = (entry: Record<string, unknown>) => post(url, { threadId: "thread-resume", runId: `run-r-${crypto.randomUUID()}`, messages: agent.messages, state: agent.state, resume: [{ interruptId, status: "resolved", ...entry }] });

    const refused = await resume(payload === undefined ? {} : { payload });
    expect([refused.status, await refused.text()]).toEqual([
      400,
      `\`resume[0].payload\` must say what was decided: { approved: true }, { approved: false, reason?: string }, or a decision ("approve", { type: "reject", message? }, { type: "edit", toolInput }); got ${shown}.\n`,
    ]);
    expect((await store.getRun("run-r"))?.status).toBe("interrupted");
    expect(eventsOf(await (await resume({ payload: { approved: true } })).text()).at(-1)).toMatchObject({ type: "RUN_FINISHED", result: ANSWER });
  });
});

describe("createAGUIHandler, resume entries an attacker or a buggy client sends", () => {
  it("refuses two entries for one interrupt (400) rather than letting the last one win, and an interrupt id such as __proto__ (400) rather than dropping it; the run stays paused", async () => {
    const store = new MemoryRunStore();
    const url = await startLoopback(createAGUIHandler(weatherExecutor({ approval: true, store })));
    const agent = new HttpAgent({ url, threadId: "thread-twice" });
    agent.messages = [{ id: "u1", role: "user", content: "Weather and time in Paris?" }];
    await agent.runAgent({ runId: "run-t" });
    const interruptId = (agent.state as { agentrx: { interrupts: { id: string }[] } }).agentrx.interrupts[0]?.id ?? "";
    const resume = (entries: unknown[]) => post(url, { threadId: "thread-twice", runId: `run-t-${crypto.randomUUID()}`, messages: agent.messages, state: agent.state, resume: entries });

    const twice = await resume([{ interruptId, status: "resolved", payload: { approved: true } }, { interruptId, status: "cancelled" }]);
    expect([twice.status, await twice.text()]).toEqual([400, `\`resume[1]\` answers the interrupt "${interruptId}" that \`resume[0]\` answers already: give one entry per interrupt.\n`]);
    const proto = await resume([{ interruptId: "__proto__", status: "resolved", payload: { type: "reject" } }]);
    expect(proto.status).toBe(400);
    expect(await proto.text()).toMatch(/has no interrupt "__proto__" waiting for a decision/);
    expect((await store.getRun("run-t"))?.status).toBe("interrupted");
    expect(eventsOf(await (await resume([{ interruptId, status: "resolved", payload: { approved: true } }])).text()).at(-1)).toMatchObject({ type: "RUN_FINISHED", result: ANSWER });
  });
});
