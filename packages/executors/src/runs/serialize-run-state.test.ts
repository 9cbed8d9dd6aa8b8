import {
  OpenAIFunctionsAgentOutputParser,
  ReActSingleInputOutputParser,
  SelfAskOutputParser,
  StructuredChatOutputParser,
  ToolCallingAgentOutputParser,
  XMLAgentOutputParser,
} from "@agentrx/agents";
import type { AgentAction, AgentOutput, AgentStep } from "@agentrx/core";
import { RUN_STATE_SCHEMA_VERSION, type RunState, deserializeRunState, serializeRunState } from "@agentrx/executors";
import { AIMessage, HumanMessage, type BaseMessage, mapChatMessagesToStoredMessages } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";

const message = (fields: ConstructorParameters<typeof AIMessage>[0]) => [{ text: "", message: new AIMessage(fields) }];

/** The actions each built-in agent type's parser produces for a typical model output. */
async function actionsByAgentType(): Promise<Record<string, AgentAction[]>> {
  const asActions = (output: AgentOutput): AgentAction[] => (Array.isArray(output) ? output : [output as AgentAction]);
  return {
    "tool-calling (ids, several calls)": asActions(
      await new ToolCallingAgentOutputParser().parseResult(
        message({
          content: "Let me check both.",
          tool_calls: [
            { name: "weather", args: { city: "Paris" }, id: "call_1", type: "tool_call" },
            { name: "weather", args: { city: "Rome", units: ["c", "f"] }, id: "call_2", type: "tool_call" },
          ],
          usage_metadata: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
        }),
      ),
    ),
    "openai-functions": asActions(
      await new OpenAIFunctionsAgentOutputParser().parseResult(
        message({ content: "", additional_kwargs: { function_call: { name: "search", arguments: '{"query":"ünïcode ✓"}' } } }),
      ),
    ),
    react: asActions(await new ReActSingleInputOutputParser({ toolNames: ["search"] }).parse("Thought: I should look.\nAction: search\nAction Input: \"a\\nb\"")),
    "structured-chat": asActions(
      await new StructuredChatOutputParser({ toolNames: ["calc"] }).parse('```json\n{"action": "calc", "action_input": {"a": 1, "b": [2]}}\n```'),
    ),
    xml: asActions(await new XMLAgentOutputParser().parse("<tool>search</tool><tool_input>weather in SF</tool_input>")),
    "self-ask": asActions(await new SelfAskOutputParser().parse("Are follow up questions needed here: Yes.\nFollow up: Who won?")),
  };
}

function stored(messages: BaseMessage[] | undefined) {
  return messages === undefined ? undefined : mapChatMessagesToStoredMessages(messages);
}

/** Compares actions by value, messages by their stored form. */
function comparable(action: AgentAction) {
  const { messageLog, ...rest } = action as AgentAction & { messageLog?: BaseMessage[] };
  return { ...rest, messageLog: stored(messageLog) };
}

function stateWith(actions: AgentAction[]): RunState {
  const steps: AgentStep[] = actions.map((action, index) => ({ action, observation: `result ${index} ✓ \u0000 end` }));
  return {
    schemaVersion: RUN_STATE_SCHEMA_VERSION,
    runId: "run-1",
    threadId: "thread-1",
    inputs: { input: "hi", chat_history: [new HumanMessage("earlier"), new AIMessage("reply")], nested: { $agentrx: "mine", n: 1 } },
    steps,
    iteration: 3,
    turn: { iteration: 2, actions, results: actions.map((action, index) => (index === 0 ? { action, observation: "first" } : undefined)) },
    usage: { input_tokens: 12, output_tokens: 7, total_tokens: 19, input_token_details: { cache_read: 2 } },
    elapsedMs: 1234,
    phase: "tools",
    stopReason: undefined,
    interrupts: [{ id: "int-1", index: 1, tool: "t", toolInput: { a: 1 }, iteration: 2 }],
  };
}

describe("serializeRunState / deserializeRunState", () => {
  it("round-trips every built-in agent type's actions through JSON", async () => {
    for (const [agentType, actions] of Object.entries(await actionsByAgentType())) {
      expect(actions.length, agentType).toBeGreaterThan(0);
      const state = stateWith(actions);
      const json = JSON.parse(JSON.stringify(serializeRunState(state)));
      expect(json.schemaVersion).toBe(RUN_STATE_SCHEMA_VERSION);
      const back = deserializeRunState(json);
      expect(back.steps.map((step) => comparable(step.action)), agentType).toEqual(actions.map(comparable));
      expect(back.steps.map((step) => step.observation)).toEqual(state.steps.map((step) => step.observation));
      expect(back.turn?.actions.map(comparable), agentType).toEqual(actions.map(comparable));
      expect(back.turn?.results.map((result) => result?.observation)).toEqual(state.turn?.results.map((result) => result?.observation));
      expect(back.turn?.results[0]?.action).toBe(back.turn?.actions[0]);
      const { inputs, steps: _steps, turn: _turn, ...rest } = back;
      const { inputs: expectedInputs, steps: _s, turn: _t, ...expectedRest } = state;
      expect(rest).toEqual(expectedRest);
      expect(inputs["nested"]).toEqual(expectedInputs["nested"]);
      expect(stored(inputs["chat_history"] as BaseMessage[])).toEqual(stored(expectedInputs["chat_history"] as BaseMessage[]));
      // A serialized state serializes to the same JSON again.
      expect(serializeRunState(back)).toEqual(json);
    }
  });

  it("keeps tool-call ids and the message log of tool-calling actions", async () => {
    const [first] = (await actionsByAgentType())["tool-calling (ids, several calls)"] as AgentAction[];
    const back = deserializeRunState(JSON.parse(JSON.stringify(serializeRunState(stateWith([first as AgentAction])))));
    const action = back.steps[0]?.action as AgentAction & { toolCallId: string; messageLog: BaseMessage[] };
    expect(action.toolCallId).toBe("call_1");
    expect(action.messageLog[0]).toBeInstanceOf(AIMessage);
    expect((action.messageLog[0] as AIMessage).tool_calls?.map((call) => call.id)).toEqual(["call_1", "call_2"]);
    expect((action.messageLog[0] as AIMessage).usage_metadata?.total_tokens).toBe(15);
  });

  it("writes schemaVersion 2 and reads a state an older release serialized with schemaVersion 1", () => {
    const json = JSON.parse(JSON.stringify(serializeRunState(stateWith([{ tool: "t", toolInput: { a: 1 }, log: "" }]))));
    expect(json.schemaVersion).toBe(2);
    const older = deserializeRunState({ ...json, schemaVersion: 1 });
    expect(older).toEqual(deserializeRunState(json));
    expect(older.schemaVersion).toBe(2);
    expect(deserializeRunState({ schemaVersion: 1, runId: "r1", inputs: { input: "hi" }, steps: [], iteration: 0, elapsedMs: 0, phase: "agent" })).toMatchObject({ runId: "r1", steps: [], phase: "agent" });
    // Serialized again, it is this release's state.
    expect(serializeRunState(older)).toEqual(json);
  });

  it("refuses an unknown schemaVersion and a malformed state with a clear error", () => {
    const json = serializeRunState(stateWith([{ tool: "t", toolInput: {}, log: "" }]));
    expect(() => deserializeRunState({ ...json, schemaVersion: 99 })).toThrow(/schemaVersion 99 is not supported \(this version of @agentrx\/executors reads 1, 2\)/);
    expect(() => deserializeRunState({ ...json, schemaVersion: 3 })).toThrow(/schemaVersion 3 is not supported/);
    expect(() => deserializeRunState({ ...json, schemaVersion: 0 })).toThrow(/schemaVersion 0 is not supported/);
    expect(() => deserializeRunState({ ...json, phase: "dancing" })).toThrow(/known phase/);
    expect(() => deserializeRunState(null)).toThrow(/expected a serialized run state/);
  });

  it("reports a circular reference in the inputs instead of overflowing", () => {
    const loop: Record<string, unknown> = {};
    loop["self"] = loop;
    const state = stateWith([]);
    state.inputs = { loop };
    expect(() => serializeRunState(state)).toThrow(/inputs\.loop\.self contains a circular reference/);
  });
});
