import type { JsonObject } from "@agentrx/executors";
import { describe, expect, it } from "vitest";
import type { ConformanceContext } from "./conformance-context";

/** Strings that stores get wrong: astral characters, CJK, right-to-left, combining marks, lone surrogates, escapes. */
const UNICODE: JsonObject = {
  emoji: "🎉👩🏽‍💻🇯🇵",
  cjk: "日本語のテキスト，中文字符，한국어",
  rtl: "مرحبا بالعالم שלום",
  combining: "e\u0301 a\u0308 \u0915\u094d\u0937",
  loneHigh: "before \ud800 after",
  loneLow: "\udfff at the start",
  bom: "\ufeffzero\u200bwidth",
  quotes: `"double" 'single' \\backslash\\ \`tick\``,
  control: "tab\tnewline\nreturn\rbell\u0007escape\u001b",
  "ключ 🔑": "a key with unicode",
};

/** Strings with the NUL character, and strings that only look like escapes of it. */
const NUL: JsonObject = {
  alone: "\u0000",
  inside: "a\u0000b",
  many: "\u0000\u0000x\u0000",
  escapedLookalike: "\\u0000 is six characters, not NUL",
  both: "\u0000 and \\u0000",
  "key\u0000with NUL": "value",
  list: ["\u0000", "ok", { deep: "x\u0000y" }],
};

export function stringTests(context: ConformanceContext): void {
  const { id, window } = context;
  const store = () => context.store();

  const roundTrip = async (payload: JsonObject) => {
    const runId = id("strings");
    const at = window();
    await store().createRun({ runId, inputs: payload, status: "running", owner: "w", leaseMs: 60_000, metadata: payload, at });
    const data = { type: "step", at, observation: payload };
    await store().write(runId, { owner: "w", leaseMs: 60_000, events: [{ seq: 1, type: "step", at, data }], at: at + 1 });
    const run = await store().getRun(runId);
    const [event] = await store().readEvents(runId);
    return { runId, run, data, event };
  };

  describe("strings", () => {
    it("keeps 1 MB strings in inputs and event data exactly", async () => {
      const big = `${"observation line with some text 0123456789\n".repeat(24_000)}end-${id()}`;
      expect(big.length).toBeGreaterThan(1_000_000);
      const { run, data, event } = await roundTrip({ big });
      expect(run?.inputs.big).toBe(big);
      expect(event?.data).toEqual(data);
      expect((event?.data.observation as JsonObject).big === big).toBe(true);
    });

    it("keeps unicode, lone surrogates included, exactly in inputs, metadata and event data", async () => {
      const { run, data, event } = await roundTrip(UNICODE);
      expect(run?.inputs).toEqual(UNICODE);
      expect(run?.metadata).toEqual(UNICODE);
      expect(event?.data).toEqual(data);
      expect((event?.data.observation as JsonObject).loneHigh).toBe("before \ud800 after");
    });

    it("keeps strings with NUL characters exactly, and tells them apart from the text \\u0000", async () => {
      const { run, data, event } = await roundTrip(NUL);
      expect(run?.inputs).toEqual(NUL);
      expect(event?.data).toEqual(data);
      const observation = event?.data.observation as JsonObject;
      expect(observation.inside).toBe("a\u0000b");
      expect(observation.escapedLookalike).toBe("\\u0000 is six characters, not NUL");
      expect((observation.escapedLookalike as string).includes("\u0000")).toBe(false);
    });

    it("keeps strings without NUL or escapes as they are", async () => {
      const plain = { text: "plain ascii text", empty: "", spaces: "  padded  ", number: 1.5, negative: -0.25, big: 2 ** 52, flag: false, nothing: null };
      const { run, event } = await roundTrip(plain);
      expect(run?.inputs).toEqual(plain);
      expect((event?.data.observation as JsonObject)).toEqual(plain);
    });

    it("accepts unicode run ids, thread ids, owners, stop reasons and error messages", async () => {
      const runId = `${id("ünïcode")}-日本-🎉`;
      const threadId = `${id("thread")}-스레드-🧵`;
      const at = window();
      await store().createRun({ runId, threadId, inputs: {}, status: "running", owner: "ホスト:42", leaseMs: 60_000, at });
      await store().write(runId, { owner: "ホスト:42", leaseMs: 60_000, events: [], update: { status: "failed", stopReason: "erreur_été", error: "Tool 🔧 failed: 文件不存在 \"quoted\"\nsecond line", release: true }, at: at + 1 });
      expect(await store().getRun(runId)).toMatchObject({ runId, threadId, status: "failed", stopReason: "erreur_été", error: "Tool 🔧 failed: 文件不存在 \"quoted\"\nsecond line" });
      expect((await store().listRuns({ threadId })).map((run) => run.runId)).toEqual([runId]);
    });

    it("takes run and thread ids of up to 1,024 bytes of UTF-8, and refuses longer ones naming them (PostgreSQL could not index them)", async () => {
      const at = window();
      const head = `${id("long")}-`; // ASCII: one byte a character
      const accents = Math.floor((1024 - head.length) / 2); // "é" is two bytes of UTF-8
      const exact = `${head}${"é".repeat(accents)}${"x".repeat(1024 - head.length - 2 * accents)}`;
      expect(new TextEncoder().encode(exact).length).toBe(1024);
      await store().createRun({ runId: exact, threadId: exact, inputs: {}, status: "running", owner: "w", leaseMs: 60_000, at });
      expect((await store().getRun(exact))?.threadId).toBe(exact);
      const tooLong = `${exact}y`;
      await expect(store().createRun({ runId: tooLong, inputs: {}, status: "running", owner: "w", leaseMs: 60_000, at })).rejects.toThrow(/runId must be a non-empty string of at most 1024 bytes/);
      await expect(store().createRun({ runId: id("short"), threadId: `${"🧵".repeat(256)}y`, inputs: {}, status: "running", owner: "w", leaseMs: 60_000, at })).rejects.toThrow(/threadId must be a non-empty string of at most 1024 bytes/);
    });
  });
}
