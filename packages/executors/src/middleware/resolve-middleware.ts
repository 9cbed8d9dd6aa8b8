import { InvalidArgumentError } from "@agentrx/core";
import { holdsAnswerTokens } from "./holds-answer-tokens";
import type { AgentMiddleware } from "./agent-middleware";

/** A middleware with its name (its own, else `middleware[i]`). @internal */
export interface NamedMiddleware {
  name: string;
  middleware: AgentMiddleware;
}

/** The executor's middleware, by hook, in order (the first is the outermost). @internal */
export interface MiddlewareChain {
  all: readonly NamedMiddleware[];
  prepareStep: readonly NamedMiddleware[];
  wrapModelCall: readonly NamedMiddleware[];
  wrapToolCall: readonly NamedMiddleware[];
  afterTurn: readonly NamedMiddleware[];
  /** Whether one checks the answer after the model call (an output guardrail): the run holds the call's tokens until it returns. */
  holdsAnswerTokens: boolean;
}

const HOOKS = ["prepareStep", "wrapModelCall", "wrapToolCall", "afterTurn"] as const;
const KEYS = new Set<string>(["name", ...HOOKS]);

/**
 * Validates the executor's `middleware` option; undefined when there is none (the loop then runs
 * without any middleware machinery). @internal
 */
export function resolveMiddleware(value: unknown): MiddlewareChain | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) fail(value, "`middleware` must be an array of middleware objects (e.g. [compactSteps({ ... })]).");
  const all: NamedMiddleware[] = value.map((middleware: unknown, index: number) => {
    const at = `middleware[${index}]`;
    if (typeof middleware !== "object" || middleware === null) fail(middleware, `\`${at}\` must be an object with hooks (prepareStep, wrapModelCall, wrapToolCall, afterTurn), got ${middleware === null ? "null" : typeof middleware}.`);
    const given = middleware as Record<string, unknown>;
    const name = given["name"];
    if (name !== undefined && (typeof name !== "string" || name === "")) fail(middleware, `\`${at}.name\` must be a non-empty string.`);
    const label = name === undefined ? at : `${at} ("${name}")`;
    // A typo in an object literal (`prepareSteps`) would silently do nothing: refused. A class
    // instance may have helpers of its own.
    const plain = Object.getPrototypeOf(given) === Object.prototype || Object.getPrototypeOf(given) === null;
    for (const key of plain ? Object.keys(given) : []) {
      if (!KEYS.has(key)) fail(middleware, `${label} has an unknown key \`${key}\`; a middleware has name, ${HOOKS.join(", ")}.`);
    }
    for (const hook of HOOKS) {
      if (given[hook] !== undefined && typeof given[hook] !== "function") fail(middleware, `\`${label}.${hook}\` must be a function.`);
    }
    return { name: (name as string | undefined) ?? at, middleware: middleware as AgentMiddleware };
  });
  if (all.length === 0) return undefined;
  const having = (hook: (typeof HOOKS)[number]) => all.filter((entry) => typeof entry.middleware[hook] === "function");
  return {
    all,
    prepareStep: having("prepareStep"),
    wrapModelCall: having("wrapModelCall"),
    wrapToolCall: having("wrapToolCall"),
    afterTurn: having("afterTurn"),
    holdsAnswerTokens: holdsAnswerTokens(all.map((entry) => entry.middleware)),
  };
}

function fail(value: unknown, message: string): never {
  throw new InvalidArgumentError({ argument: "middleware", value, message: `AgentExecutor: ${message}` });
}
