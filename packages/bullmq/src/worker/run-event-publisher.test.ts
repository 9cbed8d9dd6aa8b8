import type { AgentStreamEvent, StoredRunEvent } from "@agentrx/executors";
import { describe, expect, it } from "vitest";
import type { WireItem } from "../internal/wire";
import { RunEventPublisher } from "./run-event-publisher";

const at = 1_700_000_000_000;
const start: AgentStreamEvent = { type: "start", runId: "r", inputs: {}, resumed: false, at };
const usage: AgentStreamEvent = { type: "usage", iteration: 0, usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 }, at };
const token = (text: string): AgentStreamEvent => ({ type: "token", iteration: 0, text, at });
const stored = (seq: number, type: string): StoredRunEvent => ({ seq, type, at, data: { type, at } });

/** Each message as a list of short labels: a seq and type, `live:<text>@<offset>/<segment>`, or `sub:<type>`. */
function labels(messages: WireItem[][]): string[][] {
  return messages.map((items) =>
    items.map((item) => {
      if ("live" in item) return `live:${item.live.text}@${item.live.offset}/${item.live.segment}`;
      if ("sub" in item) return `sub:${String(item.sub.data["type"])}<${item.sub.path.join("/")}>`;
      if ("end" in item) return "end";
      return `${item.seq}:${item.type}${"data" in item ? "" : "(stub)"}`;
    }),
  );
}

describe("RunEventPublisher", () => {
  it("holds a live token until the events emitted before it are written, then publishes it right after them", () => {
    const sent: WireItem[][] = [];
    const publisher = new RunEventPublisher((items) => sent.push(items));
    publisher.emitted(start);
    publisher.emitted(token("Hi"));
    publisher.emitted(token(" there"));
    expect(sent).toEqual([]);
    publisher.written([stored(1, "start")]);
    publisher.emitted(token("!"));
    publisher.emitted(usage);
    publisher.written([stored(2, "token"), stored(3, "model_call"), stored(4, "usage")]);
    expect(labels(sent)).toEqual([
      ["1:start", "live:Hi@0/1", "live: there@2/1"],
      ["live:!@8/1"],
      ["2:token", "3:model_call(stub)", "4:usage"],
    ]);
  });

  it("publishes an output written before it is emitted, and sub-run events live in their place", () => {
    const sent: WireItem[][] = [];
    const publisher = new RunEventPublisher((items) => sent.push(items));
    publisher.emitted(start);
    publisher.emitted({ ...token("x"), subRun: ["helper"] });
    publisher.written([stored(1, "start"), stored(2, "output")]);
    publisher.emitted({ type: "output", runId: "r", output: "", returnValues: {}, messages: [], stopReason: "finish", at });
    expect(labels(sent)).toEqual([["1:start", "sub:token<helper>", "2:output"]]);
  });

  it("publishes a sub-run's recorded events once, from the write, and keeps the run's own tokens behind them", () => {
    const sent: WireItem[][] = [];
    const publisher = new RunEventPublisher((items) => sent.push(items));
    publisher.emitted(start);
    publisher.written([stored(1, "start")]);
    const subStep = { type: "step", iteration: 0, subRun: ["helper"], subRunCallIds: ["call-1"] } as unknown as AgentStreamEvent;
    publisher.emitted(subStep);
    publisher.emitted({ ...token("y"), subRun: ["helper"], subRunCallIds: ["call-1"] });
    publisher.emitted(token("z"));
    // Nothing live may pass the sub-run's step before it is written.
    expect(labels(sent)).toEqual([["1:start"]]);
    publisher.written([stored(2, "step")]);
    expect(labels(sent)).toEqual([["1:start"], ["2:step", "sub:token<helper>", "live:z@0/1"]]);
    const sub = sent[1]?.[1] as { sub: { callIds?: string[] } };
    expect(sub.sub.callIds).toEqual(["call-1"]);
  });
});
