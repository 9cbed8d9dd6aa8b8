// Executes the notebooks of examples/notebooks/ with Jupyter's nbconvert on Deno's Jupyter kernel,
// offline (no OPENAI_API_KEY), and checks what they print and how their runs display; runs the
// quickstart once more against a loopback OpenAI-compatible endpoint; type-checks their code; and
// checks that they are committed without outputs. The kernel is installed the documented way
// (`deno jupyter --install`) into a temporary Jupyter data folder, so nothing in the user's home is
// touched. Needs Deno (`node scripts/fetch-runtimes.mjs`) and `jupyter nbconvert`; without them the
// tests that execute notebooks are skipped with one line saying so, unless CI is set, when they fail.
import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import { promisify } from "node:util";
import type { OpenAICompatibleServer } from "@agentrx/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { missingRuntime, runtimeBins } from "../runtimes/runtime-bins";
import { startWeatherEndpoint } from "../fixtures/weather-endpoint";

const execute = promisify(execFile);
const root = join(__dirname, "..", "..");
const notebooksDir = join(root, "examples", "notebooks");
const NOTEBOOKS = ["quickstart", "custom-agent", "streaming", "approval"] as const;
type NotebookName = (typeof NOTEBOOKS)[number];

/** Deno, where `node scripts/fetch-runtimes.mjs` installs it. */
const deno = runtimeBins().find((bin) => bin.name === "deno");
const KERNEL = "agentrx-deno-test";
/** Seconds a cell may run; the notebooks' cells take well under one. */
const CELL_TIMEOUT = 120;
/** What nbconvert says when a kernel exits before it could run anything. */
const KERNEL_DIED_AT_START = "Kernel died before replying to kernel_info";
/** Milliseconds a test waits for its notebook: they run at once, in about 10 s. */
const TEST_TIMEOUT = 180_000;

interface Output {
  output_type: "stream" | "display_data" | "execute_result" | "error";
  name?: string;
  text?: string | string[];
  data?: Record<string, unknown>;
  ename?: string;
  evalue?: string;
}
interface IopubEntry {
  msg_type: "display_data" | "update_display_data" | "execute_result";
  display_id: string | null;
  mime_types: string[];
}
interface Cell {
  id: string;
  cell_type: "code" | "markdown" | "raw";
  source: string | string[];
  execution_count?: number | null;
  outputs?: Output[];
  metadata: { iopub?: IopubEntry[]; [key: string]: unknown };
}
interface Notebook {
  nbformat: number;
  nbformat_minor: number;
  metadata: { kernelspec?: { name: string; display_name: string; language: string } };
  cells: Cell[];
}

const readNotebook = (path: string): Notebook => JSON.parse(readFileSync(path, "utf8")) as Notebook;
const joined = (text: string | string[] | undefined) => (Array.isArray(text) ? text.join("") : (text ?? ""));

/** A `jupyter` whose nbconvert works: the first on PATH that answers, else Debian's. */
function findJupyter(): string | undefined {
  const candidates = [...(process.env.PATH ?? "").split(delimiter).filter(Boolean).map((dir) => join(dir, "jupyter")), "/usr/bin/jupyter"];
  for (const candidate of new Set(candidates)) {
    if (!existsSync(candidate)) continue;
    try {
      execFileSync(candidate, ["nbconvert", "--version"], { stdio: "pipe", timeout: 30_000 });
      return candidate;
    } catch {
      // A pyenv shim or a Python without nbconvert: try the next one.
    }
  }
  return undefined;
}

const jupyter = findJupyter();
const missing = [
  deno ? missingRuntime(deno) : "runtimeBins() lists no deno",
  jupyter ? undefined : "no `jupyter nbconvert` on PATH or at /usr/bin/jupyter (apt-get install jupyter-nbconvert python3-nbclient python3-ipykernel jupyter-client)",
].flatMap((problem) => (problem === undefined ? [] : [problem.replace(/\.$/, "")]));
const skip = missing.length > 0 && !process.env.CI;
if (skip) console.warn(`Skipping the notebook tests: ${missing.join("; ")} (with CI set, this fails instead).`);

/**
 * Type-checks the notebooks' code, one module per notebook, against the built packages (dist/), as
 * a reader's editor would (Deno's kernel runs TypeScript without checking it); resolves with tsc's
 * diagnostics, "" when there are none.
 */
async function typeCheckNotebooks(): Promise<string> {
  const dir = join(root, "node_modules", ".cache", "agentrx-notebooks-check");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const name of NOTEBOOKS) {
    const code = readNotebook(join(notebooksDir, `${name}.ipynb`))
      .cells.filter((cell) => cell.cell_type === "code")
      .map((cell) => joined(cell.source))
      .join("\n\n")
      .replace(/from "(\.\.?\/[^"]+)"/g, (_, path: string) => `from ${JSON.stringify(resolve(notebooksDir, path))}`);
    writeFileSync(join(dir, `${name}.ts`), `${code}\nexport {};\n`);
  }
  const compilerOptions = { baseUrl: root, paths: {}, allowImportingTsExtensions: true, noUnusedLocals: false, noUnusedParameters: false };
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ extends: join(root, "tsconfig.json"), compilerOptions, include: ["*.ts"], exclude: [] }));
  const tsc = join(root, "node_modules", ".bin", "tsc");
  return execute(tsc, ["-p", join(dir, "tsconfig.json"), "--noEmit", "--pretty", "false"], { cwd: root, timeout: 90_000 }).then(
    () => "",
    (error: Error & { stdout?: string }) => error.stdout || error.message,
  );
}

// Started first, so that it runs while the notebooks do.
let typeChecked: Promise<string>;
beforeAll(() => {
  typeChecked = typeCheckNotebooks();
});

describe.skipIf(skip)("examples/notebooks on Deno's Jupyter kernel", () => {
  let tmp = "";
  let env: NodeJS.ProcessEnv = {};
  let endpoint: OpenAICompatibleServer | undefined;
  /** The executed copies, by run: each notebook offline, and the quickstart against `endpoint`. */
  const executed = new Map<string, Promise<Notebook>>();

  /**
   * Executes one notebook into `tmp/<run>.ipynb`, with `extraEnv` added (all at once: one kernel
   * each). This is `jupyter nbconvert --to notebook --execute`, except that nbconvert's
   * ExecutePreprocessor is replaced by a subclass (deno_execute_preprocessor.py) that waits for the
   * outputs Deno's kernel sends after a cell's end and logs the display ids Jupyter does not save.
   */
  function executeNotebook(run: string, name: NotebookName, extraEnv: NodeJS.ProcessEnv = {}) {
    const args = [
      "nbconvert",
      "--to",
      "notebook",
      "--NotebookExporter.preprocessors=deno_execute_preprocessor.DenoExecutePreprocessor",
      "--DenoExecutePreprocessor.enabled=True",
      `--ExecutePreprocessor.kernel_name=${KERNEL}`,
      `--ExecutePreprocessor.timeout=${CELL_TIMEOUT}`,
      "--output-dir",
      tmp,
      "--output",
      `${run}.ipynb`,
      join(notebooksDir, `${name}.ipynb`),
    ];
    const options = { cwd: notebooksDir, env: { ...env, ...extraEnv }, timeout: 150_000, maxBuffer: 16 * 1024 * 1024 };
    // A kernel that dies before it answers kernel_info never ran a cell: with five kernels started at
    // once, Jupyter's port picking (bind to 0, release, hand to the kernel) can race, and Deno's kernel
    // then exits on a port taken in between. That start, and only that, is tried again.
    const attempt = (triesLeft: number): Promise<unknown> =>
      execute(jupyter as string, args, options).catch((error: Error & { stderr?: string }) => {
        if (triesLeft > 0 && (error.stderr ?? "").includes(KERNEL_DIED_AT_START)) return attempt(triesLeft - 1);
        throw error;
      });
    const done = attempt(2).then(
      () => readNotebook(join(tmp, `${run}.ipynb`)),
      (error: Error & { stderr?: string }) => {
        // nbconvert's report of a failing cell (its source and error) ends stderr, after a traceback.
        const stderr = error.stderr ?? "";
        const cellError = stderr.indexOf("An error occurred while executing the following cell");
        throw new Error(`jupyter nbconvert failed on ${name}.ipynb: ${cellError >= 0 ? stderr.slice(cellError) : stderr.slice(-4000) || error.message}`);
      },
    );
    done.catch(() => undefined); // reported by the tests of that run
    executed.set(run, done);
  }

  beforeAll(async () => {
    if (missing.length > 0) throw new Error(`The notebook tests cannot run: ${missing.join("; ")}.`);
    tmp = mkdtempSync(join(tmpdir(), "agentrx-notebooks-"));
    const { OPENAI_API_KEY: _key, OPENAI_BASE_URL: _url, OPENAI_MODEL: _model, ...rest } = process.env;
    const jupyterDir = join(tmp, "data", "jupyter");
    env = {
      ...rest,
      // `deno jupyter --install` writes $XDG_DATA_HOME/jupyter/kernels/<name>; Jupyter reads kernels,
      // config and connection files from these folders only, and Deno caches in DENO_DIR.
      XDG_DATA_HOME: join(tmp, "data"),
      JUPYTER_DATA_DIR: jupyterDir,
      JUPYTER_PATH: jupyterDir,
      JUPYTER_CONFIG_DIR: join(tmp, "config"),
      JUPYTER_RUNTIME_DIR: join(tmp, "runtime"),
      DENO_DIR: join(tmp, "deno"),
      // deno_execute_preprocessor.py, imported from here without leaving a __pycache__ behind.
      PYTHONPATH: [__dirname, process.env.PYTHONPATH].filter(Boolean).join(delimiter),
      PYTHONDONTWRITEBYTECODE: "1",
    };
    await execute(deno?.path as string, ["jupyter", "--install", "--name", KERNEL, "--force"], { env, timeout: 60_000 });
    const kernelSpec = join(jupyterDir, "kernels", KERNEL, "kernel.json");
    if (!existsSync(kernelSpec)) throw new Error(`deno jupyter --install wrote no ${kernelSpec}`);

    for (const name of NOTEBOOKS) executeNotebook(name, name);
    endpoint = await startWeatherEndpoint();
    executeNotebook("quickstart-endpoint", "quickstart", { OPENAI_API_KEY: "sk-loopback", OPENAI_BASE_URL: endpoint.baseURL, OPENAI_MODEL: "loopback-model" });
  }, 90_000);

  afterAll(async () => {
    await Promise.allSettled(executed.values());
    await endpoint?.close();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  /** The cells of an executed copy (`run`: a notebook's name, or "quickstart-endpoint"). */
  async function notebook(run: string) {
    const result = await executed.get(run);
    if (!result) throw new Error(`${run} was not executed`);
    const cell = (id: string) => {
      const found = result.cells.find((candidate) => candidate.id === id);
      if (!found) throw new Error(`${run}: no cell ${id}`);
      return found;
    };
    /** What a cell printed (its stdout), and its errors, if any. */
    const printed = (id: string) => {
      const outputs = cell(id).outputs ?? [];
      const errors = outputs.filter((output) => output.output_type === "error").map((output) => `${output.ename}: ${output.evalue}`);
      if (errors.length > 0) throw new Error(`${run}: cell ${id} failed: ${errors.join("; ")}`);
      return outputs.filter((output) => output.output_type === "stream" && output.name === "stdout").map((output) => joined(output.text)).join("");
    };
    return { cell, printed };
  }

  describe("what the notebooks print", () => {
    it("quickstart.ipynb: a tool-calling agent checks the weather in two cities and answers", async () => {
      const { printed } = await notebook("quickstart");
      expect(printed("tool")).toBe("sunny, 21°C\n");
      expect(printed("model")).toContain("Model: ScriptedChatModel, offline");
      const result = printed("result");
      expect(result).toMatch(/^runId: [0-9a-f-]{36}$/m);
      expect(result).toContain('step: get_weather {"city":"Paris"} -> sunny, 21°C');
      expect(result).toContain('step: get_weather {"city":"Rome"} -> clear, 26°C');
      expect(result).toContain("answer: Paris is sunny at 21°C, while Rome is clear and warmer at 26°C: pack sunglasses for both.");
    }, TEST_TIMEOUT);

    it("custom-agent.ipynb: prompt, model and a hand-written parser, run in the executor, recover from a bad reply", async () => {
      const { printed } = await notebook("custom-agent");
      expect(printed("parser").split("\n").filter(Boolean).map((line) => JSON.parse(line))).toEqual([
        { tool: "calculator", toolInput: { expression: "2 ^ 10" }, log: 'CALL calculator {"expression": "2 ^ 10"}' },
        { returnValues: { output: "1024" }, log: "ANSWER 1024" },
      ]);
      expect(printed("prompt")).toMatch(/^system: You answer questions and use tools when they help\. Tools:\ncalculator: Evaluates one arithmetic expression/);
      expect(printed("prompt")).toContain("human: What is 17 times 23?");
      expect(printed("agent")).toContain("Model: ScriptedChatModel, offline");
      const result = printed("result");
      expect(result).toContain("step: _Exception: Let me work that out. -> Reply with exactly one line: CALL <tool> <JSON input>, or ANSWER <your answer>.");
      expect(result).toContain('step: calculator: CALL calculator {"expression": "17 * 23"} -> 391');
      expect(result).toContain("answer: 17 times 23 is 391.");
    }, TEST_TIMEOUT);

    it("streaming.ipynb: filter/map, scan, finalAnswerTokens, renderTrace, printTrace into the cell, and cancelling", async () => {
      const { printed } = await notebook("streaming");
      expect(printed("setup")).toContain("Model: ScriptedChatModel, offline");
      const lines = printed("filter").trimEnd().split("\n");
      expect(lines.slice(0, 2)).toEqual(['call    get_weather {"city":"Paris"}', 'call    get_weather {"city":"Rome"}']);
      expect(lines.slice(2).sort()).toEqual([
        expect.stringMatching(/^result {2}get_weather -> clear, 26°C \(\d+ ms\)$/),
        expect.stringMatching(/^result {2}get_weather -> sunny, 21°C \(\d+ ms\)$/),
      ]);
      const scan = printed("scan");
      expect(scan).toMatch(/^every token \(\d+ renders\): Let me check both cities\.Paris is sunny at 21°C and Rome is clear at 26°C\.$/m);
      expect(scan).toMatch(/^final answer tokens \(\d+ renders\): Paris is sunny at 21°C and Rome is clear at 26°C\.$/m);
      const trace = printed("trace");
      expect(trace).toMatch(/^model {3}Let me check both cities\.$/m);
      expect(trace).toMatch(/^action {2}get_weather \{"city":"Paris"\}$/m);
      expect(trace).toMatch(/^step {4}get_weather \(\d+ ms\) sunny, 21°C$/m);
      expect(trace).toMatch(/^answer {2}Paris is sunny at 21°C and Rome is clear at 26°C\. \(finish\)$/m);
      expect(trace).toMatch(/^the last event: output$/m);
      // printTrace's default writer: the cell's output in Deno's kernel (its process.stdout shows nowhere).
      const print = printed("print");
      expect(print).toMatch(/^action {2}get_weather \{"city":"Paris"\}$/m);
      expect(print).toMatch(/^answer {2}Paris is sunny at 21°C and Rome is clear at 26°C\. \(finish\)$/m);
      expect(print).toMatch(/^stop reason: finish$/m);
      const cancel = printed("cancel");
      expect(cancel).toContain("get_weather(Paris) cancelled");
      expect(cancel).toContain("get_weather(Rome) cancelled");
      expect(cancel).toMatch(/^events before the stop: start, .*action$/m);
      expect(cancel).toContain("an output event: false");
      expect(printed("signal")).toMatch(/^the run failed: AbortError$/m);
    }, TEST_TIMEOUT);

    it("approval.ipynb: the run pauses, three calls wait, the decisions are applied when another executor resumes it", async () => {
      const { printed } = await notebook("approval");
      expect(printed("setup")).toContain("Model: ScriptedChatModel, offline");
      expect(printed("paused")).toBe(
        [
          "status in the store: interrupted",
          'waiting: call-0-1 refund {"order":"B2","amount":150}',
          'waiting: call-0-2 refund {"order":"C3","amount":400}',
          'waiting: call-0-3 refund {"order":"D4","amount":900}',
          "",
        ].join("\n"),
      );
      expect(JSON.parse(printed("decide"))).toEqual({
        "call-0-1": "approve",
        "call-0-2": { type: "edit", toolInput: { order: "C3", amount: 200 } },
        "call-0-3": { type: "reject", message: "a refund of 900 € on D4 needs a manager" },
      });
      expect(printed("done")).toBe(
        [
          "status in the store: finished",
          'step: refund {"order":"A1","amount":30} -> refunded 30 € on A1',
          'step: refund {"order":"B2","amount":150} -> refunded 150 € on B2',
          'step: refund {"order":"C3","amount":200} -> refunded 200 € on C3',
          'step: refund {"order":"D4","amount":900} -> a refund of 900 € on D4 needs a manager',
          "answer: Done: refunded 30 € on A1; refunded 150 € on B2; refunded 200 € on C3; a refund of 900 € on D4 needs a manager.",
          "",
        ].join("\n"),
      );
    }, TEST_TIMEOUT);
  });

  describe("with a real endpoint", () => {
    it("quickstart.ipynb: OPENAI_API_KEY and OPENAI_BASE_URL switch it to an OpenAI-compatible server", async () => {
      const { printed } = await notebook("quickstart-endpoint");
      expect(printed("model")).toContain(`Model: loopback-model at ${endpoint?.baseURL} (from OPENAI_API_KEY / OPENAI_BASE_URL).`);
      const result = printed("result");
      expect(result).toContain('step: get_weather {"city":"Paris"} -> sunny, 21°C');
      expect(result).toContain('step: get_weather {"city":"Rome"} -> clear, 26°C');
      expect(result).toContain("answer: Paris is sunny and Rome is clear.");
      const bodies = endpoint?.chatRequests() ?? [];
      expect(bodies).toHaveLength(2);
      expect(bodies.map((body: { model: string }) => body.model)).toEqual(["loopback-model", "loopback-model"]);
    }, TEST_TIMEOUT);
  });

  // The contract of the run display: a cell whose last expression is a run shows a live
  // `agentrx-run` table (display_data with a display_id, updated in place, its last update with
  // the trace page), then ends with an execute_result: one line, a summary and the run as JSON.
  describe("how a run displays itself", () => {
    interface RunJson {
      runId: string;
      status: "finished" | "interrupted" | "failed" | "cancelled";
      stopReason?: string;
      output?: string;
      actions: number;
      steps: number;
      interrupts?: { id: string }[];
    }

    function runDisplay(cell: Cell, { mentions }: { mentions: string[] }): RunJson {
      if ((cell.outputs ?? []).some((output) => output.output_type === "error")) throw new Error(`cell ${cell.id} failed`);
      const log = cell.metadata.iopub ?? [];
      const live = log.find((entry) => entry.msg_type === "display_data" && entry.display_id);
      expect(live, `cell ${cell.id}: no display_data with a display_id while the run ran (IOPub: ${JSON.stringify(log)})`).toBeDefined();
      expect(
        log.some((entry) => entry.msg_type === "update_display_data" && entry.display_id === live?.display_id),
        `cell ${cell.id}: the live table was never updated in place`,
      ).toBe(true);
      const table = (cell.outputs ?? []).find((output) => output.output_type === "display_data");
      const html = joined(table?.data?.["text/html"] as string | string[] | undefined);
      expect(html, `cell ${cell.id}: the live display's root element has class agentrx-run`).toMatch(/^\s*<[a-z]+\b[^>]*\bclass=["'](?:[^"']*\s)?agentrx-run[\s"']/);
      expect(html).toContain("<table");
      // Its last update carries the trace page too (a late cell value could land under the next cell).
      expect(html, `cell ${cell.id}: the live display ends with the trace page`).toMatch(/<iframe\b[^>]*\bsrcdoc=/);
      for (const text of mentions) expect(html, `cell ${cell.id}: the live table shows ${text}`).toContain(text);

      const result = (cell.outputs ?? []).find((output) => output.output_type === "execute_result");
      expect(Object.keys(result?.data ?? {}).sort(), `cell ${cell.id}: the execute_result's MIME types`).toEqual(
        expect.arrayContaining(["application/vnd.agentrx.run+json", "text/html", "text/plain"]),
      );
      expect(joined(result?.data?.["text/html"] as string | string[]), `cell ${cell.id}: the execute_result is one line, the trace is not stored twice`).not.toMatch(/<iframe\b/);
      const summary = joined(result?.data?.["text/plain"] as string | string[]).trim();
      expect(summary.length, `cell ${cell.id}: the text/plain summary`).toBeGreaterThan(0);
      expect(summary.split("\n")[0]?.length, "the text/plain summary starts with one short line").toBeLessThan(200);
      const json = result?.data?.["application/vnd.agentrx.run+json"] as RunJson;
      expect(json).toMatchObject({ runId: expect.any(String), status: expect.any(String), actions: expect.any(Number), steps: expect.any(Number) });
      return json;
    }

    const printedRunId = (printed: string) => /^runId: (\S+)$/m.exec(printed)?.[1];

    it("quickstart.ipynb: `run` shows the live table and the trace; `await run` is the same run", async () => {
      const { cell, printed } = await notebook("quickstart");
      const json = runDisplay(cell("run"), { mentions: ["get_weather", "pack sunglasses"] });
      expect(json).toMatchObject({ status: "finished", stopReason: "finish", actions: 2, steps: 2 });
      expect(json.output).toBe("Paris is sunny at 21°C, while Rome is clear and warmer at 26°C: pack sunglasses for both.");
      expect(json.runId).toBe(printedRunId(printed("result")));
    }, TEST_TIMEOUT);

    it("custom-agent.ipynb: the hand-made agent's run displays itself", async () => {
      const { cell, printed } = await notebook("custom-agent");
      const json = runDisplay(cell("run"), { mentions: ["calculator", "391"] });
      expect(json).toMatchObject({ status: "finished", stopReason: "finish", output: "17 times 23 is 391.", steps: 2 });
      // The rejected reply is a step without an action event: the display may count it as an action or not.
      expect([1, 2]).toContain(json.actions);
      expect(json.runId).toBe(printedRunId(printed("result")));
    }, TEST_TIMEOUT);

    it("streaming.ipynb: `executor.stream(inputs)` as the last expression displays the run", async () => {
      const { cell } = await notebook("streaming");
      const json = runDisplay(cell("live"), { mentions: ["get_weather", "Rome is clear"] });
      expect(json).toMatchObject({ status: "finished", stopReason: "finish", output: "Paris is sunny at 21°C and Rome is clear at 26°C.", actions: 2, steps: 2 });
    }, TEST_TIMEOUT);

    it("approval.ipynb: the paused run displays as interrupted, the resumed one as finished", async () => {
      const { cell } = await notebook("approval");
      const paused = runDisplay(cell("run"), { mentions: ["refund"] });
      expect(paused).toMatchObject({ runId: "refunds-1", status: "interrupted", actions: 4, steps: 1 });
      expect(paused.interrupts?.map((interrupt) => interrupt.id)).toEqual(["call-0-1", "call-0-2", "call-0-3"]);
      const resumed = runDisplay(cell("resume"), { mentions: ["refund"] });
      expect(resumed).toMatchObject({
        runId: "refunds-1",
        status: "finished",
        output: "Done: refunded 30 € on A1; refunded 150 € on B2; refunded 200 € on C3; a refund of 900 € on D4 needs a manager.",
      });
    }, TEST_TIMEOUT);
  });
});

describe("examples/notebooks as committed", () => {
  it.each(NOTEBOOKS)("%s.ipynb: nbformat 4, Deno's kernelspec, no outputs, no execution counts", (name) => {
    const notebook = readNotebook(join(notebooksDir, `${name}.ipynb`));
    expect(notebook.nbformat).toBe(4);
    expect(notebook.metadata.kernelspec).toEqual({ name: "deno", display_name: "Deno", language: "typescript" });
    const code = notebook.cells.filter((cell) => cell.cell_type === "code");
    expect(code.length).toBeGreaterThan(0);
    for (const cell of code) {
      expect({ id: cell.id, outputs: cell.outputs, execution_count: cell.execution_count }).toEqual({ id: cell.id, outputs: [], execution_count: null });
    }
    expect(notebook.cells.some((cell) => cell.cell_type === "markdown")).toBe(true);
  });

  it("their code type-checks", async () => {
    expect(await typeChecked).toBe("");
  }, 90_000);
});
