// A research agent, end to end: it searches 40 cities one call per turn, keeps its context under
// 8,000 tokens with compactSteps, takes "Also check Rome." sent from another terminal while it
// runs, and stops itself when a guardrail finds a credit-card number in a search result.
//
//   npx tsx examples/research-agent.ts                                   # terminal 1: prints the run id, then one line per step
//   npx tsx examples/research-agent.ts send <runId> "Also check Rome."   # terminal 2, while it runs
//
// The run is recorded in AGENTRX_RUNS_DB (else .agentrx/runs.db); the second terminal needs only
// that store. Each search waits RESEARCH_STEP_MS milliseconds (default 1000: about 40 s in all,
// time to type in the other terminal; RESEARCH_STEP_MS=0 runs at full speed). Offline the run
// stops at the 35th city, whose search result leaks a card number: stopReason=guardrail.
//
// With OPENAI_API_KEY set (and optionally OPENAI_BASE_URL, OPENAI_MODEL) the agent and the
// summarizer use that endpoint; without it, they run offline on ScriptedChatModels, and it says so.
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, type AgentStreamEvent, compactSteps, guardrail, sendRunMessage } from "@agentrx/executors";
import { readPrompts, type RecordedPrompt } from "@agentrx/runs";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { lastValueFrom, tap } from "rxjs";
import { z } from "zod";
import { endpointModel } from "./lib/endpoint-model";
import { RUNS_DB, runStore } from "./lib/weather-agent";

/** The context the agent may use: every prompt it sends stays under this. */
const CONTEXT_TOKENS = 8_000;
const STEP_MS = Number(process.env.RESEARCH_STEP_MS ?? 1_000);
if (!Number.isFinite(STEP_MS) || STEP_MS < 0) throw new Error(`RESEARCH_STEP_MS must be a number of milliseconds >= 0, got ${JSON.stringify(process.env.RESEARCH_STEP_MS)}.`);

// prettier-ignore
const CITIES = [
  "Lisbon", "Madrid", "Barcelona", "Marseille", "Lyon", "Paris", "Brussels", "Amsterdam", "Rotterdam", "Hamburg",
  "Berlin", "Copenhagen", "Oslo", "Stockholm", "Helsinki", "Tallinn", "Riga", "Vilnius", "Warsaw", "Krakow",
  "Prague", "Vienna", "Budapest", "Bratislava", "Ljubljana", "Zagreb", "Belgrade", "Sofia", "Bucharest", "Athens",
  "Valletta", "Naples", "Milan", "Zurich", "Munich", "Frankfurt", "Cologne", "Dublin", "Edinburgh", "London",
];
/** The city whose search result leaks a card number (the 35th). */
const LEAKY = CITIES[34] as string;
const QUESTION = `How are these ${CITIES.length} European cities preparing for summer heat waves? Research them one at a time, in this order, one search per city: ${CITIES.join(", ")}. Then compare them.`;

// ---------------------------------------------------------------------------------------------
// The second terminal: send a message to the run through the store, and say what send answered.
const [command, ...rest] = process.argv.slice(2);
if (command === "send") {
  const [runId, message] = rest;
  if (!runId || !message) {
    console.error('usage: npx tsx examples/research-agent.ts send <runId> "Also check Rome."');
    process.exit(2);
  }
  const store = runStore();
  try {
    const sent = await sendRunMessage(runId, message, { store, operation: "research-agent send" });
    console.log(`Sent to run ${sent.runId}: inboxSeq=${sent.inboxSeq} status=${sent.status}`);
  } catch (error) {
    // RunFinishedError (too late: the run ended) or RunNotFoundError (no such run in this store).
    console.error(`Not sent: ${(error as Error).name}: ${(error as Error).message}`);
    process.exitCode = 1;
  } finally {
    await store.close();
  }
} else if (command !== undefined) {
  console.error('usage: npx tsx examples/research-agent.ts [send <runId> "message"]');
  process.exitCode = 2;
} else {
  await research();
}

// ---------------------------------------------------------------------------------------------
// The first terminal: the run.
async function research(): Promise<void> {
  const real = endpointModel({ temperature: 0 });
  const llm: BaseChatModel = real ?? new ScriptedChatModel({ responses: [offlineResearcher], onExhausted: "repeat-last", model: "gpt-4o-mini" });
  const summarizer: BaseChatModel = real ?? new ScriptedChatModel({ responses: [offlineSummary], onExhausted: "repeat-last" });

  const search = tool(
    async ({ query }) => {
      if (STEP_MS > 0) await new Promise((resolve) => setTimeout(resolve, STEP_MS));
      return searchResult(query);
    },
    { name: "search", description: "Searches news and city reports. Query with one city name.", schema: z.object({ query: z.string().describe("A city name, e.g. Lisbon") }) },
  );
  const prompt = ChatPromptTemplate.fromMessages([
    ["system", "You are a careful research assistant. Use the search tool for facts, one search per turn. When the user sends a new request during the research, handle it next, then go on."],
    ["human", "{input}"],
    new MessagesPlaceholder("agent_scratchpad"),
  ]);
  const store = runStore();
  const executor = new AgentExecutor({
    agent: createToolCallingAgent({ llm, tools: [search], prompt }),
    tools: [search],
    store,
    maxIterations: 50,
    recordPrompts: true, // each model call's exact request is recorded: the largest one is measured below
    middleware: [
      // compactSteps counts the steps only; the system prompt, the question and the tool
      // definition (about 400 tokens) and the summary take the rest of the 8,000.
      compactSteps({ model: summarizer, maxTokens: CONTEXT_TOKENS - 1_000 }),
      guardrail({ name: "no-card-numbers", on: "tool", check: ({ text }) => cardNumberIn(text) }),
    ],
  });

  let runId = "";
  let steps = 0;
  const print = (event: AgentStreamEvent) => {
    if (event.type === "start") {
      runId = event.runId;
      console.log(`Run ${runId} started, recorded in ${RUNS_DB}.`);
      console.log(`From another terminal: npx tsx examples/research-agent.ts send ${runId} "Also check Rome."\n`);
    } else if (event.type === "step") {
      steps++;
      const { tool: name, toolInput } = event.step.action;
      console.log(`step ${String(steps).padStart(2)}  ${name} ${JSON.stringify(toolInput)}  ${estimateTokens(String(event.step.observation))} tokens  (${Math.round(event.durationMs)} ms)`);
    } else if (event.type === "message") {
      console.log(`message  ${JSON.stringify(event.message.text)} joined the run before call ${event.iteration + 1}`);
    } else if (event.type === "compaction") {
      console.log(`compaction  steps 1-${event.steps} summarized for call ${event.iteration + 1} (${estimateTokens(event.summary)} tokens)`);
    }
  };
  try {
    const result = await lastValueFrom(executor.stream({ input: QUESTION }).pipe(tap(print)));
    if (result.type !== "output") throw new Error(`The run ended without an output event (last: ${result.type}).`);
    console.log(`\nanswer  ${result.output}`);
    const largest = Math.max(0, ...(await readPrompts(store, runId)).map(promptTokens));
    console.log(`largest prompt: ${largest} tokens (of ${CONTEXT_TOKENS}; about 4 characters a token, as compactSteps counts)`);
    console.log(`stopReason=${result.stopReason}`);
  } finally {
    await store.close();
  }
}

// ---------------------------------------------------------------------------------------------
// The tool's corpus, the guardrail's check and the token estimate.

/** A few hundred tokens of findings about a city; one city's page leaks a customer's card number. */
function searchResult(query: string): string {
  const city = query.trim();
  const seed = [...city].reduce((sum, char) => sum + char.charCodeAt(0), 0);
  const days = 8 + (seed % 17);
  const trees = 2_000 + (seed * 37) % 9_000;
  const centres = 5 + (seed % 40);
  const text = [
    `${city}: heat-wave preparedness, summary of recent reports.`,
    `The city recorded ${days} days above 35°C over the last three summers, against ${Math.round(days / 3)} a decade earlier.`,
    `Its heat action plan sends text alerts three days ahead of a forecast heat wave and opens ${centres} cooling centres in libraries, schools and community halls, with longer opening hours for parks and public pools.`,
    `Since 2019 the council has planted ${trees.toLocaleString("en-US")} street trees, favouring the districts with the least shade and the oldest residents, and it has painted school yards and some roofs white to lower surface temperatures by several degrees.`,
    `Social services phone isolated older residents during heat waves; volunteers knock on doors where no one answers. Hospitals report fewer heat-related admissions since the plan started, though the data cover only a few summers.`,
    `Open questions: the cost of retrofitting public housing with shading and ventilation, water use for parks during droughts, and whether night-time temperatures, which keep rising, are tracked well enough to guide the alerts.`,
    `Sources: municipal climate office, national weather service, two local newspapers and a university study on urban heat islands.`,
  ];
  if (city.toLowerCase() === LEAKY.toLowerCase()) {
    text.push(`Scraped from a booking page for cooling-centre transport: "Paid by Anna K., card 4111 1111 1111 1111, exp 09/28."`);
  }
  return text.join(" ");
}

/** The guardrail's check: a 13 to 19 digit number that passes the Luhn checksum, as card numbers do. */
function cardNumberIn(text: string): string | false {
  for (const match of text.matchAll(/\b\d(?:[ -]?\d){12,18}\b/g)) {
    const digits = match[0].replace(/\D/g, "");
    let sum = 0;
    for (let i = 0; i < digits.length; i++) {
      let digit = Number(digits[digits.length - 1 - i]);
      if (i % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
      sum += digit;
    }
    if (sum % 10 === 0) return `a credit-card number (ending ${digits.slice(-4)})`;
  }
  return false;
}

/** About 4 characters a token: the estimate compactSteps uses. */
function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** A recorded prompt's size: the text of its messages, their tool calls and the tool definitions. */
function promptTokens(prompt: RecordedPrompt): number {
  let chars = prompt.tools === undefined ? 0 : JSON.stringify(prompt.tools).length;
  for (const message of prompt.messages) {
    const data = (message as { data?: { content?: unknown; tool_calls?: unknown } }).data ?? {};
    chars += typeof data.content === "string" ? data.content.length : JSON.stringify(data.content ?? "").length;
    if (Array.isArray(data.tool_calls) && data.tool_calls.length > 0) chars += JSON.stringify(data.tool_calls).length;
  }
  return Math.ceil(chars / 4);
}

// ---------------------------------------------------------------------------------------------
// The offline models.

/**
 * The scripted researcher, from the conversation it is sent (its earlier steps may be summarized):
 * when the latest human message asks to also check a city it has not searched since, it searches
 * that city; otherwise it searches the next city not yet researched; then it answers.
 */
function offlineResearcher(messages: BaseMessage[]) {
  const searched: { city: string; at: number }[] = [];
  let summary = "";
  let request: { city: string; at: number } | undefined;
  messages.forEach((message, at) => {
    if (AIMessage.isInstance(message)) {
      for (const call of message.tool_calls ?? []) if (call.name === "search") searched.push({ city: String(call.args["query"]), at });
    } else if (HumanMessage.isInstance(message) && message.text.startsWith("Summary of the earlier steps")) {
      summary = message.text; // compactSteps' summary step: the tool-calling agent shows it as a human message
    } else if (HumanMessage.isInstance(message) && at > 1) {
      const asked = /\balso (?:check|research|look at) ([A-Z][\p{L}-]+(?: [A-Z][\p{L}-]+)*)/iu.exec(message.text);
      if (asked) request = { city: asked[1] as string, at };
    }
  });
  if (request && !searched.some((entry) => entry.at > (request as { at: number }).at && entry.city === request?.city)) {
    return { toolCalls: [{ name: "search", args: { query: request.city } }] };
  }
  const done = new Set([...searched.map((entry) => entry.city), ...CITIES.filter((city) => summary.includes(city))]);
  const next = CITIES.find((city) => !done.has(city));
  if (next) return { toolCalls: [{ name: "search", args: { query: next } }] };
  return `All ${CITIES.length} cities plan for heat waves with alerts, cooling centres and street trees; they differ most in how many trees they plant and how many cooling centres they open.`;
}

/** The scripted summarizer: names every city researched in the steps it is given (and the summary before). */
function offlineSummary(messages: BaseMessage[]) {
  const notes = messages.map((message) => message.text).join("\n");
  const cities = [...CITIES, "Rome"].filter((city) => notes.includes(city));
  return `Cities researched so far: ${cities.join(", ")}. All have heat action plans with alerts and cooling centres; tree planting and cooling-centre counts differ.`;
}
