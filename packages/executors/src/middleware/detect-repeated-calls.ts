import { isAgentFinish, checkOptionKeys, showValue } from "@agentrx/core";
import type { AgentAction, AgentStep } from "@agentrx/core";
import type { AgentMiddleware } from "./agent-middleware";
import { badOption, stableJson } from "./middleware-helpers";
import { stopRun } from "./stop-run";

/** Options of {@link detectRepeatedCalls}. */
export interface DetectRepeatedCallsOptions {
  /**
   * How many times the same tool may be asked for with the same arguments in one run: the call
   * that reaches it is not run (the model is told instead), and asking for it once more ends the run.
   * @default 3
   */
  max?: number;
}

/** How the note the model gets instead of a repeated call's result begins. */
const NOTE_PREFIX = "Repeated call:";

/**
 * Stops an agent that loops on one call. When the model asks for the same tool with the same
 * arguments (compared as JSON, key order ignored) for the `max`-th time in a run, the tool is not
 * run: the model gets an observation telling it so, once. If it asks for that call again, the run
 * ends with `stopReason: "repeated_call"` (`stoppedBy` names the tool and its input). Counts come
 * from the run's steps (and the calls of the turn in progress: identical calls of one turn count
 * too), so a resumed or forked run counts what came before. Whether the model was told comes from the
 * same record (the run holds `max` identical calls and the `max`-th got the note), never from what a
 * tool returned: a tool result that begins like the note does not end the run.
 *
 * @example
 * ```ts
 * import { AgentExecutor, detectRepeatedCalls } from "@agentrx/executors";
 * import { RunnableLambda } from "@langchain/core/runnables";
 * import { tool } from "@langchain/core/tools";
 * import { z } from "zod";
 *
 * const search = tool(async () => "no results", { name: "search", description: "Searches.", schema: z.object({ q: z.string() }) });
 * const stubborn = RunnableLambda.from(() => ({ tool: "search", toolInput: { q: "rome" }, log: "" }));
 * const executor = new AgentExecutor({ agent: stubborn, tools: [search], middleware: [detectRepeatedCalls({ max: 2 })] });
 * const result = await executor.invoke({ input: "weather in Rome?" });
 * console.log(result.stopReason); // "repeated_call"
 * ```
 */
export function detectRepeatedCalls(options: DetectRepeatedCallsOptions = {}): AgentMiddleware {
  if (typeof options !== "object" || options === null || Array.isArray(options)) badOption("detectRepeatedCalls", "options", options, "pass an options object { max? }.");
  checkOptionKeys("detectRepeatedCalls", options, ["max"] satisfies (keyof DetectRepeatedCallsOptions)[]);
  const { max = 3 } = options;
  if (!Number.isInteger(max) || max < 2) badOption("detectRepeatedCalls", "max", max, `\`max\` must be an integer >= 2 (how many identical calls a run may ask for), got ${showValue(max)}.`);
  const keyOf = (action: AgentAction): string => `${action.tool}\u0000${stableJson(action.toolInput)}`;
  // Whether this middleware told the model about the call `key` in `steps`. It answers the `max`-th
  // identical call with its note instead of running it, so it told the model exactly when the run
  // holds `max` such calls and the `max`-th one's observation is that note. The calls are the
  // model's (their keys come from the recorded actions, which a tool cannot write) and a resumed or
  // forked run has them all; the note check leaves out calls made before the middleware was added
  // (their tool ran, so the model was told nothing). A tool's result that merely looks like the
  // note never counts: below `max` calls nothing was told, whatever the observations say.
  const told = (steps: readonly AgentStep[], key: string, tool: string): boolean => {
    let seen = 0;
    for (const step of steps) {
      if (keyOf(step.action) !== key || ++seen < max) continue;
      return step.observation === note(tool, max);
    }
    return false;
  };
  // The calls of the turn in progress, by key: a turn's steps join the run only when it ends, so
  // identical calls of one turn (a model that asks for the same call several times at once) are
  // counted here. A run's steps are a new array after each turn: keyed by it, nothing outlives the turn.
  const turns = new WeakMap<readonly AgentStep[], Map<string, Set<AgentAction>>>();
  const inTurn = (call: { runSteps: readonly AgentStep[]; action: AgentAction }, key: string): number => {
    let calls = turns.get(call.runSteps);
    if (calls === undefined) turns.set(call.runSteps, (calls = new Map()));
    let same = calls.get(key);
    if (same === undefined) calls.set(key, (same = new Set()));
    const before = same.has(call.action) ? [...same].indexOf(call.action) : same.size; // a retried call is not a repeat
    same.add(call.action);
    return before;
  };
  return {
    name: "detectRepeatedCalls",
    async wrapModelCall(request, next) {
      const output = await next(request);
      if (isAgentFinish(output)) return output;
      for (const action of Array.isArray(output) ? output : [output]) {
        const key = keyOf(action);
        if (!told(request.runSteps, key, action.tool)) continue;
        stopRun({
          reason: "repeated_call",
          message: `Agent stopped: it asked again for ${action.tool} with the same arguments after being told that ${max} identical calls are the limit.`,
          details: { tool: action.tool, toolInput: action.toolInput as never, max },
        });
      }
      return output;
    },
    async wrapToolCall(call, next) {
      const key = keyOf(call.action);
      let before = inTurn(call, key);
      for (const step of call.runSteps) if (keyOf(step.action) === key) before++;
      if (before + 1 < max) return next(call);
      call.report({ tool: call.action.tool, times: before + 1, told: true });
      return note(call.action.tool, before + 1);
    },
  };
}

/** The observation the model gets instead of the result of the `times`-th identical call of `tool`. */
function note(tool: string, times: number): string {
  return `${NOTE_PREFIX} you have asked for ${tool} with these same arguments ${times} times; it was not run again, its result would not change. Use the results you have or try something different. Asking for this same call again ends the run.`;
}

