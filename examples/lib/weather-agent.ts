// The quickstart's agent, shared by examples/quickstart.ts and examples/runs.ts: a tool-calling
// agent that checks the weather (a slow tool), on a real endpoint when OPENAI_API_KEY is set and on
// a ScriptedChatModel otherwise.
// With its extension: Deno's notebook kernel imports this file and resolves no extensionless path.
import { endpointModel } from "./endpoint-model.ts";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { InvalidArgumentError } from "@agentrx/core";
import { type AgentExecutor, type RunStore, createAgentExecutor } from "@agentrx/executors";
import { PostgresRunStore, SqliteRunStore } from "@agentrx/runs";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";

/** `AGENTRX_RUNS_DB`, where it is set and not empty (as the `agentrx` command reads it). */
const RUNS_DB_SETTING = process.env.AGENTRX_RUNS_DB || undefined;

/** A PostgreSQL connection string, which the `agentrx` command reads as such too. */
const POSTGRES_URL = /^postgres(?:ql)?:\/\//i;

/**
 * Where the examples record their runs, as they print it: `AGENTRX_RUNS_DB` (an SQLite file, or
 * PostgreSQL as `PostgreSQL host:port/database` for a `postgres://` URL, its password never
 * printed), else `.agentrx/runs.db`. An empty `AGENTRX_RUNS_DB` counts as unset.
 */
export const RUNS_DB = RUNS_DB_SETTING === undefined ? ".agentrx/runs.db" : POSTGRES_URL.test(RUNS_DB_SETTING) ? postgresLabel(RUNS_DB_SETTING) : RUNS_DB_SETTING;

function postgresLabel(url: string): string {
  try {
    const { host, pathname } = new URL(url);
    return `PostgreSQL ${host}${pathname}`;
  } catch {
    return "PostgreSQL";
  }
}

/**
 * The run store of the examples: `AGENTRX_RUNS_DB` or `.agentrx/runs.db` (see {@link RUNS_DB}),
 * a `PostgresRunStore` for a `postgres://` URL (its `?schema=`, else `agentrx`, as `agentrx --db`
 * reads it) and the embedded SQLite store otherwise. `AGENTRX_SQLITE_DRIVER=node:sqlite` picks
 * Node's built-in SQLite (Node.js 22.13+) over better-sqlite3, as the runtime tests do on a Node.js
 * line other than the one `npm install` built better-sqlite3 for. A value neither store takes (the
 * URL of another database) is a usage mistake: one line on stderr says so, and the process exits
 * with code 2. `driver` is the SQLite store's (absent for PostgreSQL).
 */
export function runStore(): RunStore & Partial<Pick<SqliteRunStore, "driver">> {
  const driver = process.env.AGENTRX_SQLITE_DRIVER === "node:sqlite" ? "node:sqlite" : undefined;
  try {
    if (RUNS_DB_SETTING !== undefined && POSTGRES_URL.test(RUNS_DB_SETTING)) return new PostgresRunStore({ connectionString: RUNS_DB_SETTING });
    return new SqliteRunStore({ path: RUNS_DB_SETTING ?? ".agentrx/runs.db", ...(driver ? { driver } : {}) });
  } catch (error) {
    if (!InvalidArgumentError.isInstance(error)) throw error;
    // The store's message names the value without its password.
    console.error(`AGENTRX_RUNS_DB cannot be used: the examples record into an SQLite file (its path) or PostgreSQL (a postgres:// URL). ${error.message}`);
    process.exit(2);
  }
}

/** The weather tool (a slow API), shared by the examples. */
export const weather = tool(
  async ({ city }) => {
    await new Promise((resolve) => setTimeout(resolve, 300)); // a slow API
    const reports: Record<string, string> = { paris: "sunny, 21°C", rome: "clear, 26°C" };
    return reports[city.toLowerCase()] ?? "cloudy, 15°C";
  },
  {
    name: "get_weather",
    description: "Current weather for a city.",
    schema: z.object({ city: z.string().describe("The city name, e.g. Paris") }),
  },
);

const CITIES = ["Paris", "Rome"];

/**
 * The offline model's answer, from the conversation it is sent: it asks for the weather of the
 * cities whose results are not in the conversation yet, and answers from the results once all are.
 * So a resumed run (its recorded tool results are sent again) repeats nothing.
 */
export function answerFromConversation(messages: BaseMessage[]) {
  const results = new Map<string, string>();
  const asked = new Map<string, string>(); // tool call id -> city
  for (const message of messages) {
    if (AIMessage.isInstance(message)) for (const call of message.tool_calls ?? []) asked.set(call.id ?? "", String(call.args["city"]));
    if (ToolMessage.isInstance(message)) results.set(asked.get(message.tool_call_id) ?? "", message.text);
  }
  const missing = CITIES.filter((city) => !results.has(city));
  if (missing.length > 0) return { toolCalls: missing.map((city) => ({ name: "get_weather", args: { city } })) };
  const [parisSky = "", parisTemperature = ""] = (results.get("Paris") ?? "").split(", ");
  const [romeSky = "", romeTemperature = ""] = (results.get("Rome") ?? "").split(", ");
  const degrees = (temperature: string) => Number.parseFloat(temperature);
  const difference = degrees(romeTemperature) - degrees(parisTemperature);
  const compared = difference > 0 ? "warmer" : difference < 0 ? "colder" : "as warm";
  const gear = (sky: string) => (/sun|clear/i.test(sky) ? "sunglasses" : /storm|rain|shower/i.test(sky) ? "an umbrella" : "a jacket");
  const packing = gear(parisSky) === gear(romeSky) ? `${gear(parisSky)} for both` : `${gear(parisSky)} for Paris and ${gear(romeSky)} for Rome`;
  return `Paris is ${parisSky} at ${parisTemperature}, while Rome is ${romeSky} and ${compared} at ${romeTemperature}: pack ${packing}.`;
}

export function chooseModel(): BaseChatModel {
  const real = endpointModel({ streaming: true, temperature: 0 });
  if (real) return real;
  // Named as a real model so the demo's runs are priced (as that model would be) offline too.
  return new ScriptedChatModel({ streaming: true, tokenDelayMs: 15, responses: [answerFromConversation], onExhausted: "repeat-last", model: "gpt-4o-mini" });
}

/** The weather agent's executor, recording into `store`. */
export function weatherExecutor(store: RunStore): AgentExecutor {
  return createAgentExecutor({
    model: chooseModel(),
    tools: [weather],
    system: "You are a concise travel assistant. Use tools for facts; call independent tools together.",
    maxIterations: 5,
    store,
    // A short lease, so a run whose process was killed can be resumed a few seconds later.
    leaseMs: 5_000,
    // Each call's exact request is recorded (readPrompts, agentrx diff), and priced from the
    // @pydantic/genai-prices list (agentrx runs, show: docs/cost.md).
    recordPrompts: true,
    prices: "auto",
  });
}
