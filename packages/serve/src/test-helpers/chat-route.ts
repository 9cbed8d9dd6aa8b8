// The route handlers of a chat page on the AI SDK's useChat, with approvals and reconnection, for
// one executor (docs/serving.md shows this file whole; the browser test and the useChat flow tests
// run it). Make them once and share them between the route files; in Next.js:
//   lib/chat.ts:                          export const chat = chatRoute(executor, { store, tools });
//   app/api/chat/route.ts:                export const POST = chat.POST;
//   app/api/chat/[id]/stream/route.ts:    export const GET = chat.GET;
import { InvalidArgumentError } from "@agentrx/core";
import { type AgentExecutor, type AgentStreamEvent, type Decision, RunBusyError, RunNotFoundError, type RunStore, recordDecisions } from "@agentrx/executors";
import { type UIApprovalDecisions, type UIMessageLike, followRecordedRun, staleDecisions, toUIMessageStreamResponse, uiApprovalDecisions } from "@agentrx/serve";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { ReplaySubject } from "rxjs";

/** What {@link chatRoute} needs besides the executor. */
export interface ChatRouteOptions {
  /** The executor's run store: every run is recorded `queued` before it runs, and a reconnection follows its record. */
  store: RunStore;
  /** The executor's tools: an edited input is checked against its tool's schema before it is recorded. */
  tools: readonly StructuredToolInterface[];
}

/** `POST /api/chat` (a question, or the answers to approvals) and `GET /api/chat/:id/stream` (a reload reconnecting). */
export interface ChatRoute {
  POST(request: Request): Promise<Response>;
  GET(request: Request, context: { params: { id: string } }): Promise<Response>;
}

/**
 * The route handlers of a chat on `useChat`: POST records the run `queued` (a new one, or the
 * paused one with the person's answers) and then runs it, answering with its UI message stream;
 * GET answers a reconnection with the chat's queued or running run, followed from its record.
 *
 * @example
 * ```ts
 * import type { AgentExecutor, RunStore } from "@agentrx/executors";
 * declare const executor: AgentExecutor;
 * declare const store: RunStore;
 *
 * export const { POST, GET } = chatRoute(executor, { store, tools: [] });
 * ```
 */
export function chatRoute(executor: AgentExecutor, options: ChatRouteOptions): ChatRoute {
  const { store, tools } = options;
  // chat id -> its latest run, and until when it is being recorded (a table in a real app)
  const latestRun = new Map<string, { runId: string; recorded: Promise<unknown> }>();

  async function POST(request: Request): Promise<Response> {
    let body: { id: string; messages: UIMessageLike[] };
    let approvals: UIApprovalDecisions | undefined;
    try {
      body = (await request.json()) as typeof body;
      if (typeof body?.id !== "string" || body.id === "") throw new Error("`id` must be the chat's id, a non-empty string.");
      approvals = uiApprovalDecisions(body.messages);
    } catch (error) {
      return new Response(`Bad request: ${(error as Error).message}`, { status: 400 }); // not JSON, or not UI messages
    }
    const { id, messages } = body;
    // The run's id comes from the client (the message metadata): resume only the chat's own run.
    if (approvals && approvals.runId !== latestRun.get(id)?.runId) return new Response("Conflict: that run is not this chat's latest.", { status: 409 });
    const runId = approvals?.runId ?? crypto.randomUUID();
    const input = messages.at(-1)?.parts.map((part) => part.text ?? "").join("") ?? ""; // parts checked by uiApprovalDecisions
    // The run is recorded `queued` (the answers with it) before it runs, and a reconnection waits
    // for that: a reload at any moment after this request finds the run.
    const recorded = approvals ? recordDecisions(store, runId, approvals.decisions, { tools }) : store.createRun({ runId, threadId: id, inputs: { input }, status: "queued", at: Date.now() });
    latestRun.set(id, { runId, recorded: recorded.catch(() => undefined) });
    try {
      await recorded;
    } catch (error) {
      return notRecorded(error, runId, approvals?.decisions ?? {});
    }
    // The usage so far, so the resumed stream shows the whole run's (not only what it adds).
    const earlierUsage = approvals ? (await store.getRun(runId))?.usage : undefined;
    const events = new ReplaySubject<AgentStreamEvent>(); // the run goes on if the client goes away
    executor.resume(runId).subscribe(events); // a queued run starts (or goes on) here
    return toUIMessageStreamResponse(events, { earlierUsage });
  }

  /**
   * Why the store did not record the request: 404 for a run it does not have; 409 for a pause
   * that is not there to answer (answered already, also by another request at the same moment,
   * or an earlier pause of a run that paused again: the answer names the pause it waits on now);
   * 400 for answers the pause does not take (an approval it never asked); 500 when the store
   * failed, which is the server's error, not the request's.
   */
  async function notRecorded(error: unknown, runId: string, decisions: Record<string, Decision>): Promise<Response> {
    if (RunNotFoundError.isInstance(error)) return new Response(`Not found: ${error.message}`, { status: 404 });
    if (InvalidArgumentError.isInstance(error)) {
      const stale = await staleDecisions(store, runId, decisions);
      if (stale) return new Response(`Conflict: ${stale.message}`, { status: 409 });
      const conflict = RunBusyError.isInstance(error.cause) || (await store.getRun(runId))?.status !== "interrupted";
      return new Response(`${conflict ? "Conflict" : "Bad request"}: ${error.message}`, { status: conflict ? 409 : 400 });
    }
    console.error(error);
    return new Response("The request could not be recorded; try again.", { status: 500 });
  }

  async function GET(_request: Request, { params }: { params: { id: string } }): Promise<Response> {
    const latest = latestRun.get(params.id);
    await latest?.recorded;
    const status = latest === undefined ? undefined : (await store.getRun(latest.runId))?.status;
    if (latest === undefined || (status !== "queued" && status !== "running")) return new Response(null, { status: 204 });
    return toUIMessageStreamResponse(followRecordedRun(store, latest.runId));
  }

  return { POST, GET };
}
