import type { IncomingMessage, ServerResponse } from "node:http";
import type { AgentExecutor, Decision } from "@agentrx/executors";
import { InvalidArgumentError, checkOptionKeys, showValue } from "@agentrx/core";
import { SseWriter } from "@agentrx/runs";
import { type Subscription, tap } from "rxjs";
import { checkExecutor, checkFunction, checkPositiveInteger, checkTimerMs } from "../internal/check-options";
import { clientErrorText } from "../internal/error-text";
import { hookInputs } from "../internal/hook-inputs";
import { isJsonContentType, readBody } from "../internal/request-body";
import type { AGUIResumeEntry, BaseEvent, RunAgentInput } from "./ag-ui-event";
import { type AGUIRun, type Refusal, failedAGUIRun, isRefusal, newAGUIRun, resumedAGUIRun } from "./ag-ui-run";
import { toAGUIEvents } from "./to-ag-ui-events";

/**
 * Options of {@link createAGUIHandler}.
 *
 * @example
 * ```ts
 * import type { AGUIHandlerOptions } from "@agentrx/serve";
 *
 * const options: AGUIHandlerOptions = { inputs: (input) => ({ input: JSON.stringify(input.messages.at(-1)?.content ?? "") }), maxBufferedBytes: 512 * 1024 };
 * ```
 */
export interface AGUIHandlerOptions {
  /**
   * The executor's inputs for a request (the whole `RunAgentInput`: its earlier `messages`,
   * `context`, `forwardedProps`, which the default leaves out). Given, it is the only reader of the
   * messages: the default's checks below are not made. It returns the inputs synchronously, as an
   * object; anything else (`undefined`, an array, a Promise) fails the run (`RUN_ERROR`) naming `inputs`.
   * @default `{ input: <the text of the last message> }`; a request whose last message is not a
   *   user's text (no message, the assistant's, a tool's result, an image part, no text) gets 400
   */
  inputs?: (input: RunAgentInput) => Record<string, unknown>;
  /**
   * The text of `RUN_ERROR` for an error of a run (and of the results of the calls it cut off);
   * what it returns reaches the client. A valid
   * request whose run fails before it starts (`inputs`, the executor or the run store throwing) is
   * answered the same way, with a `RUN_ERROR`. It also hears of a body that could not be read (the
   * client went away mid-request; the response is closed and its text unused). A request refused
   * with a 4xx (see {@link createAGUIHandler}) is not an error.
   * @default the error's message
   */
  onError?: (error: unknown) => string;
  /** The largest request body accepted, in bytes (a larger one gets 413). @default 1048576 */
  maxBodyBytes?: number;
  /** The most bytes held for a client that does not read; past it the client is dropped and the run unsubscribed from (cancelled). @default 1048576 */
  maxBufferedBytes?: number;
  /** A comment line is sent this often (ms) so proxies keep an idle stream open. @default 15000 */
  heartbeatMs?: number;
}

const OPTION_KEYS = Object.keys({
  inputs: true,
  onError: true,
  maxBodyBytes: true,
  maxBufferedBytes: true,
  heartbeatMs: true,
} satisfies Record<keyof AGUIHandlerOptions, true>);

/**
 * An AG-UI endpoint for an executor, as a Node `http` handler `(req, res)`: it takes a POSTed
 * `RunAgentInput` (JSON) and answers with the run's AG-UI events as Server-Sent Events
 * (`data: <event as JSON>`; see `toAGUIEvents`). The executor runs with the request's `runId` and
 * `threadId`, on the text of its last message (a user's; see `inputs`). The request's `tools`
 * (frontend tools), `context`, `forwardedProps`, earlier messages, `state` and `parentRunId` are
 * not carried to the run (`inputs` can map them; see docs/serving.md). A request with `resume`
 * entries continues the paused run named in the state the paused run reported
 * (`state.agentrx.runId`) with `executor.resume(runId, { decisions })`: a resolved entry's
 * `payload` is a decision (`"approve"`, `{ type: "reject", message? }`, `{ type: "edit",
 * toolInput }`) or `{ approved: boolean, reason? }` (anything else gets 400); a `cancelled` entry
 * rejects the call; two entries for one interrupt get 400. So
 * `@ag-ui/client`'s `HttpAgent` and CopilotKit's runtime can drive it. The run lasts as long as
 * its response: the client going away (a page closed or navigated away, CopilotKit's stop,
 * `HttpAgent.abortRun()`, a dropped connection) unsubscribes from the run, which cancels it; with
 * a run store it is recorded `cancelled`, and `executor.resume(runId)` (the request's `runId`)
 * carries it on, as the handler itself resumes only paused runs (docs/serving.md, "A client that
 * goes away"). Bad requests get 400, 405 (with `allow: POST`), 413 or 415 with a
 * one-line reason, and so does a request the run store refuses before its run begins (the
 * response opens with the run's first event and, for a new run, once its record exists): 404 for
 * a resume of a run the store does not have; 409 for a `runId` the store has already (also when
 * another request took it at the same moment), a resume of a run that is not paused, resume
 * entries for an earlier pause of a run that paused again (naming the pause it waits on now), or
 * a thread whose run is going on (the executor's `followUp: "reject"`); 400 for resume entries
 * the paused run does not wait for and never did; 429 (with `Retry-After`) for an input sent to a
 * thread's running run (`followUp: "interrupt"`) whose inbox is full (`maxPendingMessages`). Any other failure of a valid request is a `RUN_ERROR` event in a `200`
 * stream, whether it comes before the run starts (`inputs`, the executor or the run store
 * throwing, its memory failing to load) or after (see docs/serving.md). The returned
 * promise never rejects (so `createServer(handler)` is safe): a request whose body cannot be read
 * (the client went away) is closed and reported to `onError`. An option it does not take (a
 * misspelt `heartbeat`) throws an `InvalidArgumentError` naming it, when the handler is made.
 *
 * @example
 * ```ts
 * import { createServer } from "node:http";
 * import { createAGUIHandler } from "@agentrx/serve";
 * import type { AgentExecutor } from "@agentrx/executors";
 * declare const executor: AgentExecutor;
 *
 * createServer(createAGUIHandler(executor)).listen(8000);
 * ```
 */
export function createAGUIHandler(executor: AgentExecutor, options: AGUIHandlerOptions = {}): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  checkExecutor("createAGUIHandler", executor, ["stream"]);
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new InvalidArgumentError({ argument: "options", value: options, message: `createAGUIHandler: \`options\` must be an object such as { onError }, got ${showValue(options)}.` });
  }
  checkOptionKeys("createAGUIHandler", options, OPTION_KEYS);
  const { inputs = defaultInputs, onError, maxBodyBytes = 1_048_576, maxBufferedBytes = 1_048_576, heartbeatMs = 15_000 } = options;
  checkFunction("createAGUIHandler", "inputs", options.inputs, "(input: RunAgentInput) => inputs");
  checkFunction("createAGUIHandler", "onError", onError, "(error) => string");
  checkPositiveInteger("createAGUIHandler", "maxBodyBytes", maxBodyBytes);
  checkPositiveInteger("createAGUIHandler", "maxBufferedBytes", maxBufferedBytes);
  checkTimerMs("createAGUIHandler", "heartbeatMs", heartbeatMs);
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== "POST") return refuse(res, 405, "An AG-UI endpoint takes POST with a RunAgentInput JSON body.", { allow: "POST" });
    if (!isJsonContentType(req.headers["content-type"])) return refuse(res, 415, `The body must be JSON (content-type: application/json), got content-type ${JSON.stringify(req.headers["content-type"])}.`);
    const body = await readBody(req, res, maxBodyBytes);
    if (body === undefined) return; // answered 413
    let input: RunAgentInput;
    try {
      input = parseInput(body);
    } catch (error) {
      return refuse(res, 400, (error as Error).message);
    }
    const resuming = input.resume !== undefined && input.resume.length > 0;
    const pausedRun = resuming ? pausedRunId(input) : undefined;
    if (resuming && pausedRun === undefined) return refuse(res, 400, "`resume` needs the paused run's state (`state.agentrx.runId`, as the STATE_SNAPSHOT of the paused run gave it).");
    // The default inputs answer the last message, a user's text: any other request would be run on
    // something it did not ask (an earlier question, an empty input), or lose part of its message.
    const unanswerable = resuming || options.inputs !== undefined ? undefined : defaultInputsRefusal(input);
    if (unanswerable !== undefined) return refuse(res, 400, unanswerable);
    let run: AGUIRun | Refusal;
    try {
      run =
        pausedRun !== undefined
          ? await resumedAGUIRun(executor, pausedRun, decisionsOf(input.resume ?? []))
          : await newAGUIRun(executor, hookInputs("createAGUIHandler", "inputs", inputs(input)), { runId: input.runId, threadId: input.threadId });
    } catch (error) {
      // The request is a valid one: what fails from here on (`inputs`, the executor, the store's
      // check) is the run failing, told as a run's error before its first event is (docs/serving.md).
      run = failedAGUIRun(error);
    }
    if (isRefusal(run)) return refuse(res, run.status, run.message, run.headers);
    await streamRun(res, run, input, { heartbeatMs, maxBufferedBytes, ...(onError ? { onError } : {}) });
  };
  return async (req, res) => {
    try {
      await handle(req, res);
    } catch (error) {
      failed(res, error, onError);
    }
  };
}

/**
 * Sends a request's run as AG-UI events over Server-Sent Events. The response opens once the run
 * has begun: its first event, and for a new recorded run its record. Until then its events are
 * held, and an error that is the request's (see {@link AGUIRun.refusal}) is answered with an HTTP
 * status instead; any other error is the run's, sent as `RUN_ERROR` (see docs/serving.md).
 * Resolves once the response ended; the client going away unsubscribes from the run (cancels it).
 */
function streamRun(res: ServerResponse, run: AGUIRun, input: RunAgentInput, options: { heartbeatMs: number; maxBufferedBytes: number; onError?: (error: unknown) => string }): Promise<void> {
  const { heartbeatMs, maxBufferedBytes, onError } = options;
  const sse = new SseWriter(res, { heartbeatMs, maxBufferedBytes });
  return new Promise<void>((resolve) => {
    let subscription: Subscription | undefined;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      subscription?.unsubscribe();
      sse.end();
      resolve();
    };
    let opened = false;
    let began = false;
    let recorded = run.record === undefined;
    let ended = false;
    let failure: { error: unknown } | undefined;
    const held: BaseEvent[] = [];
    const send = (event: BaseEvent) => {
      sse.send({ data: JSON.stringify(event) });
      if (sse.closed) finish(); // a client that does not read was dropped
    };
    const open = () => {
      opened = true;
      for (const event of held.splice(0)) if (!done) send(event);
      if (ended) finish();
    };
    const settle = () => {
      if (opened || done) return;
      if (failure !== undefined) {
        if (!ended) return; // its RUN_ERROR is on its way
        void run
          .refusal(failure.error)
          .catch(() => undefined)
          .then((refusal) => {
            if (done) return;
            if (refusal === undefined) return open();
            refuse(res, refusal.status, refusal.message, refusal.headers);
            finish();
          });
        return;
      }
      if (ended || (began && recorded)) open();
    };
    const events$ = run.events.pipe(
      tap({
        next: (event) => {
          if (began) return;
          began = true;
          // Only the new run's own start waits for its record (a followed run's events do not).
          if (run.record !== undefined && !(event.type === "start" && event.runId === run.record.runId)) recorded = true;
        },
        error: (error: unknown) => {
          if (!opened) failure = { error };
        },
      }),
    );
    run.record?.created.then(() => {
      recorded = true;
      settle();
    }, () => undefined); // a refused record fails the run: its error comes that way
    sse.onClose(finish);
    if (done) return; // the client went away already
    subscription = toAGUIEvents(events$, { threadId: input.threadId, runId: input.runId, ...(onError ? { onError } : {}) }).subscribe({
      next: (event) => {
        if (opened) send(event);
        else {
          held.push(event);
          settle();
        }
      },
      complete: () => {
        ended = true;
        if (opened) finish();
        else settle();
      },
      error: finish,
    });
    if (done) subscription.unsubscribe();
  });
}

/**
 * A request that failed outside its run (its body could not be read: the client went away; or an
 * error of the handler itself): `onError` hears of it, and the response ends (`500` with the
 * error's text when nothing was sent yet and the client is still there).
 */
function failed(res: ServerResponse, error: unknown, onError: ((error: unknown) => string) | undefined): void {
  const text = clientErrorText(onError, error); // the hook failing too still ends the response
  if (res.destroyed || res.writableEnded) return;
  if (!res.headersSent && !res.socket?.destroyed) refuse(res, 500, text);
  else res.destroy();
}

/** The default inputs: the text of the last message, a user's (see {@link defaultInputsRefusal}). */
function defaultInputs(input: RunAgentInput): Record<string, unknown> {
  return { input: textOf(input.messages.at(-1)?.content) };
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((part) => (typeof part?.text === "string" ? part.text : "")).join("");
  return "";
}

/**
 * Why the default inputs cannot answer a request, if they cannot: its last message is not the
 * user's (none at all, a frontend tool's result, the assistant's answer: nothing new to answer),
 * has a part other than text (an image the text input would drop), or has no text.
 */
function defaultInputsRefusal(input: RunAgentInput): string | undefined {
  const how = "The handler's default `inputs` run the executor on the text of the last message, which must be a user message; pass `inputs` to map other requests (see docs/serving.md).";
  const index = input.messages.length - 1;
  const last = input.messages[index];
  if (last === undefined) return `\`messages\` is empty: there is no user message to answer. ${how}`;
  if (last.role !== "user") {
    const what = last.role === "tool" ? "a tool's result (the executor's tools run on the server; a frontend tool's result cannot be given to a run)" : `a message of role \`${last.role}\`, not a new user message`;
    return `\`messages[${index}]\`, the last message, is ${what}. ${how}`;
  }
  const { content } = last;
  if (Array.isArray(content)) {
    const other = content.findIndex((part: unknown) => !isObject(part) || part["type"] !== "text" || typeof part["text"] !== "string");
    if (other !== -1) {
      const type = isObject(content[other]) && typeof content[other]["type"] === "string" ? `a \`${content[other]["type"]}\` part` : "a part that is not text";
      return `\`messages[${index}].content[${other}]\` is ${type}: the default \`inputs\` take text only, and would drop it. ${how}`;
    }
  } else if (content !== undefined && typeof content !== "string") {
    return `\`messages[${index}].content\` must be a string or a list of text parts, got ${content === null ? "null" : typeof content}.`;
  }
  if (textOf(content).trim() === "") return `\`messages[${index}]\`, the last user message, has no text to answer. ${how}`;
  return undefined;
}

function parseInput(body: string): RunAgentInput {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    throw new Error("The body is not JSON.");
  }
  const input = value as Partial<RunAgentInput> | null;
  if (input === null || typeof input !== "object" || Array.isArray(input)) throw new Error("The body must be a RunAgentInput object.");
  for (const key of ["threadId", "runId"] as const) {
    if (typeof input[key] !== "string" || input[key] === "") throw new Error(`\`${key}\` must be a non-empty string.`);
  }
  if (!Array.isArray(input.messages)) throw new Error("`messages` must be an array.");
  input.messages.forEach((message: unknown, index) => {
    if (!isObject(message) || typeof message["role"] !== "string") throw new Error(`\`messages[${index}]\` must be a message: an object with a string \`role\`.`);
  });
  if (input.resume !== undefined && !Array.isArray(input.resume)) throw new Error("`resume` must be an array of resume entries.");
  const answered = new Map<string, number>();
  input.resume?.forEach((entry: unknown, index) => {
    if (!isObject(entry) || typeof entry["interruptId"] !== "string" || entry["interruptId"] === "" || (entry["status"] !== "resolved" && entry["status"] !== "cancelled")) {
      throw new Error(`\`resume[${index}]\` must be a resume entry: an object with a non-empty string \`interruptId\` and a \`status\` of "resolved" or "cancelled".`);
    }
    // Two answers to one interrupt: which one holds is not the handler's to guess.
    const earlier = answered.get(entry["interruptId"]);
    if (earlier !== undefined) throw new Error(`\`resume[${index}]\` answers the interrupt ${JSON.stringify(entry["interruptId"])} that \`resume[${earlier}]\` answers already: give one entry per interrupt.`);
    answered.set(entry["interruptId"], index);
    if (entry["status"] === "resolved" && !isDecisionPayload(entry["payload"])) {
      throw new Error(
        `\`resume[${index}].payload\` must say what was decided: { approved: true }, { approved: false, reason?: string }, or a decision ("approve", { type: "reject", message? }, { type: "edit", toolInput }); got ${JSON.stringify(entry["payload"]) ?? "none"}.`,
      );
    }
  });
  return input as RunAgentInput;
}

/** Whether a resolved entry's payload is a decision or `{ approved: boolean, reason?: string }` (the decision's own fields are checked by the resume). */
function isDecisionPayload(payload: unknown): boolean {
  if (payload === "approve") return true;
  if (!isObject(payload)) return false;
  if ("type" in payload) return typeof payload["type"] === "string";
  return typeof payload["approved"] === "boolean" && (payload["reason"] === undefined || typeof payload["reason"] === "string");
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function pausedRunId(input: RunAgentInput): string | undefined {
  const runId = (input.state as { agentrx?: { runId?: unknown } } | undefined)?.agentrx?.runId;
  return typeof runId === "string" && runId !== "" ? runId : undefined;
}

/**
 * The entries as `executor.resume` decisions, by interrupt id. Every id is an own key, whatever it
 * is (`__proto__` too): an id the paused run does not wait for is refused by the resume, not lost.
 */
function decisionsOf(entries: AGUIResumeEntry[]): Record<string, Decision> {
  const decisions: Record<string, Decision> = {};
  const set = (interruptId: string, decision: Decision) => Object.defineProperty(decisions, interruptId, { value: decision, enumerable: true, writable: true, configurable: true });
  for (const { interruptId, status, payload } of entries) {
    if (status === "cancelled") set(interruptId, { type: "reject" });
    else if (payload === "approve" || (typeof payload === "object" && payload !== null && "type" in payload)) set(interruptId, payload as Decision);
    else {
      const { approved, reason } = (payload ?? {}) as { approved?: unknown; reason?: unknown };
      set(interruptId, approved === true ? "approve" : { type: "reject", ...(typeof reason === "string" && reason ? { message: reason } : {}) });
    }
  }
  return decisions;
}

function refuse(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8", ...headers }).end(`${message}\n`);
}
