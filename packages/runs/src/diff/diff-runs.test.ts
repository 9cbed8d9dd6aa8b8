import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel, type ScriptedResponse } from "@agentrx/core/testing";
import { AgentExecutor, type RunStore, RunStoreError } from "@agentrx/executors";
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { lastValueFrom } from "rxjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { runCli } from "../cli/run-cli";
import { formatRunDiff } from "../cli/diff-command";
import { cliStyle } from "../cli/format-runs-table";
import { MemoryRunStore } from "../memory/index";
import { SqliteRunStore } from "../sqlite/index";
import { diffRuns, readRunRecord } from "./diff-runs";

const prompt = ChatPromptTemplate.fromMessages([["system", "You are helpful."], ["human", "{input}"], new MessagesPlaceholder("agent_scratchpad")]);
const PRICES = { "gpt-4o": { input: 2.5, output: 10 } };

function executorOf(store: RunStore, responses: ScriptedResponse[], weather: (city: string) => string = (city) => `Sunny in ${city}`) {
  const search = tool(async ({ city }: { city: string }) => weather(city), { name: "weather", description: "Weather.", schema: z.object({ city: z.string() }) });
  const llm = new ScriptedChatModel({ responses, model: "gpt-4o" });
  return new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [search], prompt }), tools: [search], store, prices: PRICES });
}
const call = (city: string): ScriptedResponse => ({ toolCalls: [{ name: "weather", args: { city }, id: `call-${city}` }], usage: { inputTokens: 1000, outputTokens: 100 } });
const answer = (text: string): ScriptedResponse => ({ content: text, usage: { inputTokens: 2000, outputTokens: 200 } });

describe("diffRuns", () => {
  it("finds no divergence between two runs that did the same", async () => {
    const store = new MemoryRunStore();
    await executorOf(store, [call("Paris"), answer("Sunny.")]).invoke({ input: "Weather in Paris?" }, { runId: "a" });
    await executorOf(store, [call("Paris"), answer("Sunny.")]).invoke({ input: "Weather in Paris?" }, { runId: "b" });
    const diff = diffRuns(await readRunRecord(store, "a"), await readRunRecord(store, "b"));
    expect(diff.firstDivergence).toBeUndefined();
    expect(diff.iterations.map((iteration) => iteration.same)).toEqual([true, true]);
    expect(diff.iterations[0]?.toolCalls.a).toEqual([{ tool: "weather", input: { city: "Paris" }, observation: "Sunny in Paris" }]);
    expect(diff.cost).toEqual({ a: 0.0105, b: 0.0105, same: true });
    // The recorded usage events keep the model's name and each call's cost.
    const usage = (await store.readEvents("a")).filter((event) => event.type === "usage").map((event) => event.data);
    expect(usage).toMatchObject([{ model: "gpt-4o", usage: { cost: { total: 0.0035 } } }, { model: "gpt-4o", usage: { cost: { total: 0.007 } } }]);
  });

  it("compares a caller's own iterations: its asTool sub-run's recorded model calls and events stay out", async () => {
    const store = new MemoryRunStore();
    const supervisor = (runId: string, subAnswer: string) => {
      const researcher = executorOf(new MemoryRunStore(), [call("Paris"), answer(subAnswer)]);
      const research = researcher.asTool({ name: "researcher", description: "Researches." });
      const llm = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "researcher", args: { input: "Paris" }, id: "r1" }] }, "Done."], model: "gpt-4o" });
      return new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [research], prompt }), tools: [research], store }).invoke({ input: "Research Paris" }, { runId });
    };
    await supervisor("a", "Sunny.");
    await supervisor("b", "Sunny.");
    expect((await store.readEvents("a")).filter((event) => event.type === "model_call" && event.data["subRun"] !== undefined)).toHaveLength(2);
    const diff = diffRuns(await readRunRecord(store, "a"), await readRunRecord(store, "b"));
    expect(diff.iterations.map((iteration) => iteration.same)).toEqual([true, true]);
    expect(diff.iterations.map((iteration) => iteration.reply.a)).toEqual([undefined, "Done."]);
    expect(diff.iterations[0]?.toolCalls.a).toEqual([{ tool: "researcher", input: { input: "Paris" }, observation: "Sunny." }]);
  });

  it("marks where a fork with an edited observation first differs, and the fork relation", async () => {
    const store = new MemoryRunStore();
    await executorOf(store, [call("Paris"), call("Rome"), answer("Sunny, then sunny.")]).invoke({ input: "Paris then Rome?" }, { runId: "src" });
    const forking = executorOf(store, [call("Rome"), answer("Snow, then sunny.")]);
    await forking.fork("src", { at: 1, edit: { observation: "Snow in Paris" }, runId: "fork" });
    const diff = diffRuns(await readRunRecord(store, "src"), await readRunRecord(store, "fork"));
    expect(diff.relation).toEqual({ fork: "b", iteration: 1 });
    expect(diff.inputs.same).toBe(true);
    expect(diff.firstDivergence).toEqual({ field: "toolCalls", iteration: 0, description: "Iteration 0: tool call 0 (weather) returned a different observation." });
    expect(diff.iterations[0]?.toolCalls.b[0]?.observation).toBe("Snow in Paris");
    expect(diff.answer).toEqual({ a: "Sunny, then sunny.", b: "Snow, then sunny.", same: false });
  });

  it("marks different inputs first, and a run with more iterations", async () => {
    const store = new MemoryRunStore();
    await executorOf(store, [answer("Hi.")]).invoke({ input: "Hello" }, { runId: "short" });
    await executorOf(store, [call("Oslo"), answer("Cold.")]).invoke({ input: "Hello" }, { runId: "long" });
    await executorOf(store, [answer("Hi.")]).invoke({ input: "Hey" }, { runId: "other" });
    expect(diffRuns(await readRunRecord(store, "short"), await readRunRecord(store, "other")).firstDivergence?.field).toBe("inputs");
    const diff = diffRuns(await readRunRecord(store, "short"), await readRunRecord(store, "long"));
    expect(diff.firstDivergence).toMatchObject({ field: "reply", iteration: 0 });
    expect(diff.iterations).toHaveLength(2);
    expect(diff.iterations[1]?.toolCalls.a).toEqual([]);
    // The iteration only "long" has: its prompt is its own, not the same as none.
    expect(diff.iterations[1]?.prompt).toMatchObject({ a: undefined, same: false });
    expect(diff.iterations[1]?.prompt.b).toEqual(expect.any(String));
    const text = formatRunDiff(diff, cliStyle(false));
    expect(text).toContain("iteration 1\n  prompt a: not recorded\n  prompt b: digest ");
  });

  it("takes a streamed run's text once (its token event comes before its recorded model call)", async () => {
    const store = new MemoryRunStore();
    await lastValueFrom(executorOf(store, [call("Paris"), answer("Sunny.")]).stream({ input: "Weather in Paris?" }, { runId: "a" }));
    await lastValueFrom(executorOf(store, [call("Paris"), answer("Rainy.")]).stream({ input: "Weather in Paris?" }, { runId: "b" }));
    expect((await store.readEvents("a")).map((event) => event.type)).toContain("token");
    const diff = diffRuns(await readRunRecord(store, "a"), await readRunRecord(store, "b"));
    expect(diff.iterations[1]?.reply).toEqual({ a: "Sunny.", b: "Rainy.", same: false });
    expect(diff.firstDivergence).toMatchObject({ field: "reply", iteration: 1 });
  });

  it("takes a resumed run's retried text alone, not glued to the text of the call cut off before the resume", async () => {
    const store = new MemoryRunStore();
    const streaming = (responses: ScriptedResponse[]) => {
      const search = tool(async ({ city }: { city: string }) => `Sunny in ${city}`, { name: "weather", description: "Weather.", schema: z.object({ city: z.string() }) });
      const llm = new ScriptedChatModel({ responses, model: "gpt-4o", streaming: true, tokenDelayMs: 5 });
      return new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [search], prompt }), tools: [search], store, recordModelCalls: false });
    };
    // Cut off on the first token of the answer (iteration 1), then resumed: the answer is made again.
    await new Promise<void>((resolve) => {
      const subscription = streaming([call("Paris"), answer("Sunny in Paris today.")])
        .stream({ input: "Weather in Paris?" }, { runId: "cut" })
        .subscribe({
          next: (event) => {
            if (event.type === "token" && event.iteration === 1) setTimeout(() => (subscription.unsubscribe(), resolve()), 0);
          },
          error: () => resolve(),
          complete: () => resolve(),
        });
    });
    await streaming([answer("Sunny in Paris today.")]).resume("cut");
    await lastValueFrom(streaming([call("Paris"), answer("Sunny in Paris today.")]).stream({ input: "Weather in Paris?" }, { runId: "whole" }));
    const events = await store.readEvents("cut");
    expect(events.filter((event) => event.type === "start")).toHaveLength(2);
    expect(events.findIndex((event) => event.type === "token")).toBeLessThan(events.findLastIndex((event) => event.type === "start"));
    const diff = diffRuns(await readRunRecord(store, "cut"), await readRunRecord(store, "whole"));
    expect(diff.iterations[1]?.reply).toEqual({ a: "Sunny in Paris today.", b: "Sunny in Paris today.", same: true });
    expect(diff.firstDivergence).toBeUndefined();
  });

  it.each([
    ["images", (data: string) => ({ type: "image", mimeType: "image/png", data }), /^The page:\n\[image: image\/png, 11 B; .*\] \(digest [0-9a-f]{16}\)$/],
    ["PDFs", (data: string) => ({ type: "file", mimeType: "application/pdf", data }), /^The page:\n\[file: application\/pdf, 11 B; .*\] \(digest [0-9a-f]{16}\)$/],
  ])("tells apart tool results that are different %s of the same type and size", async (_, block, shown) => {
    const store = new MemoryRunStore();
    const screenshot = (runId: string, data: string) => {
      const shot = tool(async () => [{ type: "text", text: "The page:" }, block(data)] as never, {
        name: "screenshot",
        description: "A screenshot.",
        schema: z.object({}),
        returnDirect: true,
      });
      const llm = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "screenshot", args: {}, id: "s1" }] }] });
      return new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [shot], prompt }), tools: [shot], store }).invoke({ input: "Look" }, { runId });
    };
    await screenshot("a", "iVBORw0KGgoAAAA=");
    await screenshot("b", "iVBORw0KGgoBBBB=");
    await screenshot("c", "iVBORw0KGgoAAAA=");
    const diff = diffRuns(await readRunRecord(store, "a"), await readRunRecord(store, "b"));
    expect(diff.firstDivergence).toEqual({ field: "toolCalls", iteration: 0, description: "Iteration 0: tool call 0 (screenshot) returned a different observation." });
    expect(diff.iterations[0]?.toolCalls.a[0]?.observation).toMatch(shown);
    expect(diffRuns(await readRunRecord(store, "a"), await readRunRecord(store, "c")).firstDivergence).toBeUndefined();
  });

  it("rejects an event that cannot be decoded with a RunStoreError (corrupt) naming the run and the event", async () => {
    const store = new MemoryRunStore();
    await executorOf(store, [call("Paris"), answer("Sunny.")]).invoke({ input: "Weather in Paris?" }, { runId: "a" });
    const record = await readRunRecord(store, "a");
    const damaged = record.events.find((event) => event.type === "action");
    expect(damaged).toBeDefined();
    const broken = { ...record, events: record.events.map((event) => (event === damaged ? { ...event, data: { ...event.data, action: 5 } } : event)) };
    let error: unknown;
    try {
      diffRuns(broken, record);
    } catch (caught) {
      error = caught;
    }
    expect(RunStoreError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ reason: "corrupt", runId: "a", operation: "diffRuns" });
    expect((error as Error).message).toMatch(new RegExp(`diffRuns: run "a" cannot be compared: its event ${damaged?.seq} cannot be decoded`));
  });

  it("sums an iteration's usage events as the executor sums a run's: their cost and the calls its prices could not price", async () => {
    const store = new MemoryRunStore();
    await executorOf(store, [call("Paris"), answer("Sunny.")]).invoke({ input: "Weather in Paris?" }, { runId: "a" });
    const record = await readRunRecord(store, "a");
    const priced = record.events.find((event) => event.type === "usage" && event.data["iteration"] === 0);
    if (priced === undefined) throw new Error("the run recorded no usage for iteration 0");
    // A second model call of iteration 0, of a model the prices do not know.
    const unpriced = { ...priced, data: { ...priced.data, model: "local-llama", usage: { input_tokens: 500, output_tokens: 20, total_tokens: 520, unpricedCalls: 1 } } };
    const twice = { ...record, events: record.events.flatMap((event) => (event === priced ? [event, unpriced] : [event])) };
    const diff = diffRuns(record, twice);
    expect(diff.iterations[0]?.usage.a).toMatchObject({ total_tokens: 1100, cost: { total: 0.0035 } });
    expect(diff.iterations[0]?.usage.a?.unpricedCalls).toBeUndefined();
    expect(diff.iterations[0]?.usage.b).toMatchObject({ total_tokens: 1620, cost: { total: 0.0035 }, unpricedCalls: 1 });
    expect(diff.iterations[0]?.usage.same).toBe(false);
  });

  it("rejects an unknown run with RunNotFoundError", async () => {
    await expect(readRunRecord(new MemoryRunStore(), "nope")).rejects.toThrow(/nope/);
  });
});

describe("agentrx runs (search, sort, paging, cost) and agentrx diff", () => {
  const dir = mkdtempSync(join(tmpdir(), "agentrx-diff-"));
  const db = join(dir, "runs.db");
  const cli = async (args: string[]) => {
    let stdout = "";
    let stderr = "";
    const code = await runCli([...args, "--db", db], { stdout: { write: (text: string) => (stdout += text) }, stderr: { write: (text: string) => (stderr += text) }, env: {}, cwd: dir });
    return { code, stdout, stderr };
  };

  beforeAll(async () => {
    const store = new SqliteRunStore({ path: db });
    await executorOf(store, [call("Paris"), answer("Sunny in Paris.")]).invoke({ input: "Weather in Paris?" }, { runId: "paris" });
    await executorOf(store, [answer("Rain.")]).invoke({ input: "Weather in Lyon?" }, { runId: "lyon" });
    await executorOf(store, [call("Rome"), call("Oslo"), answer("Mixed.")]).invoke({ input: "Rome and Oslo?" }, { runId: "trip" });
    await store.close();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("shows cost and the input preview, searches, sorts by cost and pages with --cursor", async () => {
    const all = await cli(["runs"]);
    expect(all.code).toBe(0);
    expect(all.stdout).toMatch(/^RUN\s+THREAD\s+STATUS\s+STOP\s+TURNS\s+TOKENS\s+COST\s+DURATION\s+STARTED\s+INPUT$/m);
    expect(all.stdout).toMatch(/^paris .* \$0\.0105 .* Weather in Paris\?$/m);
    expect(all.stdout).toMatch(/3 runs in .*, \$0\.0\d+ in all\./);
    const search = await cli(["runs", "--search", "weath"]);
    expect(search.stdout.match(/^(paris|lyon|trip) /gm)).toEqual(["lyon ", "paris "]);
    const dear = await cli(["runs", "--sort", "cost", "--limit", "1"]);
    expect(dear.stdout.match(/^(paris|lyon|trip) /gm)).toEqual(["trip "]);
    const next = /Next page: agentrx runs --db \S+ --sort cost --limit 1 --cursor (\S+)/.exec(dear.stdout);
    expect(next).not.toBeNull();
    const second = await cli(["runs", "--sort", "cost", "--limit", "1", "--cursor", next![1]!]);
    expect(second.stdout.match(/^(paris|lyon|trip) /gm)).toEqual(["paris "]);
    const json = JSON.parse((await cli(["runs", "--min-cost", "0.01", "--json"])).stdout) as { runId: string; answerPreview?: string }[];
    expect(json.map((run) => [run.runId, run.answerPreview])).toEqual([["trip", "Mixed."], ["paris", "Sunny in Paris."]]);
  });

  it("refuses bad flags with a usage error", async () => {
    expect(await cli(["runs", "--sort", "name"])).toMatchObject({ code: 2, stderr: expect.stringMatching(/--sort "name" is not a sort/) });
    expect(await cli(["runs", "--min-cost", "cheap"])).toMatchObject({ code: 2, stderr: expect.stringMatching(/--min-cost must be an amount/) });
    expect(await cli(["runs", "--since", "yesterday-ish"])).toMatchObject({ code: 2, stderr: expect.stringMatching(/--since must be a date/) });
    expect(await cli(["diff", "paris"])).toMatchObject({ code: 2, stderr: expect.stringMatching(/needs two run ids/) });
    expect(await cli(["diff", "paris", "nope"])).toMatchObject({ code: 1, stderr: expect.stringMatching(/nope/) });
  });

  it("diffs two runs: the first divergence marked, cost side by side, or as JSON", async () => {
    const text = await cli(["diff", "paris", "lyon"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("First divergence: The runs started with different inputs.");
    expect(text.stdout).toMatch(/▶ inputs\n {2}a: \{"input":"Weather in Paris\?"\}\n {2}b: \{"input":"Weather in Lyon\?"\}/);
    expect(text.stdout).toMatch(/^usage\n {2}a: 3300 tokens · \$0\.0105\n {2}b: 2200 tokens · \$0\.0070$/m);
    const json = JSON.parse((await cli(["diff", "paris", "paris", "--json"])).stdout) as { firstDivergence?: unknown; iterations: unknown[] };
    expect(json.firstDivergence).toBeUndefined();
    expect(json.iterations).toHaveLength(2);
  });

  it("writes the diff page with --html, one self-contained file carrying the diff; the text stays as it was", async () => {
    const before = await cli(["diff", "paris", "lyon"]);
    const written = await cli(["diff", "paris", "lyon", "--html", "paris-lyon.html"]);
    expect(written).toMatchObject({ code: 0, stderr: "" });
    expect(written.stdout).toMatch(/^Wrote paris-lyon\.html \(\d+ KB\): the diff of runs paris and lyon\. Open it in a browser\.\n$/);
    const html = readFileSync(join(dir, "paris-lyon.html"), "utf8");
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toMatch(/connect-src 'none'/); // a file fetches nothing
    expect(html).not.toMatch(/<(script|link|img|iframe)[^>]+(src|href)=/i);
    const data = JSON.parse(/<script type="application\/json" id="agentrx-data">(.*)<\/script>/.exec(html)![1]!) as {
      mode: string;
      diff: { a: { runId: string }; b: { runId: string }; firstDivergence?: { field: string } };
      costText: { a?: string; b?: string };
    };
    expect(data).toMatchObject({ mode: "file", diff: { a: { runId: "paris" }, b: { runId: "lyon" }, firstDivergence: { field: "inputs" } }, costText: { a: "$0.0105", b: "$0.0070" } });
    const stdout = await cli(["diff", "paris", "trip", "--html", "-"]);
    expect(stdout.stdout).toMatch(/^<!doctype html>/);
    expect(stdout.stdout).toContain('"runId":"trip"');
    // The text output is unchanged by the new flag.
    expect((await cli(["diff", "paris", "lyon"])).stdout).toBe(before.stdout);
    expect(await cli(["diff", "paris", "lyon", "--html", "x.html", "--json"])).toMatchObject({ code: 2, stderr: expect.stringMatching(/--json or --html, not both/) });
    expect(await cli(["diff", "paris", "lyon", "--html", ""])).toMatchObject({ code: 2, stderr: expect.stringMatching(/--html needs a file name/) });
  });
});
