import { type AgentStreamEvent, RunEventDecoder, type RunInfo, RunNotFoundError, RunStoreError, type RunStore, type StoredRunEvent } from "@agentrx/executors";
import { Observable } from "rxjs";
import { RunStoppedError, recordedExecutor } from "../errors/run-stopped-error";
import type { ChannelHub } from "../internal/channel-hub";
import { RECORD_ONLY_TYPES, type RecordOnlyStub, type WireItem, decodeWire, isEnd, isLive, isStored, isSubRun } from "../internal/wire";
import { TokenMerger } from "./token-merger";

/** An event of a run as a client follows it: recorded events carry their `seq`; live tokens do not. */
export type RunEvent = AgentStreamEvent & { seq?: number };

/** What a follower yields: an event to show, or the `seq` of a recorded entry it does not show. */
export type FollowItem = { event: RunEvent } | { skipped: number };

/** What following a run needs. @internal */
export interface FollowContext {
  store: RunStore;
  hub: ChannelHub;
  channel: string;
  /** Read the record again after this long without news (a safety net for lost messages). */
  pollIntervalMs: number;
  /** Whether a resume of the run is queued or running. */
  resumePending(runId: string): Promise<boolean>;
  /**
   * Makes sure a queued (or abandoned running) run has a job: queues it again when Redis lost it;
   * rejects with `RunStoppedError` when the run can no longer progress.
   */
  reconcile(info: RunInfo): Promise<void>;
}

const PAGE = 500;
/** Channel items held while the replay is paused beyond which it goes on anyway (so the consumer's bound can drop it). */
const PAUSED_INBOX_LIMIT = 1_000;
type Step = "done" | undefined;

/**
 * Lets a consumer pause the replay of the record: called after each recorded entry is emitted, it
 * returns a promise to wait on while the consumer is full (e.g. its socket), else `undefined`.
 * @internal
 */
export type FollowPace = () => Promise<unknown> | undefined;

/**
 * Follows a run: listens on its channel first (buffering), reads its record, then goes on with
 * what the channel brings, so that every recorded event after `after` comes exactly once, in `seq`
 * order, with nothing missing between the record and the live part. Live tokens pass through
 * (without `seq`) unless their text was shown already (see `TokenMerger`). A `seq` gap on the
 * channel (a lost message) is filled from the store. Completes after the `output` event (or at
 * once when the run ended at or before `after`); a pause's `output` ends the stream only while no
 * resume of the run is queued. Errors with `RunStoppedError` when the run failed or was cancelled
 * (and no resume is queued), with `RunNotFoundError` for an unknown run. With `pace`, reading the
 * record waits while the consumer is full; live items are not paused (a consumer that does not keep
 * up relies on its own bound), and a paused replay goes on anyway once more than
 * {@link PAUSED_INBOX_LIMIT} channel items wait, so what is held stays bounded. `onLive` is called
 * once the record shows the run queued or running (it goes on: a consumer can open its stream then,
 * before any event comes).
 *
 * @internal
 */
export function followRun(context: FollowContext, runId: string, after: number, pace?: FollowPace, onLive?: () => void): Observable<FollowItem> {
  return new Observable<FollowItem>((subscriber) => {
    const { store, hub, channel, pollIntervalMs } = context;
    const decoder = new RunEventDecoder(runId);
    const subDecoder = new RunEventDecoder(runId);
    const merger = new TokenMerger();
    const inbox: WireItem[] = [];
    let decoded = 0; // the seq of the last recorded entry taken
    let listening = false;
    let working = false;
    let recheck = true; // read the store and the run's status before anything else
    let closed = false;
    let quietSince = Date.now();
    let stopListening: (() => void) | undefined;
    let stopReconnect: (() => void) | undefined;
    const stopClose = hub.onClose((error) => fail(error));
    let poll: ReturnType<typeof setInterval> | undefined;
    let overflow: (() => void) | undefined; // ends a paused replay when the inbox grew too long

    const emit = (item: FollowItem) => {
      if (!closed) subscriber.next(item);
    };

    /** Takes the next recorded entry (`seq === decoded + 1`). */
    const take = (stored: StoredRunEvent | RecordOnlyStub): Step => {
      decoded = stored.seq;
      const shown = stored.seq > after;
      if (RECORD_ONLY_TYPES.has(stored.type) || !isStored(stored)) {
        if (shown) emit({ skipped: stored.seq });
        return undefined;
      }
      let event: AgentStreamEvent;
      try {
        event = decoder.decode(stored) as AgentStreamEvent;
      } catch (cause) {
        throw new RunStoreError({ operation: "events", runId, reason: "corrupt", message: `RunClient.events: event ${stored.seq} of run "${runId}" cannot be decoded: ${(cause as Error).message}`, cause });
      }
      // A sub-run's events (recorded by the calling run) neither start a segment nor end the stream.
      const own = event.subRun === undefined;
      if (event.type === "start" && own) merger.startSegment(stored.seq);
      if (event.type === "token") {
        const text = merger.recordedToken(event.iteration, event.text, shown);
        if (shown) emit(text === undefined ? { skipped: stored.seq } : { event: { ...event, text, seq: stored.seq } });
        return undefined;
      }
      if (!shown) return undefined;
      emit({ event: { ...event, seq: stored.seq } });
      if (event.type !== "output" || !own) return undefined;
      if (event.stopReason !== "interrupted") return "done";
      recheck = true; // a pause ends the stream unless a resume is on its way
      return undefined;
    };

    /** Takes every entry the store has after `decoded`. */
    const readStore = async (): Promise<Step> => {
      for (;;) {
        const page = await store.readEvents(runId, { after: decoded, limit: PAGE });
        for (const stored of page) {
          if (stored.seq <= decoded) continue;
          if (stored.seq !== decoded + 1) {
            throw new RunStoreError({ operation: "events", runId, reason: "corrupt", message: `RunClient.events: event ${decoded + 1} of run "${runId}" is missing from the store (it returned ${stored.seq} next).` });
          }
          if (take(stored) === "done" || closed) return "done";
          const paused = pace?.();
          if (paused !== undefined && inbox.length <= PAUSED_INBOX_LIMIT) {
            await Promise.race([paused, new Promise<void>((resolve) => (overflow = resolve))]);
            overflow = undefined;
            if (closed) return "done";
          }
        }
        if (page.length < PAGE) return undefined;
      }
    };

    /** Reads the record and the run's status: has the run ended for this follower? */
    const check = async (): Promise<Step> => {
      const info = await store.getRun(runId);
      if (info === undefined) throw new RunNotFoundError({ operation: "events", runId });
      if ((await readStore()) === "done") return "done";
      if (decoded !== info.eventCount) return undefined; // the run moved on since: the channel will say
      if (info.status === "finished") return "done"; // its output is at or before `after`
      if (info.status === "queued" || info.status === "running") {
        await context.reconcile(info); // a job Redis lost is queued again
        return undefined;
      }
      if (info.status !== "interrupted" && info.status !== "failed" && info.status !== "cancelled") return undefined;
      if (await context.resumePending(runId)) return undefined;
      if (info.status === "interrupted") return "done";
      throw new RunStoppedError({ runId, status: info.status, ...(info.error ? { reason: info.error } : {}), executor: recordedExecutor(info) });
    };

    /** Handles one channel item. */
    const handle = async (item: WireItem): Promise<Step> => {
      if (isEnd(item)) {
        recheck = true;
        return undefined;
      }
      if (isSubRun(item)) {
        let event: AgentStreamEvent;
        try {
          event = subDecoder.decode({ seq: 0, type: String(item.sub.data["type"]), at: Number(item.sub.data["at"] ?? 0), data: item.sub.data }) as AgentStreamEvent;
        } catch {
          return undefined; // a sub-run event that cannot be read is only a live extra
        }
        emit({ event: { ...event, subRun: item.sub.path, ...(item.sub.callIds === undefined ? {} : { subRunCallIds: item.sub.callIds }) } });
        return undefined;
      }
      if (isLive(item)) {
        const { segment, iteration, offset, text, at } = item.live;
        const shown = merger.live(segment, iteration, offset, text);
        if (shown !== undefined) emit({ event: { type: "token", iteration, text: shown, at } });
        return undefined;
      }
      if (item.seq <= decoded) return undefined;
      const usable = isStored(item) || RECORD_ONLY_TYPES.has(item.type);
      if (item.seq === decoded + 1 && usable) return take(item);
      // A gap (a message was lost) or an entry without its data: the store has it.
      return readStore();
    };

    const pump = async (): Promise<void> => {
      if (working || !listening || closed) return;
      working = true;
      try {
        while (!closed) {
          let step: Step;
          if (recheck) {
            recheck = false;
            step = await check();
          } else {
            const item = inbox.shift();
            if (item === undefined) break;
            step = await handle(item);
          }
          if (step === "done") {
            finish();
            return;
          }
        }
      } catch (error) {
        fail(error);
        return;
      } finally {
        working = false;
      }
      if (!closed && (recheck || inbox.length > 0)) void pump();
    };

    const teardown = () => {
      closed = true;
      overflow?.();
      stopListening?.();
      stopReconnect?.();
      stopClose();
      if (poll !== undefined) clearInterval(poll);
    };
    const finish = () => {
      if (closed) return;
      teardown();
      subscriber.complete();
    };
    const fail = (error: unknown) => {
      if (closed) return;
      teardown();
      subscriber.error(error);
    };

    /**
     * Reads the record while the channel's subscription is on its way: a finished run (or an
     * unknown one) needs nothing from Redis, so its events come, and end, while Redis is
     * unreachable too. Any other run goes on once the channel is heard (its record read again).
     */
    const readEnded = async (): Promise<void> => {
      working = true;
      try {
        const info = await store.getRun(runId);
        if (info === undefined) throw new RunNotFoundError({ operation: "events", runId });
        if (info.status === "finished" && ((await readStore()) === "done" || decoded === info.eventCount)) return finish();
        if ((info.status === "queued" || info.status === "running") && !closed) onLive?.();
      } catch (error) {
        return fail(error);
      } finally {
        working = false;
      }
      if (listening) void pump();
    };

    poll = setInterval(() => {
      if (Date.now() - quietSince < pollIntervalMs) return;
      quietSince = Date.now();
      recheck = true;
      void pump();
    }, pollIntervalMs);

    void readEnded();
    hub
      .listen(channel, (message) => {
        quietSince = Date.now();
        inbox.push(...decodeWire(message));
        if (inbox.length > PAUSED_INBOX_LIMIT) overflow?.();
        void pump();
      })
      .then((stop) => {
        if (closed) return stop();
        stopListening = stop;
        stopReconnect = hub.onReconnect(() => {
          recheck = true;
          void pump();
        });
        listening = true;
        void pump();
      }, fail);

    return teardown;
  });
}
