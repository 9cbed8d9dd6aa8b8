// How `a2aTool` follows a task on an agent that does not stream (see docs/serving-a2a.md). @internal
import type { SendMessageRequest, StreamResponse, Task } from "@a2a-js/sdk";
import type { Client, RequestOptions } from "@a2a-js/sdk/client";
import { TASK_STATE } from "./a2a-parts";

/** The first wait between two reads of a task; each next wait doubles, up to {@link LAST_POLL_MS}. */
const FIRST_POLL_MS = 100;
const LAST_POLL_MS = 2_000;

/** How many times a read of the task is made before its failure fails the call, when it fails for a reason that passes (a network error, HTTP 5xx or 429). */
export const READ_TRIES = 4;
/** The wait before the first new try of a failed read; each next one doubles (250, 500, 1000 ms). */
const FIRST_RETRY_MS = 250;

/**
 * The events of a task on an agent that does not stream, as its stream would have them: the
 * message is sent with `returnImmediately` (the task comes back at once, so its id is known and an
 * aborted call can cancel it), then the task is read with `GetTask`, each read an event, until it
 * is no longer `submitted` or `working`. The reply, when the agent answers with a message, is the
 * one event. When `continuing` (the message answers a task), the task sent back is the task as it
 * stood, which may still be the pause being answered: reading goes on after it whatever its state.
 * A read that fails for a reason that passes ({@link isTransient}: a network error, HTTP 5xx or
 * 429) is made again, after 250 ms, then 500 ms, 1 s, up to {@link READ_TRIES} times in all; its
 * last failure (or any other) ends the events. The message is sent once: a failed send is not
 * repeated (the agent may have taken it). A read waits for `options.signal` too: aborting it ends
 * the events with the signal's reason.
 */
export async function* pollTask(client: Client, request: SendMessageRequest, options: RequestOptions & { signal: AbortSignal }, continuing: boolean): AsyncGenerator<StreamResponse, void, undefined> {
  const configuration = { acceptedOutputModes: [], taskPushNotificationConfig: undefined, ...request.configuration, returnImmediately: true };
  const result = await client.sendMessage({ ...request, configuration }, options);
  if (!isTask(result)) {
    yield { payload: { $case: "message", value: result } };
    return;
  }
  let task = result;
  yield { payload: { $case: "task", value: task } };
  let wait = FIRST_POLL_MS;
  for (let opening = continuing; opening || isGoingOn(task.status?.state); opening = false) {
    await delay(wait, options.signal);
    wait = Math.min(wait * 2, LAST_POLL_MS);
    const id = task.id;
    task = await withRetries(() => client.getTask({ tenant: request.tenant, id, historyLength: 0 }, options), options.signal);
    yield { payload: { $case: "task", value: task } };
  }
}

/** `read()`, made again (up to {@link READ_TRIES} times in all, waiting longer each time) while it fails for a reason that passes. */
async function withRetries<T>(read: () => Promise<T>, signal: AbortSignal): Promise<T> {
  for (let tries = 1, wait = FIRST_RETRY_MS; ; tries++, wait *= 2) {
    try {
      return await read();
    } catch (error) {
      if (tries >= READ_TRIES || signal.aborted || !isTransient(error)) throw error;
    }
    await delay(wait, signal);
  }
}

/**
 * Whether a request of the SDK's client failed for a reason that may pass: the network (`fetch`
 * failed, or the answer was cut off), or the server answered HTTP 5xx or 429 (the SDK's error then
 * says `HTTP error for <method>! Status: <code>`). A JSON-RPC error, or an answer that is not one,
 * would come again.
 */
export function isTransient(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === "TypeError" && (error.message === "fetch failed" || error.message === "terminated")) return true;
  return /^HTTP error for \w+! Status: (5\d\d|429)\b/.test(error.message);
}

function isTask(result: Awaited<ReturnType<Client["sendMessage"]>>): result is Task {
  return !("messageId" in result);
}

function isGoingOn(state: number | undefined): boolean {
  return state === TASK_STATE.submitted || state === TASK_STATE.working;
}

/** Waits `ms`, or rejects with `signal`'s reason once it is aborted. */
function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
