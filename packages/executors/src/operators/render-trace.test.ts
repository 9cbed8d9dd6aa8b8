import { InvalidArgumentError } from "@agentrx/core";
import { Subject, concat, from, of, throwError, type Observable } from "rxjs";
import { TestScheduler } from "rxjs/testing";
import { describe, expect, it, vi } from "vitest";
import type { AgentStreamEvent } from "../executor/events";
import { autoColors, renderTrace, type RenderTraceOptions } from "./render-trace";
import { actionEvent, outputEvent, stepEvent, tokenEvent, usageEvent } from "./test-events";

function capture(): { write: (text: string) => void; text: () => string } {
  let text = "";
  return { write: (chunk) => void (text += chunk), text: () => text };
}

function render(events: Observable<AgentStreamEvent>, options: RenderTraceOptions = {}) {
  const out = capture();
  const seen: AgentStreamEvent[] = [];
  let failure: unknown;
  events.pipe(renderTrace({ write: out.write, ...options })).subscribe({
    next: (event) => seen.push(event),
    error: (error: unknown) => (failure = error),
  });
  return { text: out.text(), seen, failure };
}

const run: AgentStreamEvent[] = [
  tokenEvent(0, "Let me "),
  tokenEvent(0, "look that up."),
  actionEvent(0, "search", { query: "weather in Paris" }),
  actionEvent(0, "calculator", "21 * 9 / 5 + 32"),
  usageEvent(0, 120, 18),
  stepEvent(0, "calculator", "69.8", 3),
  stepEvent(0, "search", "Sunny,\n  21 °C,\n light wind", 1250),
  tokenEvent(1, "It is sunny "),
  tokenEvent(1, "and 21 °C\n(69.8 °F)."),
  outputEvent("It is sunny and 21 °C\n(69.8 °F)."),
];

describe("renderTrace", () => {
  it("prints one line per action, step and answer, with the model's text inline", () => {
    const { text, seen } = render(from(run));
    expect(text).toMatchInlineSnapshot(`
      "model   Let me look that up.
      action  search {"query":"weather in Paris"}
      action  calculator 21 * 9 / 5 + 32
      step    calculator (3 ms) 69.8
      step    search (1.3 s) Sunny, 21 °C, light wind
      model   It is sunny and 21 °C
              (69.8 °F).
      answer  It is sunny and 21 °C
              (69.8 °F). (finish)
      "
    `);
    expect(seen).toEqual(run);
  });

  it("writes the control characters of a model's, a tool's or an answer's text as escapes, so the terminal shows them instead of acting on them", () => {
    const clear = "\x1b[2J\x1b]0;owned\x07";
    const events: AgentStreamEvent[] = [
      tokenEvent(0, `Hi${clear}\tthere\rX`),
      actionEvent(0, "search", `q${clear}`),
      stepEvent(0, "search", `found${clear}\u009b31m`, 3),
      outputEvent(`Done${clear}\nline two\u007f`),
    ];
    const { text } = render(from(events));
    expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(text).toContain("Hi\\u001b[2J\\u001b]0;owned\\u0007\tthere");
    expect(text).toContain("search q\\u001b[2J");
    expect(text).toContain("found\\u001b[2J\\u001b]0;owned\\u0007\\u009b31m");
    expect(text).toContain("Done\\u001b[2J\\u001b]0;owned\\u0007\n        line two\\u007f (finish)");
    // Colours are the trace's own escapes, and only those.
    const coloured = render(from(events), { colors: true }).text;
    expect(coloured.match(/\x1b\[2J/g)).toBeNull();
  });

  it("starts a new model line for each model call", () => {
    const { text } = render(
      of(tokenEvent(0, "First call"), usageEvent(0, 1, 1), tokenEvent(1, "cut "), tokenEvent(2, "third"), outputEvent("third")),
    );
    expect(text).toMatchInlineSnapshot(`
      "model   First call
      model   cut 
      model   third
      answer  third (finish)
      "
    `);
  });

  it("indents the model's continuation lines without blank indented lines or a trailing empty one", () => {
    const { text } = render(
      of(
        tokenEvent(0, "\nThought: two lines.\n"),
        tokenEvent(0, "Second line.\r\n\r\n"),
        tokenEvent(0, "After a blank line.\n"),
        usageEvent(0, 1, 1),
        tokenEvent(1, "Done.\n\n"),
        outputEvent("First paragraph.\n\nSecond paragraph."),
      ),
    );
    expect(text).toMatchInlineSnapshot(`
      "model   Thought: two lines.
              Second line.

              After a blank line.
      model   Done.
      answer  First paragraph.

              Second paragraph. (finish)
      "
    `);
    expect(text).not.toMatch(/^ +$/m); // no line of spaces only
  });

  it("shows usage when asked, hides tokens when asked, and cuts long inputs and observations", () => {
    const long = "word ".repeat(40);
    const { text } = render(
      of(
        tokenEvent(0, "hidden"),
        actionEvent(0, "search", long),
        stepEvent(0, "search", long, 80_000),
        usageEvent(0, 12, 5),
        outputEvent("Agent stopped due to iteration limit or time limit.", "max_iterations"),
      ),
      { tokens: false, usage: true, maxLength: 24 },
    );
    expect(text).toMatchInlineSnapshot(`
      "action  search word word word word…
      step    search (1 min 20 s) word word word word…
      usage   12 in + 5 out = 17 tokens
      answer  Agent stopped due to iteration limit or time limit. (max_iterations)
      "
    `);
  });

  it("ends a usage line with the call's cost, or says the executor's prices could not price it", () => {
    const priced = usageEvent(0, 1000, 100);
    priced.usage.cost = { input: 0.0025, output: 0.001, total: 0.0035, currency: "USD" };
    const unpriced = usageEvent(1, 500, 20);
    unpriced.usage.unpricedCalls = 1;
    const { text } = render(of(priced, unpriced, outputEvent("ok")), { usage: true });
    expect(text).toMatchInlineSnapshot(`
      "usage   1000 in + 100 out = 1100 tokens · $0.0035
      usage   500 in + 20 out = 520 tokens · unpriced
      answer  ok (finish)
      "
    `);
    // Only unpriced calls: never a cost of $0.
    const { text: alone } = render(of(unpriced, outputEvent("ok")), { usage: true });
    expect(alone).toContain("520 tokens · unpriced\n");
    expect(alone).not.toContain("$");
  });

  it("colours the labels with ANSI codes when colours are on", () => {
    const { text } = render(of(actionEvent(0, "search", { q: 1 }), outputEvent("ok", "budget")), { colors: true });
    expect(text.replaceAll("\x1b", "␛")).toMatchInlineSnapshot(`
      "␛[36maction␛[39m  ␛[1msearch␛[22m {"q":1}
      ␛[1m␛[35manswer␛[39m␛[22m  ok ␛[33m(budget)␛[39m
      "
    `);
    expect(render(of(outputEvent("ok")), { colors: false }).text).not.toContain("\x1b");
  });

  it("names the budget that stopped the run", () => {
    const stopped = (stoppedBy: unknown) => ({ ...outputEvent("Agent stopped.", "budget"), stoppedBy });
    const { text } = render(
      of(stopped({ budget: "tool_calls", limit: 1, used: 2 }), stopped("a custom condition's value"), stopped(undefined)),
    );
    expect(text).toMatchInlineSnapshot(`
      "answer  Agent stopped. (budget: tool_calls)
      answer  Agent stopped. (budget)
      answer  Agent stopped. (budget)
      "
    `);
  });

  it("writes an error line, then passes the error on", () => {
    const boom = new Error("model unreachable");
    const { text, seen, failure } = render(concat(of(tokenEvent(0, "Thinking")), throwError(() => boom)));
    expect(text).toMatchInlineSnapshot(`
      "model   Thinking
      error   Error: model unreachable
      "
    `);
    expect(seen).toHaveLength(1);
    expect(failure).toBe(boom);
  });

  it("writes an error whole, however long, its continuation lines indented: its end says what to do", () => {
    const boom = new Error(`OpenAIChatModel: model "gpt-4o-mini-typo" was not found (404) at https://api.openai.com/v1. ${"Details. ".repeat(20)}\nSet OPENAI_MODEL to a model your account has.`);
    const { text } = render(throwError(() => boom), { maxLength: 40 });
    expect(text).toBe(`error   Error: ${boom.message.split("\n")[0]}\n        Set OPENAI_MODEL to a model your account has.\n`);
  });

  it("passes a failing writer's error down the stream instead of throwing", () => {
    const broken = new Error("EPIPE");
    const events = new Subject<AgentStreamEvent>();
    const error = vi.fn();
    events
      .pipe(
        renderTrace({
          write: () => {
            throw broken;
          },
        }),
      )
      .subscribe({ error });
    expect(() => events.next(actionEvent(0, "search"))).not.toThrow();
    expect(error).toHaveBeenCalledWith(broken);
    expect(events.observed).toBe(false);
  });

  it("passes the run's error on even when the writer fails too", () => {
    const boom = new Error("run failed");
    const error = vi.fn();
    throwError(() => boom)
      .pipe(
        renderTrace({
          write: () => {
            throw new Error("EPIPE");
          },
        }),
      )
      .subscribe({ error });
    expect(error).toHaveBeenCalledExactlyOnceWith(boom);
  });

  it("is lazy, and unsubscribing ends the open line and unsubscribes from the run", () => {
    const out = capture();
    const events = new Subject<AgentStreamEvent>();
    const traced = events.pipe(renderTrace({ write: out.write }));
    expect(events.observed).toBe(false);
    const subscription = traced.subscribe();
    events.next(tokenEvent(0, "partial"));
    subscription.unsubscribe();
    expect(events.observed).toBe(false);
    expect(out.text()).toBe("model   partial\n");
  });

  it("passes events through in time, unsubscribes on teardown and keeps no state across subscriptions", () => {
    const out = capture();
    new TestScheduler((actual, expected) => expect(actual).toEqual(expected)).run(
      ({ cold, expectObservable, expectSubscriptions }) => {
        const values = { a: tokenEvent(0, "Hi"), b: tokenEvent(0, " there"), o: outputEvent("Hi there") };
        const source = cold<AgentStreamEvent>("a-b-(o|)", values);
        const traced = source.pipe(renderTrace({ write: out.write }));
        expectObservable(traced).toBe("a-b-(o|)", values);
        expectObservable(traced, "--^").toBe("--a-b-(o|)", values);
        expectObservable(traced, "^-!").toBe("a--", values);
        expectSubscriptions(source.subscriptions).toBe(["^---!", "^-!", "--^---!"]);
      },
    );
    // Each subscription opens its own `model` line (one writer, so the lines interleave).
    expect(out.text().match(/model {3}Hi/g)).toHaveLength(3);
    expect(out.text().match(/answer {2}Hi there \(finish\)\n/g)).toHaveLength(2);
  });

  it("validates its options, naming them", () => {
    expect(() => renderTrace({ colors: "always" as "auto" })).toThrowError(InvalidArgumentError);
    expect(() => renderTrace({ colors: "always" as "auto" })).toThrowError(/`colors` must be true, false or "auto"/);
    expect(() => renderTrace({ maxLength: 3 })).toThrowError(/`maxLength`/);
    expect(() => renderTrace({ write: "stdout" as never })).toThrowError(/`write`/);
    // A misspelt option would be ignored: refused, naming it and what was meant.
    expect(() => renderTrace({ maxLenght: 50 } as never)).toThrowError("renderTrace: unknown option `maxLenght`; did you mean `maxLength`? Known options: write, colors, maxLength, tokens, usage.");
    expect(() => renderTrace({ colours: true } as never)).toThrowError(/unknown option `colours`; did you mean `colors`\?/);
    expect(() => renderTrace(5 as never)).toThrowError("renderTrace: `options` must be an object such as { colors: false }, got 5.");
    expect(() => renderTrace(null as never)).toThrowError(/`options` must be an object/);
  });

  it("escapes a tool's and a sub-run's name as it escapes text: a model picks them, and a line feed in one would forge a line", () => {
    const forged = "se\x1b[2Jarch\nanswer  all good\t\u202e";
    const sub = { ...actionEvent(0, "inner"), subRun: [`agent\x1b]0;T\x07`] } as AgentStreamEvent;
    const { text } = render(from([actionEvent(0, forged), stepEvent(0, forged, "ok", 3), sub, outputEvent("done")]));
    expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/);
    expect(text).toContain("action  se\\u001b[2Jarch\\nanswer  all good\\t\\u202e {}");
    expect(text).toContain("step    se\\u001b[2Jarch\\nanswer  all good\\t\\u202e (3 ms) ok");
    expect(text).toContain("[agent\\u001b]0;T\\u0007] action  inner {}");
    expect(text.split("\n").filter((line) => line.startsWith("answer"))).toEqual(["answer  done (finish)"]);
    // A long name is cut as text is.
    expect(render(from([actionEvent(0, "x".repeat(500))]), { maxLength: 40 }).text).toBe(`action  ${"x".repeat(39)}… {}\n`);
  });
});

describe("autoColors", () => {
  it("colours a TTY unless NO_COLOR is set to something", () => {
    expect(autoColors({ isTTY: true }, {})).toBe(true);
    expect(autoColors({ isTTY: true }, { NO_COLOR: "" })).toBe(true);
    expect(autoColors({ isTTY: true }, { NO_COLOR: "1" })).toBe(false);
    expect(autoColors({ isTTY: false }, {})).toBe(false);
    expect(autoColors(undefined, {})).toBe(false);
  });

  it("lets FORCE_COLOR decide first: 0 or false turns colours off, anything else on", () => {
    expect(autoColors({ isTTY: false }, { FORCE_COLOR: "1" })).toBe(true);
    expect(autoColors({ isTTY: false }, { FORCE_COLOR: "" })).toBe(true);
    expect(autoColors({ isTTY: false }, { FORCE_COLOR: "3", NO_COLOR: "1" })).toBe(true);
    expect(autoColors({ isTTY: true }, { FORCE_COLOR: "0" })).toBe(false);
    expect(autoColors({ isTTY: true }, { FORCE_COLOR: "false" })).toBe(false);
  });

  it("colours process.stdout under auto only when it is a TTY and NO_COLOR is unset", () => {
    const written: string[] = [];
    const write = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    const wasTTY = process.stdout.isTTY;
    try {
      vi.stubEnv("FORCE_COLOR", undefined);
      vi.stubEnv("NO_COLOR", undefined);
      process.stdout.isTTY = true;
      of(outputEvent("ok")).pipe(renderTrace()).subscribe();
      vi.stubEnv("NO_COLOR", "1");
      of(outputEvent("ok")).pipe(renderTrace()).subscribe();
      process.stdout.isTTY = false;
      vi.stubEnv("NO_COLOR", undefined);
      of(outputEvent("ok")).pipe(renderTrace()).subscribe();
    } finally {
      process.stdout.isTTY = wasTTY;
      write.mockRestore();
      vi.unstubAllEnvs();
    }
    expect(written.map((text) => text.includes("\x1b["))).toEqual([true, false, false]);
  });

  it("in Deno's Jupyter kernel, writes to the running cell's stdout (the kernel's process.stdout shows nowhere)", async () => {
    const sent: { type: string; content: Record<string, unknown> }[] = [];
    const broadcast = vi.fn(async (type: string, content: Record<string, unknown>) => void sent.push({ type, content }));
    vi.stubGlobal("Deno", { jupyter: { broadcast } });
    vi.stubEnv("FORCE_COLOR", undefined);
    vi.stubEnv("NO_COLOR", "1");
    const write = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    try {
      of(actionEvent(0, "search", { q: "rxjs" }), outputEvent("ok")).pipe(renderTrace()).subscribe();
      await Promise.resolve();
      expect(write).not.toHaveBeenCalled();
    } finally {
      write.mockRestore();
      vi.unstubAllGlobals();
      vi.unstubAllEnvs();
    }
    expect(sent.every(({ type, content }) => type === "stream" && content["name"] === "stdout")).toBe(true);
    const text = sent.map(({ content }) => content["text"]).join("");
    expect(text).toMatch(/^action {2}search \{"q":"rxjs"\}$/m);
    expect(text).toMatch(/^answer {2}ok/m);
    expect(text).not.toContain("\x1b["); // NO_COLOR is honoured there too
  });

  it("in Deno's Jupyter kernel, a message the kernel fails to send goes to process.stdout, not nowhere", async () => {
    vi.stubGlobal("Deno", { jupyter: { broadcast: async () => Promise.reject(new Error("kernel gone")) } });
    const written: string[] = [];
    const write = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => written.push(String(chunk)) > 0);
    try {
      of(outputEvent("ok")).pipe(renderTrace({ colors: false })).subscribe();
      await new Promise((resolve) => setTimeout(resolve, 0));
    } finally {
      write.mockRestore();
      vi.unstubAllGlobals();
    }
    expect(written.join("")).toMatch(/^answer {2}ok/m);
  });

  it("keeps a custom writer plain under auto, whatever the environment says", () => {
    vi.stubEnv("FORCE_COLOR", "1");
    try {
      expect(render(of(outputEvent("ok"))).text).toBe("answer  ok (finish)\n");
    } finally {
      vi.unstubAllEnvs();
    }
  });
});

describe("line formatting", () => {
  it("keeps a word that ends exactly at the cut, and never splits an emoji", () => {
    const { text } = render(
      of(actionEvent(0, "search", "aaaa bbbb cccc dddd eeee ffff gggg"), stepEvent(0, "search", "abcdefghijklmnopqrstuvw😀xyz", 2)),
      { maxLength: 25 },
    );
    expect(text).toMatchInlineSnapshot(`
      "action  search aaaa bbbb cccc dddd eeee…
      step    search (2 ms) abcdefghijklmnopqrstuvw…
      "
    `);
  });

  it("cuts a long text without spaces at the limit, and keeps short texts whole", () => {
    const { text } = render(of(actionEvent(0, "hash", "x".repeat(50)), stepEvent(0, "hash", "ok", 0.4)), {
      maxLength: 12,
    });
    expect(text).toMatchInlineSnapshot(`
      "action  hash xxxxxxxxxxx…
      step    hash (0 ms) ok
      "
    `);
  });
});
