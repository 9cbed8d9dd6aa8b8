import { checkOptionKeys, InvalidArgumentError } from "@agentrx/core";
import { type AgentExecutorResult, type Decision, RunBusyError, type RunInfo, RunNotFoundError, type RunStore, type SendMessageResult, type SteeringMessage, recordDecisions, sendRunMessage } from "@agentrx/executors";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { Observable, filter, lastValueFrom, map } from "rxjs";
import type { ChannelHub } from "../internal/channel-hub";
import { DEFAULT_PREFIX, DEFAULT_QUEUE_NAME, type QueueNames, queueNames } from "../internal/queue-names";
import { type RunJobData, SUBMISSION_ID } from "../internal/run-job-data";
import { checkConnection } from "../internal/check-connection";
import { checkInteger, checkName, checkObject, checkRunId, checkStore, fail } from "../internal/validate";
import { ENDED, cancelReason, settleRun } from "../internal/settle-run";
import { type FollowItem, type FollowPace, type RunEvent, followRun } from "./follow-run";
import type { ReconcileOptions, ReconcileReport, ResumeRunOptions, RunClientOptions, RunEventsOptions, SubmitRunOptions } from "./run-client-options";
import { RunStoppedError } from "../errors/run-stopped-error";
import { giveUpRun, reconcileRun } from "./reconcile-run";
import { RunQueue } from "./run-queue";
import { toResult } from "./to-result";
import { recordedInputs, refuseIdleResume, refuseNonJson, refuseQueuedResume, shownInputs } from "./run-call-checks";

const KNOWN = new Set(["connection", "store", "queueName", "prefix", "pollIntervalMs", "tools"]);
/** How many queued and running runs `reconcile()` looks at by default. */
const RECONCILE_LIMIT = 1000;

/** How `serveRunEvents` follows a run with the skips that move an SSE id past unshown entries. */
const followers = new WeakMap<RunClient, (runId: string, after: number, pace?: FollowPace, onLive?: () => void) => Observable<FollowItem>>();

/** @internal */
export function followerOf(client: RunClient): (runId: string, after: number, pace?: FollowPace, onLive?: () => void) => Observable<FollowItem> {
  const follow = followers.get(client);
  if (follow === undefined) throw new InvalidArgumentError({ argument: "client", value: client, message: "serveRunEvents: `client` must be a RunClient." });
  return follow;
}

/**
 * Submits runs to the workers of a BullMQ queue and follows them: the API side of
 * `createRunWorker`. The run store (shared with the workers) holds every run; Redis carries the
 * jobs, the live events and the cancels. Constructing a client opens no connection: the first call
 * that needs Redis does.
 *
 * @example
 * ```ts
 * import { RunClient } from "@agentrx/bullmq";
 * import { PostgresRunStore } from "@agentrx/runs";
 *
 * const client = new RunClient({
 *   connection: { host: "127.0.0.1", port: 6379 },
 *   store: new PostgresRunStore({ connectionString: "postgres://postgres@127.0.0.1:5432/app" }),
 * });
 * async function ask(question: string) {
 *   const runId = await client.submit("support", { input: question }, { threadId: "customer-42" });
 *   client.events(runId).subscribe((event) => event.type === "token" && process.stdout.write(event.text));
 *   return (await client.result(runId)).output;
 * }
 * ```
 */
export class RunClient {
  private readonly store: RunStore;
  /** The runs' jobs, cancels and channels in Redis. */
  private readonly queue: RunQueue;
  private readonly pollIntervalMs: number;
  private readonly tools: readonly StructuredToolInterface[];
  private readonly owner = `client:${process.pid}:${crypto.randomUUID().slice(0, 8)}`;

  /** @throws InvalidArgumentError naming the option when an option cannot work */
  constructor(options: RunClientOptions) {
    const where = "RunClient";
    checkObject(where, "options", options);
    for (const key of Object.keys(options)) {
      if (!KNOWN.has(key)) fail(where, key, (options as unknown as Record<string, unknown>)[key], `one of the known options (${[...KNOWN].join(", ")}); remove it`);
    }
    const { connection, store, queueName = DEFAULT_QUEUE_NAME, prefix = DEFAULT_PREFIX, pollIntervalMs = 5000, tools = [] } = options;
    checkConnection(where, connection);
    checkStore(where, store);
    checkName(where, "queueName", queueName);
    checkName(where, "prefix", prefix);
    checkInteger(where, "pollIntervalMs", pollIntervalMs, 10);
    if (!Array.isArray(tools) || tools.some((tool) => typeof (tool as { name?: unknown } | null)?.name !== "string")) {
      fail(where, "tools", tools, "an array of tools (each with a name), the workers' executors' tools");
    }
    this.tools = tools;
    this.store = store;
    this.queue = new RunQueue(connection, queueNames(queueName, prefix));
    this.pollIntervalMs = pollIntervalMs;
    followers.set(this, (runId, after, pace, onLive) => this.follow(runId, after, pace, onLive));
  }

  /**
   * Records a run as `queued` in the store (at once: it can be listed, followed and cancelled from
   * now on) and queues a job for it. Resolves with the run's id.
   *
   * @param executor the name of the executor factory the workers run it with (a key of their `executors`)
   * @param inputs the executor's inputs, e.g. `{ input: "..." }`: plain data (strings, finite
   *   numbers, booleans, `null`, arrays and plain objects) and `@langchain/core` messages of those,
   *   which is what reaches the worker: the run's record holds them whole, as JSON (images of any
   *   size included), and the worker runs on the record. An `undefined` property is left out, as
   *   JSON leaves it out.
   * @throws InvalidArgumentError naming the argument when one cannot work, and the path of a part
   *   of `inputs` that would not reach the worker as given (a BigInt, a function, a Symbol, NaN, an
   *   `undefined` array item, a Date, a Map or Set, a class instance, a circular reference, a part
   *   nested more than 100 levels deep), in a message's fields too (`inputs.chat_history[0].
   *   additional_kwargs.sentAt is a Date`); nothing is recorded or queued then
   * @throws RunStoreError (rejects) when the store holds a run with this `runId` already; nothing
   *   is queued, and that run is left as it is
   */
  async submit(executor: string, inputs: Record<string, unknown>, options: SubmitRunOptions = {}): Promise<string> {
    const where = "RunClient.submit";
    if (typeof executor !== "string" || executor === "") fail(where, "executor", executor, "the name of an executor factory of the workers (a non-empty string)");
    checkObject(where, "inputs", inputs);
    checkObject(where, "options", options);
    checkOptionKeys(where, options, ["threadId", "runId"], "options.");
    const { threadId, runId = crypto.randomUUID() } = options;
    checkRunId(where, runId);
    if (threadId !== undefined && (typeof threadId !== "string" || threadId === "")) fail(where, "threadId", threadId, "a non-empty string");
    refuseNonJson(where, inputs, "inputs", "a queued run's inputs");
    const recorded = recordedInputs(inputs, runId, threadId);
    const shown = shownInputs(inputs, runId);
    this.queue.open(); // a closed client records nothing
    const createdAt = Date.now();
    // Tells this run's jobs from an earlier run's of the same id, even one created in the same millisecond.
    const submissionId = crypto.randomUUID();
    // The queue and prefix tell this deployment's runs from another's sharing the store (see `ofThisQueue`).
    const metadata = { executor, queue: this.queue.names.queueName, prefix: this.queue.names.prefix, [SUBMISSION_ID]: submissionId };
    await this.store.createRun({
      runId,
      ...(threadId === undefined ? {} : { threadId }),
      inputs: recorded,
      status: "queued",
      metadata,
      at: createdAt,
    });
    const data: RunJobData = { schemaVersion: 1, kind: "start", runId, executor, inputs: shown, createdAt, submissionId, ...(threadId === undefined ? {} : { threadId }) };
    try {
      await this.queue.queueStart({ runId, createdAt, metadata }, data);
    } catch (error) {
      const reason = `RunClient.submit could not queue the run: ${(error as Error)?.message ?? String(error)}`;
      await settleRun(this.store, runId, this.owner, "failed", reason).catch(() => undefined);
      throw error;
    }
    return runId;
  }

  /**
   * The run's events: what the store has recorded after `after`, then the live run, with no gap
   * and no duplicate between the two. Recorded events carry `seq` (their 1-based position in the
   * record); live `token` events carry none (the record keeps their text coalesced, one `token`
   * event per model call, which a follower that saw the tokens live does not get again). Completes
   * after the `output` event (a pause's included); errors with `RunStoppedError` when the run
   * failed or was cancelled, and with `RunNotFoundError` for an unknown run. A finished run needs
   * nothing from Redis: its events come from the store even while Redis is unreachable. Cold: each
   * subscription follows the run anew; unsubscribing stops following (the run goes on).
   */
  events(runId: string, options: RunEventsOptions = {}): Observable<RunEvent> {
    checkRunId("RunClient.events", runId);
    checkObject("RunClient.events", "options", options);
    checkOptionKeys("RunClient.events", options, ["after"], "options.");
    const { after = 0 } = options;
    checkInteger("RunClient.events", "after", after, 0);
    return this.follow(runId, after).pipe(
      filter((item): item is { event: RunEvent } => "event" in item),
      map((item) => item.event),
    );
  }

  /**
   * Sends a message to a run (steering, see docs/steering.md): it is recorded in the run's inbox in
   * the store at once, and the worker running it takes it at the run's next turn boundary (a run
   * that is queued or paused takes it when it starts or goes on). Resolves once it is recorded.
   *
   * @param runId the run
   * @param message text (sent as a `HumanMessage`) or a `@langchain/core` message
   * @throws RunFinishedError (rejects) when the run had finished before the message was recorded
   * @throws RunNotFoundError (rejects) for an unknown run
   * @throws InvalidArgumentError (rejects) for a blank message, one of another role than the user's,
   * or one over 100,000 characters of text
   * @throws SteeringInboxFullError (rejects) when 100 messages already wait for the run (send
   * again once it has taken some)
   */
  send(runId: string, message: SteeringMessage): Promise<SendMessageResult> {
    return sendRunMessage(runId, message, { store: this.store, operation: "RunClient.send" });
  }

  /**
   * Cancels a run: a queued or paused run is recorded as `cancelled` and its job removed; a
   * running one is stopped through its `AbortSignal` on whichever worker runs it (a worker that
   * takes the run later sees the cancel too, for a day, and so does a run that pauses as the cancel
   * comes). A run of another queue or prefix than this client's is cancelled the same way: the
   * cancel goes to the queue and prefix its record names (`metadata.queue`, `metadata.prefix`), on
   * this client's Redis, so that queue's workers must share it. A run whose worker is gone is recorded as `cancelled` at once: its lease expired (the
   * run is taken over, so its worker could not write to it again), or its job is still active under
   * a worker that is no longer connected to Redis (killed, crashed) while another worker of the
   * queue is, and the store can cancel a run from any process (`RunStore.cancelRun`, which fences
   * the lease holder out). A run that ended is left as it is. A run cancelled here while it is
   * queued or paused is cancelled with the store's `cancelRun` where it has one, so its paused
   * sub-runs (the other agent's run of a `handoff` or `asTool` call that paused inside it) are
   * cancelled with it, each naming the run (see docs/approval.md, "A pause inside a handoff").
   * Resolves once the cancel is sent, not once the run has stopped (follow `events` for that).
   */
  async cancel(runId: string): Promise<void> {
    checkRunId("RunClient.cancel", runId);
    this.queue.open();
    let info = await this.runInfo(runId, "cancel");
    if (ENDED.has(info.status)) return;
    await this.queue.sendCancel(runId, this.namesOf(info));
    // A run that was running may have paused (or been handed back) before the message reached its
    // worker, which then has no run to abort: read it again now that the cancel is in Redis (a
    // worker that pauses a run from now on sees the cancel there and records it itself).
    if (info.status === "running") info = await this.runInfo(runId, "cancel");
    if (ENDED.has(info.status)) return;
    const lapsed = info.status === "running" && (info.leaseExpiresAt ?? 0) < Date.now();
    if (info.status === "queued" || info.status === "interrupted" || lapsed) {
      await this.recordCancel(info);
    } else if (info.status === "running" && this.store.cancelRun !== undefined && this.ofThisQueue(info) && (await this.queue.workerGone(info))) {
      // Its lease is live but nobody renews it: the store cancels the run under it (a worker that
      // still held it would be refused its next write), rather than wait for the lease to lapse.
      if (await this.store.cancelRun(runId, { reason: cancelReason(info, { workerGone: true }), at: Date.now() })) await this.queue.publishEnd(runId, "cancelled", this.namesOf(info));
    }
  }

  /**
   * Resumes a run on a worker: with `decisions` for a paused run, without for a run that was
   * cancelled, failed, or whose worker died (a `running` run whose lease expired), or a `queued` run
   * whose job Redis lost. Decisions are checked against the pause and recorded in the store first
   * (as the run's `decisions` entry, the run becomes `queued`; see `recordDecisions`), then a resume
   * job is queued: once this resolves, a job Redis loses before a worker takes it is queued again
   * by `reconcile()` (or by whoever follows the run), and the run goes on with the recorded
   * decisions (docs/deploying.md, "When Redis loses its jobs"). No worker waits for a person. A
   * resume without decisions clears a cancel of the run. Resolves once the job is queued. A resume
   * that would do nothing is refused, and nothing is recorded or queued.
   *
   * @throws InvalidArgumentError (rejects) when `decisions` are given for a run that is not paused
   *   (also when another process decided the pause at the same time: a pause is decided once),
   *   name an interrupt the run does not wait for or are malformed (naming the interrupt and what
   *   is wrong), none are given for a paused run, the run has finished (it has its output:
   *   `result(runId)` gives it), none are given for a `queued` run whose job is still waiting,
   *   delayed or active (a worker takes it without a resume) or that was queued less than a second
   *   ago and has no job yet (`submit`, or a resume with decisions, records the run first and is
   *   queuing its job; `reconcile()` leaves such a run alone too: resume it later if it still has
   *   no job, as a run whose decisions `recordDecisions` recorded has none), it was not submitted through a `RunClient`, or it was submitted to another queue or
   *   under another prefix (its record's `metadata.queue` / `metadata.prefix`: another
   *   deployment's run, which this client's workers must not run)
   * @throws RunBusyError (rejects) when the run is running under a live lease (on a worker, or in a
   *   process that died less than a lease ago): wait for it to end, or for its lease to expire
   * @throws RunNotFoundError (rejects) for an unknown run
   * @throws the Redis error (rejects) when the job cannot be queued; decisions are recorded by then,
   *   and the `queued` run gets its job from `reconcile()` once Redis is back
   */
  async resume(runId: string, options: ResumeRunOptions = {}): Promise<void> {
    const where = "RunClient.resume";
    checkRunId(where, runId);
    checkObject(where, "options", options);
    checkOptionKeys(where, options, ["decisions"], "options.");
    const decisions = options.decisions as Record<string, Decision> | undefined;
    if (decisions !== undefined) {
      checkObject(where, "decisions", decisions);
      // An edited input is recorded as JSON: a Date in it would reach the tool as a string.
      refuseNonJson(where, decisions, "decisions", "decisions for a queued run");
    }
    this.queue.open();
    const info = await this.runInfo(runId, "resume");
    const executor = info.metadata?.["executor"];
    if (typeof executor !== "string") {
      fail(where, "runId", runId, "the id of a run submitted through RunClient.submit (the record names no executor)");
    }
    if (!this.ofThisQueue(info)) {
      // Its executor is another deployment's (or another queue's workers'): this client's workers must not run it.
      const { queue, prefix } = info.metadata ?? {};
      throw new InvalidArgumentError({
        argument: "runId",
        value: runId,
        message: `${where}: run "${runId}" was submitted to queue ${JSON.stringify(queue ?? this.queue.names.queueName)} under prefix ${JSON.stringify(prefix ?? this.queue.names.prefix)}, not to this client's (queue ${JSON.stringify(this.queue.names.queueName)}, prefix ${JSON.stringify(this.queue.names.prefix)}): resume it with a RunClient of that queue and prefix, whose workers have its executor.`,
      });
    }
    if (decisions !== undefined && info.status !== "interrupted") {
      throw new InvalidArgumentError({
        argument: "decisions",
        value: info.status,
        message: `${where}: run "${runId}" is ${info.status}, not paused for approval: there is nothing to decide (a pause is decided once).`,
      });
    }
    if (decisions === undefined) {
      refuseIdleResume(where, info, Date.now());
      if (info.status === "queued") refuseQueuedResume(where, info, await this.queue.latestJob(info), Date.now());
      // Followers of the run wait for this job rather than end at the failure.
      await this.queue.queueResume(info, executor, info.epoch, true);
      return;
    }
    // Durable before anything is queued: the decisions are in the store, and the run is `queued`
    // (its followers wait for it), so a job Redis loses is replaced by `reconcile()`. A cancel that
    // waits in Redis is left there: the worker that takes the run sees it.
    const { epoch } = await recordDecisions(this.store, runId, decisions, { tools: this.tools, owner: this.owner, operation: where });
    await this.queue.queueResume(info, executor, epoch);
  }

  /**
   * Resolves with the run's result once it has its output (at once for a run that ended), as
   * `invoke` gives it: a paused run's has `output: ""` and its `interrupts`. Rejects with
   * `RunStoppedError` when the run failed or was cancelled, or can no longer progress: its job
   * failed before the run started, or Redis lost it and the run cannot be queued again (see
   * {@link RunClient.reconcile}; a run whose job is gone is queued again while it is followed).
   */
  async result(runId: string): Promise<AgentExecutorResult> {
    // Async: a bad `runId` rejects, as every other failure does, instead of throwing at the call.
    return lastValueFrom(this.events(runId).pipe(toResult()));
  }

  /**
   * Queues again the runs of this queue and prefix that Redis lost (after a restart without persistence, a
   * failover, a flush): every `queued` run, and every `running` run whose lease expired, that has no
   * job waiting, delayed or active gets a resume job (a queued run starts there, a crashed one
   * continues from its record). A run that cannot progress is recorded as `failed` with the reason:
   * its job failed before the run started (the store was unreachable through every attempt), or
   * its record names no executor to queue it with. A run cancelled while its worker (now gone) held
   * it is recorded as `cancelled` (no worker is needed for that). Paused runs need no job: a
   * resume with decisions queues one. Runs submitted to another queue or under another prefix
   * (another deployment sharing the store; runs recorded by a version that recorded no prefix count
   * as of every prefix), or not through a `RunClient`, are left alone; runs queued less than a
   * second ago too (their `submit` may be queuing them right now).
   *
   * `events` and `result` do the same for the run they follow, each time they read its record (at
   * the start, when Redis reconnects, and every `pollIntervalMs` without news): call `reconcile()`
   * for the runs nobody follows, e.g. when an API process starts and on a timer.
   *
   * @example
   * ```ts
   * import { RunClient } from "@agentrx/bullmq";
   * declare const client: RunClient;
   *
   * const { requeued, failed, cancelled } = await client.reconcile();
   * console.log(`queued again: ${requeued.length}; failed: ${failed.length}; cancelled: ${cancelled.length}`);
   * ```
   */
  async reconcile(options: ReconcileOptions = {}): Promise<ReconcileReport> {
    const where = "RunClient.reconcile";
    checkObject(where, "options", options);
    checkOptionKeys(where, options, ["limit"], "options.");
    const { limit = RECONCILE_LIMIT } = options;
    checkInteger(where, "limit", limit, 1);
    this.queue.open();
    const report: ReconcileReport = { requeued: [], failed: [], cancelled: [] };
    for (const info of await this.store.listRuns({ status: ["queued", "running"], limit })) {
      // Only runs submitted through a RunClient: a run recorded by an executor in its own process is that process's to resume.
      if (typeof info.metadata?.["executor"] !== "string" || !this.ofThisQueue(info)) continue;
      try {
        if ((await this.reconcileRun(info)) === "requeued") report.requeued.push(info.runId);
      } catch (error) {
        if (!RunStoppedError.isInstance(error)) throw error;
        report[error.status].push(info.runId);
      }
    }
    return report;
  }

  /**
   * Closes the client's connections (at once when Redis is unreachable); runs go on on the
   * workers. Streams still open error; `serveRunEvents` ends its responses without an `end` frame,
   * so a browser's `EventSource` reconnects with `Last-Event-ID` (to another API process, during a
   * deploy) and follows the run on. Calls still waiting for Redis (`submit`, `cancel`, `resume`
   * while it is unreachable) reject, saying the client was closed.
   */
  async close(): Promise<void> {
    await this.queue.close(new Error("RunClient.close() was called while this run was followed."));
  }

  private follow(runId: string, after: number, pace?: FollowPace, onLive?: () => void): Observable<FollowItem> {
    return new Observable<FollowItem>((subscriber) => {
      let hub: ChannelHub;
      try {
        hub = this.queue.open().hub;
      } catch (error) {
        subscriber.error(error);
        return;
      }
      const context = {
        store: this.store,
        hub,
        channel: this.queue.names.runChannel(runId),
        pollIntervalMs: this.pollIntervalMs,
        resumePending: (id: string) => this.queue.resumePending(id),
        reconcile: async (info: RunInfo) => void (this.ofThisQueue(info) ? await this.reconcileRun(info) : undefined),
      };
      return followRun(context, runId, after, pace, onLive).subscribe(subscriber);
    });
  }

  /**
   * Records a run that nobody runs now (queued, paused, or under a lapsed lease) as cancelled,
   * taking its lease first (with its paused sub-runs, see `settleRun`), and removes its job (an
   * active job is locked: its worker ends it).
   * Resolves with whether it recorded the cancel (not when the run ended, or a worker took it
   * meanwhile: the cancel message reaches that worker).
   */
  private async recordCancel(info: RunInfo): Promise<boolean> {
    const { runId } = info;
    let cancelled = false;
    try {
      cancelled = await settleRun(this.store, runId, this.owner, "cancelled", cancelReason(info));
      if (cancelled) await this.queue.publishEnd(runId, "cancelled", this.namesOf(info));
    } catch (error) {
      if (!RunBusyError.isInstance(error)) throw error;
    }
    // Another queue's job is not in this client's queue: the worker that takes it finds the run ended.
    if (this.ofThisQueue(info)) await this.queue.removeStart(info);
    return cancelled;
  }

  /**
   * Whether the run is not another queue's nor another prefix's (another deployment's sharing the
   * store). Runs recorded without a queue or without a prefix, by an older version, and runs not
   * submitted through a `RunClient`, count as of this queue or this prefix.
   */
  private ofThisQueue(info: RunInfo): boolean {
    const { queue, prefix } = info.metadata ?? {};
    return (queue === undefined || queue === this.queue.names.queueName) && (prefix === undefined || prefix === this.queue.names.prefix);
  }

  /** The names of the run's own queue and prefix, as its record gives them (this client's where it gives none). */
  private namesOf(info: RunInfo): QueueNames {
    const { queue, prefix } = info.metadata ?? {};
    const own = this.queue.names;
    const usable = (name: unknown): name is string => typeof name === "string" && name !== "" && !name.includes(":");
    const queueName = usable(queue) ? queue : own.queueName;
    const runPrefix = usable(prefix) ? prefix : own.prefix;
    return queueName === own.queueName && runPrefix === own.prefix ? own : queueNames(queueName, runPrefix);
  }

  /** Checks that a stranded run has a job (see `reconcileRun`), through this client's queue and store. */
  private reconcileRun(info: RunInfo): Promise<"waiting" | "requeued"> {
    return reconcileRun(
      {
        latestJob: () => this.queue.latestJob(info),
        cancelPending: (runId) => this.queue.cancelPending(runId),
        settleCancel: (info) => this.recordCancel(info),
        queueResume: (_runId, executor, epoch) => this.queue.queueResume(info, executor, epoch),
        giveUp: (runId, reason) => giveUpRun(this.store, this.owner, runId, reason),
      },
      info,
    );
  }

  private async runInfo(runId: string, operation: string): Promise<RunInfo> {
    const info = await this.store.getRun(runId);
    if (info === undefined) throw new RunNotFoundError({ operation, runId });
    return info;
  }
}
