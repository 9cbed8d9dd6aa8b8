// Quickstart: a tool-calling agent that checks the weather in two cities at once (the two tool
// calls run in parallel), then streams its final answer. The run is recorded in the embedded
// SQLite run store (.agentrx/runs.db), so it can be looked at again, or resumed if cut short.
//
//   npx tsx examples/quickstart.ts
//
// With OPENAI_API_KEY set (and optionally OPENAI_BASE_URL for an OpenAI-compatible server such as
// vLLM, llama.cpp, Ollama or LM Studio, and OPENAI_MODEL), it talks to that endpoint. Without it,
// it runs offline on a ScriptedChatModel and says so. `npx agentrx runs`, `show`, `trace` and `ui`
// look at the recorded runs. Press Ctrl-C during the run to cancel it:
// `npx tsx examples/runs.ts resume <runId>` finishes it later.
import { AgentRxError } from "@agentrx/core";
import { printTrace } from "@agentrx/executors";
import { cancelOnCtrlC, cancelledByCtrlC, sayCancelled } from "./lib/ctrl-c";
import { RUNS_DB, runStore, weatherExecutor } from "./lib/weather-agent";

const store = runStore();
const executor = weatherExecutor(store);
const runId = crypto.randomUUID();

// Ctrl-C cancels the run through its signal: the store marks it "cancelled", with "Ctrl-C" as the
// reason, and it can be resumed at once; the process exits with 130.
const signal = cancelOnCtrlC();

const started = Date.now();
try {
  const result = await printTrace(executor.stream({ input: "What's the weather in Paris and in Rome?" }, { runId, signal }));
  console.log(`\nDone in ${Date.now() - started} ms: stopReason=${result.stopReason}`);
  console.log(`Recorded as run ${runId} in ${RUNS_DB}. See it again: npx agentrx show ${runId}, or in the browser: npx agentrx ui`);
} catch (error) {
  if (cancelledByCtrlC(error, signal)) await sayCancelled(store, runId);
  else if (AgentRxError.isInstance(error)) {
    // A model that cannot be used (a rejected key, a model name the server does not know, a server
    // that is down): the message says what to change, so print it whole, without the stack.
    console.error(`\nThe run failed: ${error.message}`);
    console.error(`Recorded as run ${runId} in ${RUNS_DB}: npx agentrx show ${runId}`);
    process.exitCode = 1;
  } else throw error;
} finally {
  await store.close();
}
