import type { JsonObject, JsonValue } from "@agentrx/executors";
import { describe, expect, it } from "vitest";
import { rejectionOf, type ConformanceContext } from "./conformance-context";

/**
 * What a search finds, whatever the text: every store must treat it as words (never as the
 * syntax of its engine) and find the same runs as every other store (docs/runs.md).
 */
export function searchTextTests(context: ConformanceContext): void {
  const { id, window } = context;
  const store = () => context.store();

  /** Creates runs of a new thread, one per input (and answer, when given); returns the thread and the run ids. */
  const make = async (runs: readonly { inputs: JsonObject; answer?: JsonValue }[]) => {
    const thread = id("thread");
    const at = window();
    const ids: string[] = [];
    for (const [index, run] of runs.entries()) {
      const runId = id("text");
      ids.push(runId);
      await store().createRun({ runId, threadId: thread, inputs: run.inputs, status: "running", owner: "w", leaseMs: 60_000, at: at + index * 10 });
      const events = run.answer === undefined ? [] : [{ seq: 1, type: "output", at: at + index * 10 + 1, data: { type: "output", output: run.answer, stopReason: "finish" } }];
      await store().write(runId, { owner: "w", leaseMs: 60_000, events, update: { status: "finished", release: true }, at: at + index * 10 + 2 });
    }
    /** The indexes (in `runs`) of the runs the search finds, oldest first. */
    const found = async (search: string) => (await store().listRuns({ threadId: thread, search, sort: "createdAt", order: "asc" })).map((run) => ids.indexOf(run.runId));
    return { thread, found };
  };
  const inputs = (input: string): { inputs: JsonObject } => ({ inputs: { input } });

  describe("search text", () => {
    it("reads query syntax of FTS5, tsquery and LIKE as words and separators, never as operators", async () => {
      const { found } = await make([
        inputs("apple AND banana"),
        inputs("orange OR pear NOT kiwi"),
        inputs("NEAR(lemon lime, 2) inputs:foo ^caret {curly}"),
        inputs(`100% sure_thing x&y|z !w <-> v:* "quoted" back\\slash it's`),
      ]);
      const all = [0, 1, 2, 3];
      const cases: [string, number[]][] = [
        // FTS5: operators, NEAR, column filters, initial token, prefix, quotes, parentheses, minus.
        ["AND", [0]],
        ["OR OR OR", [1]],
        ["AND AND OR", []],
        ["NOT kiwi", [1]],
        ["NOT", [1]],
        ["NEAR(", [2]],
        ["NEAR(lemon, 2)", [2]],
        ["inputs:foo", [2]],
        ["input_text:foo", []],
        ["input_words:foo answer_words:foo", []],
        ["{input_words answer_words}:apple", []],
        ["^caret", [2]],
        ["apple*", [0]],
        ['"apple', [0]],
        ['apple"', [0]],
        ['"apple banana"', [0]],
        ["(apple) OR (pear)", []],
        ["-kiwi", [1]],
        ["apple -banana", [0]],
        ["apple + banana", [0]],
        ["a:b", [0]],
        // tsquery: &, |, !, <->, :*, quotes, backslashes.
        ["x & y", [3]],
        ["x | z", [3]],
        ["!w", [3]],
        ["x <-> v", [3]],
        ["v:*", [3]],
        ["foo:*b", []],
        ["'it'", [3]],
        ["it''s", [3]],
        ["back\\slash", [3]],
        ["back\\", [3]],
        ["\\", all],
        // LIKE wildcards.
        ["100%", [3]],
        ["sure_", [3]],
        ["_thing", [3]],
        ["s%e", []],
        ["s_re", []],
        // No word at all: no search.
        ["*", all],
        ['""', all],
        ["%", all],
        ["&|!<->:*()", all],
      ];
      for (const [search, expected] of cases) expect(await found(search), search).toEqual(expected);
    });

    it("finds words across accents, compatibility forms, case and scripts, as NFKD without marks", async () => {
      const { found } = await make([
        inputs("Café crème brûlée"),
        inputs("cafe\u0301 noir"),
        inputs("ﬁle ＡＢＣ x² Ⅻ"),
        inputs("Йогурт и чай"),
        inputs("Καλημέρα κόσμε"),
        inputs("Tiếng Việt"),
        inputs("İstanbul ılık"),
        inputs("日本語のテキスト 中文字符 한국어"),
        inputs("🎉party👩🏽‍💻 emoji"),
        inputs("Straße"),
      ]);
      const cases: [string, number[]][] = [
        ["cafe", [0, 1]],
        ["CAFÉ", [0, 1]],
        ["cafe\u0301", [0, 1]],
        ["brulee creme", [0]],
        // Compatibility forms: a ligature, full-width letters, a superscript, a roman numeral.
        ["file", [2]],
        ["ﬁ", [2]],
        ["abc", [2]],
        ["ＡＢ", [2]],
        ["x2", [2]],
        ["xii", [2]],
        // Cyrillic й and Greek accents, Vietnamese stacked marks.
        ["йогурт", [3]],
        ["ЧАЙ", [3]],
        ["иогурт", [3]],
        ["καλημερα", [4]],
        ["ΚΑΛΗΜΈΡΑ", [4]],
        ["tieng viet", [5]],
        ["Việt", [5]],
        // Turkish: İ is I with a dot (an i here); the dotless ı is another letter.
        ["istanbul", [6]],
        ["ılık", [6]],
        ["ilik", []],
        // CJK without spaces is one word, found by its start.
        ["日本", [7]],
        ["テキスト", []],
        ["中文", [7]],
        ["한국", [7]],
        ["party", [8]],
        ["emoji", [8]],
        ["strasse", []],
        ["straße", [9]],
        ["STRASSE", []],
      ];
      for (const [search, expected] of cases) expect(await found(search), search).toEqual(expected);
      // Emoji only: no word, no search.
      expect(await found("🎉👩🏽‍💻")).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    });

    it("folds the Greek final sigma, so a word typed with σ finds the word that ends in ς", async () => {
      const { found } = await make([inputs("ΚΌΣΜΟΣ"), inputs("ο κόσμος")]);
      expect(await found("κοσμοσ")).toEqual([0, 1]);
      expect(await found("κοσμος")).toEqual([0, 1]);
      expect(await found("ΚΟΣΜΟΣ")).toEqual([0, 1]);
    });

    it("finds the strings inside an input that is not a string and inside a structured answer, not their keys or JSON escapes", async () => {
      const { thread, found } = await make([
        { inputs: { messages: [{ role: "user", content: "first line\nsecond line" }, { role: "assistant", content: 'tab\tseparated "quoted"' }] } },
        { inputs: { query: { text: "nested\u0000text", tags: ["alpha", "beta"], count: 42 } } },
        { inputs: { input: ["list item", { deep: { deeper: "bottom\r\nline" } }] } },
        { inputs: { input: "plain" }, answer: { answer: "multi\nline answer", score: 7 } },
      ]);
      const cases: [string, number[]][] = [
        ["second line", [0]],
        ["separated quoted", [0]],
        ["user assistant", [0]],
        ["nested text", [1]],
        ["alpha beta 42", [1]],
        ["item bottom", [2]],
        ["multi line answer", [3]],
        ["7", [3]],
        // JSON's escapes are not letters glued to the next word; keys are not the run's text.
        ["nsecond", []],
        ["tseparated", []],
        ["u0000text", []],
        ["rnline", []],
        ["role", []],
        ["messages", []],
        ["deeper", []],
        ["score", []],
      ];
      for (const [search, expected] of cases) expect(await found(search), search).toEqual(expected);
      // The preview still shows the inputs as JSON.
      expect((await store().listRuns({ threadId: thread, search: "alpha" }))[0]?.inputPreview).toBe('{"query":{"text":"nested\\u0000text","tags":["alpha","beta"],"count":42}}');
    });

    it("counts a very long word by its first 200 characters, in the text and in the search, in every script", async () => {
      const { found } = await make([inputs("a".repeat(1999)), inputs(`${"日".repeat(1500)} tail`), inputs(`${"é".repeat(300)}z`)]);
      expect(await found("a".repeat(150))).toEqual([0]);
      expect(await found("a".repeat(200))).toEqual([0]);
      // Longer than 200: its first 200 characters are compared.
      expect(await found(`${"a".repeat(200)}b`)).toEqual([0]);
      expect(await found("a".repeat(5000))).toEqual([0]);
      expect(await found(`${"a".repeat(199)}b`)).toEqual([]);
      expect(await found("日日日")).toEqual([1]);
      expect(await found("日".repeat(800))).toEqual([1]);
      expect(await found("tail")).toEqual([1]);
      expect(await found("e".repeat(200))).toEqual([2]);
      expect(await found("b".repeat(3000))).toEqual([]);
    });

    it("takes a search of 1,000 different words, all of which must be found, and refuses more", async () => {
      // Five words of 200 characters; the 1,000 words are their prefixes (200 each).
      const words = ["a", "b", "c", "d", "e"].map((letter) => `${letter}${"x".repeat(199)}`);
      const { found } = await make([inputs(words.join(" ")), inputs(words.slice(0, 4).join(" "))]);
      const prefixes = words.flatMap((word) => Array.from({ length: 200 }, (_, length) => word.slice(0, length + 1)));
      expect(new Set(prefixes).size).toBe(1000);
      expect(await found(prefixes.join(" "))).toEqual([0]);
      expect(await found(prefixes.slice(0, 800).join(" "))).toEqual([0, 1]);
      expect(await found(`${prefixes.slice(1).join(" ")} zzz`)).toEqual([]);
      // Repeated words count once; more than 1,000 different words are refused, naming the option.
      expect(await found("ax ".repeat(5000))).toEqual([0, 1]);
      const error = await rejectionOf(store().listRuns({ search: `${prefixes.join(" ")} zzz` }));
      expect(error).toMatchObject({ name: "InvalidArgumentError", argument: "options.search" });
      expect(error.message).toMatch(/options\.search has 1001 different words; give at most 1000/);
      expect((await rejectionOf(store().listRuns({ search: Array.from({ length: 100_000 }, (_, index) => `w${index}`).join(" ") }))).message).toMatch(/has 100000 different words/);
    });
  });
}
