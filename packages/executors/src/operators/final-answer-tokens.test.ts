import { EARLY_STOP_OUTPUT, InvalidArgumentError } from "@agentrx/core";
import { lastValueFrom, of, toArray } from "rxjs";
import { TestScheduler } from "rxjs/testing";
import { describe, expect, it } from "vitest";
import type { AgentStreamEvent } from "../executor/events";
import { finalAnswerTokens } from "./final-answer-tokens";
import { actionEvent, outputEvent, stepEvent, tokenEvent, usageEvent } from "./test-events";

const scheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

const collect = (events: AgentStreamEvent[], options?: Parameters<typeof finalAnswerTokens>[0]) =>
  lastValueFrom(of(...events).pipe(finalAnswerTokens(options), toArray()));

describe("finalAnswerTokens (buffered)", () => {
  it("drops the tokens of calls that ended in tool calls and releases the answer's at the output", () => {
    scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<AgentStreamEvent>("a-b-c-d-e-f-g-(h|)", {
        a: tokenEvent(0, "Let me "),
        b: tokenEvent(0, "check."),
        c: actionEvent(0, "search"),
        d: stepEvent(0, "search", "sunny"),
        e: tokenEvent(1, "It is "),
        f: tokenEvent(1, "sunny."),
        g: usageEvent(1, 10, 3),
        h: outputEvent("It is sunny."),
      });
      expectObservable(source.pipe(finalAnswerTokens())).toBe("--------------(xy|)", {
        x: "It is ",
        y: "sunny.",
      });
      expectSubscriptions(source.subscriptions).toBe("^-------------!");
    });
  });

  it("keeps no state across subscriptions: each subscription sees its own run", () => {
    scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<AgentStreamEvent>("a-b-(c|)", {
        a: tokenEvent(0, "A: It is "),
        b: tokenEvent(0, "sunny."),
        c: outputEvent("It is sunny."),
      });
      for (const options of [{}, { answerPrefix: "A:" }]) {
        const answer = source.pipe(finalAnswerTokens(options));
        const expected = "answerPrefix" in options ? { x: "It is", y: " sunny." } : { x: "It is ", y: "sunny." };
        const marble = "answerPrefix" in options ? "x-y-|" : "----(xy|)";
        expectObservable(answer).toBe(marble, expected);
        expectObservable(answer, "---^").toBe(`---${marble}`, expected);
      }
      expectSubscriptions(source.subscriptions).toBe(["^---!", "^---!", "---^---!", "---^---!"]);
    });
  });

  it("unsubscribing from the result unsubscribes from the run", () => {
    scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<AgentStreamEvent>("a-b-c-d|", {
        a: tokenEvent(0, "x"),
        b: tokenEvent(0, "y"),
        c: tokenEvent(0, "z"),
        d: outputEvent("xyz"),
      });
      expectObservable(source.pipe(finalAnswerTokens()), "---!").toBe("----");
      expectSubscriptions(source.subscriptions).toBe("^--!");
    });
  });

  it("passes the run's error on and drops what it held", () => {
    scheduler().run(({ cold, expectObservable }) => {
      const source = cold<AgentStreamEvent>("a-#", { a: tokenEvent(0, "x") }, new Error("boom"));
      expectObservable(source.pipe(finalAnswerTokens())).toBe("--#", undefined, new Error("boom"));
    });
  });

  it("emits the output as one value when the run ends without the answer's tokens", async () => {
    // A forced stop: the last call ended in a tool call, so the output was never streamed.
    await expect(
      collect([tokenEvent(0, "Checking"), actionEvent(0, "search"), outputEvent("Agent stopped.", "max_iterations")]),
    ).resolves.toEqual(["Agent stopped."]);
    // A returnDirect tool, and a model that does not stream at all.
    await expect(
      collect([actionEvent(0, "lookup"), stepEvent(0, "lookup", "42"), outputEvent("42", "return_direct")]),
    ).resolves.toEqual(["42"]);
    await expect(collect([outputEvent("Hello there.")])).resolves.toEqual(["Hello there."]);
  });

  it("emits the output whole when the streamed tokens do not spell it", async () => {
    // A run stopped mid-stream by a budget: the partial text is not the answer.
    await expect(
      collect([tokenEvent(0, "The answer is"), outputEvent("Agent stopped due to a budget.", "budget")]),
    ).resolves.toEqual(["Agent stopped due to a budget."]);
  });

  it("cuts whitespace the parser trimmed around the answer off the tokens", async () => {
    await expect(
      collect([tokenEvent(0, "\n It "), tokenEvent(0, "is "), tokenEvent(0, "sunny.\n"), outputEvent("It is sunny.")]),
    ).resolves.toEqual(["It ", "is ", "sunny."]);
  });

  it("cuts what comes before the answer off the tokens: a marker, or a call cut short", async () => {
    await expect(
      collect([tokenEvent(0, "Thought: easy.\nFinal Answer: Pa"), tokenEvent(0, "ris"), outputEvent("Paris")]),
    ).resolves.toEqual(["Pa", "ris"]);
    // A time budget cut a call short; the "generate" call of the same iteration then answered.
    await expect(
      collect([
        tokenEvent(2, "I will sear"),
        tokenEvent(2, "Sunny "),
        tokenEvent(2, "today."),
        outputEvent("Sunny today.", "budget"),
      ]),
    ).resolves.toEqual(["Sunny ", "today."]);
  });

  it("drops the tokens of a call whose output failed to parse (a step without an action)", async () => {
    await expect(
      collect([
        tokenEvent(0, "garbled"),
        stepEvent(0, "_Exception", "Invalid Format"),
        tokenEvent(1, "Fine."),
        outputEvent("Fine."),
      ]),
    ).resolves.toEqual(["Fine."]);
  });

  it("releases the tokens of the generate call after a forced stop", async () => {
    await expect(
      collect([
        actionEvent(0, "search"),
        stepEvent(0, "search", "sunny"),
        tokenEvent(1, "Sunny, "),
        tokenEvent(1, "I think."),
        outputEvent("Sunny, I think.", "max_iterations"),
      ]),
    ).resolves.toEqual(["Sunny, ", "I think."]);
  });

  it("drops what a call cut off at the end of a segment streamed: the next segment makes it again (replayRun of a resumed run)", async () => {
    const start = (resumed: boolean): AgentStreamEvent => ({ type: "start", runId: "r", inputs: {}, resumed, at: 0 });
    await expect(
      collect([start(false), tokenEvent(0, "It is sun"), start(true), tokenEvent(0, "It is "), tokenEvent(0, "sunny."), outputEvent("It is sunny.")]),
    ).resolves.toEqual(["It is ", "sunny."]);
  });

  it("emits nothing for an empty answer and completes without an output event", async () => {
    await expect(collect([outputEvent("")])).resolves.toEqual([]);
    await expect(collect([tokenEvent(0, "half")])).resolves.toEqual([]);
  });
});

describe("finalAnswerTokens (answerPrefix)", () => {
  it("streams live once the prefix has been seen, even split across tokens", () => {
    scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<AgentStreamEvent>("a-b-c-d-e-f-g|", {
        a: tokenEvent(0, "Thought: done.\nFinal An"),
        b: tokenEvent(0, "swer"),
        c: tokenEvent(0, ": "),
        d: tokenEvent(0, " It is"),
        e: tokenEvent(0, " sunny"),
        f: tokenEvent(0, ".\n"),
        g: outputEvent("It is sunny."),
      });
      expectObservable(source.pipe(finalAnswerTokens({ answerPrefix: "Final Answer:" }))).toBe(
        "------x-y-z--|",
        { x: "It is", y: " sunny", z: "." },
      );
      expectSubscriptions(source.subscriptions).toBe("^------------!");
    });
  });

  it("finds the prefix one character at a time after a long text", async () => {
    const text = `Thought: ${"thinking, ".repeat(50)}Final Answer: Final Paris`;
    const tokens = [...text].map((char) => tokenEvent(0, char));
    const answer = await collect([...tokens, outputEvent("Final Paris")], { answerPrefix: "Final Answer:" });
    expect(answer.join("")).toBe("Final Paris");
    expect(answer).toHaveLength("Final Paris".length - 1); // live, one value per token ("l" and " " went together)
  });

  it("streams the text after the prefix within the token that completes it", async () => {
    await expect(
      collect([tokenEvent(0, "Final Answer: Paris"), outputEvent("Paris")], { answerPrefix: "Final Answer:" }),
    ).resolves.toEqual(["Paris"]);
  });

  it("ignores calls without the prefix and emits the rest of an output that goes on", async () => {
    await expect(
      collect(
        [
          tokenEvent(0, "Action: search"),
          actionEvent(0, "search"),
          stepEvent(0, "search", "sunny"),
          tokenEvent(1, "Final Answer: It is"),
          outputEvent("It is sunny."),
        ],
        { answerPrefix: "Final Answer:" },
      ),
    ).resolves.toEqual(["It is", " sunny."]);
  });

  it("emits the output whole when the prefix never shows", async () => {
    await expect(
      collect([tokenEvent(0, "Thought: hmm"), outputEvent("Agent stopped.", "budget")], {
        answerPrefix: "Final Answer:",
      }),
    ).resolves.toEqual(["Agent stopped."]);
  });

  it("follows streamed tokens that turned out not to be the answer with the real answer", async () => {
    await expect(
      collect(
        [
          tokenEvent(0, "Final Answer: maybe"),
          actionEvent(0, "search"),
          stepEvent(0, "search", "sunny"),
          outputEvent("Sunny."),
        ],
        { answerPrefix: "Final Answer:" },
      ),
    ).resolves.toEqual(["maybe", "Sunny."]);
  });

  it("follows a streamed answer cut short by a budget with the forced output, whole", async () => {
    // A budget stopped the run while the answer streamed; "force" then replaced it.
    await expect(
      collect([tokenEvent(0, "Final Answer: It is"), tokenEvent(0, " sun"), outputEvent("Agent stopped.", "budget")], {
        answerPrefix: "Final Answer:",
      }),
    ).resolves.toEqual(["It is", " sun", "Agent stopped."]);
    // Even when the streamed part happens to start the forced text.
    await expect(
      collect([tokenEvent(0, "Final Answer: A"), outputEvent(EARLY_STOP_OUTPUT, "budget")], {
        answerPrefix: "Final Answer:",
      }),
    ).resolves.toEqual(["A", EARLY_STOP_OUTPUT]);
    // The "generate" call after the cut answered without the prefix.
    await expect(
      collect([tokenEvent(0, "Final Answer: It is"), tokenEvent(1, "Sunny."), outputEvent("Sunny.", "budget")], {
        answerPrefix: "Final Answer:",
      }),
    ).resolves.toEqual(["It is", "Sunny."]);
  });

  it("starts over at a later segment's start: a call cut off and made again as the same iteration (replayRun of a resumed run)", async () => {
    const start = (resumed: boolean): AgentStreamEvent => ({ type: "start", runId: "r", inputs: {}, resumed, at: 0 });
    // The retry streams its answer again: its prefix is found anew, nothing of its own text leaks.
    await expect(
      collect([start(false), tokenEvent(0, "Final Answer: It is"), start(true), tokenEvent(0, "Thought: done. Final Answer: Sunny."), outputEvent("Sunny.")], {
        answerPrefix: "Final Answer:",
      }),
    ).resolves.toEqual(["It is", "Sunny."]);
    // The retry does not stream (resumed under invoke): the output goes on from what was streamed.
    await expect(
      collect([start(false), tokenEvent(0, "Final Answer: It is"), start(true), outputEvent("It is sunny.")], { answerPrefix: "Final Answer:" }),
    ).resolves.toEqual(["It is", " sunny."]);
  });

  it("validates answerPrefix", () => {
    expect(() => finalAnswerTokens({ answerPrefix: "" })).toThrowError(InvalidArgumentError);
    expect(() => finalAnswerTokens({ answerPrefix: 3 as unknown as string })).toThrowError(/answerPrefix/);
  });
});
