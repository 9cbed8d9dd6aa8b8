// Runs in the trace page (bundled into its script at build time: scripts/build-page-scripts.mjs)
// and in Node (the CLI and the tests), so it uses only the JavaScript built-ins, no DOM.
import type { TraceEdit, TraceEvent, TraceImage, TraceMessage, TraceRequest, TraceRequestParts, TraceRequestRef, TraceRun, TraceSubRunEvent, TraceText, TraceUpdate, TraceUsage } from "../trace-data";

/** A stretch of a run in one process: the first one, then one per resume. */
export interface TraceSegment {
  /** The `seq` of its `start` event. */
  seq: number;
  start: number;
  /** Its last event's time. */
  end: number;
  resumed: boolean;
  /**
   * A fork's segments (their `start` events carry `forkOf`): the copied prefix (`resumed: false`),
   * whose events keep the source's times, and the fork's own part (`resumed: true`), not a resume.
   */
  forkOf?: { runId: string; iteration: number };
}

/** A model call: recorded (`model_call`), or inferred from the events around it. */
export interface TraceModelCall {
  iteration: number;
  /** 0-based position in the run (recorded calls). */
  call?: number;
  /** The `seq` of its `model_call` event (recorded calls). */
  seq?: number;
  start: number;
  end: number;
  /** When its first streamed token arrived. */
  firstTokenAt?: number;
  /** Characters streamed. */
  tokenChars: number;
  /** The text streamed so far, for a call still streaming on a live page (its reply is not recorded yet). */
  liveText?: string;
  usage?: TraceUsage;
  reply?: TraceMessage;
  /** With `recordPrompts`: the exact request, whole (data made before requests were embedded by parts), or see `requestRef`. */
  request?: TraceRequest;
  /** With `recordPrompts`, from the page's data or a live update: the exact request by its parts; {@link traceRequestOf} rebuilds it. */
  requestRef?: TraceRequestRef;
  /** The model's name, as its usage reported it. */
  modelName?: string;
  inputCount?: number;
  inputDigest?: string;
}

/** A tool call: its action (what the agent asked for) and, once it ended, its step. */
export interface TraceToolCall {
  iteration: number;
  /** Position in its turn; `null` for a step without a turn (a handled parsing error). */
  index: number | null;
  tool: string;
  toolCallId?: string;
  /** Its idempotency key, when recorded (what names a call started early without a tool-call id). */
  idempotencyKey?: string;
  /** It started while the model still streamed its answer (`eagerTools`). */
  early?: boolean;
  input?: TraceText;
  /** The images of its input. */
  inputImages?: TraceImage[];
  /** The `seq` of the event `input` comes from. */
  inputSeq?: number;
  /** Where `input` is in that event (for fetching it whole), when not its `toolInput`: an edit decision's. */
  inputField?: string;
  /** When a person edited the call before it ran (`input` is then what it ran with): the input the agent asked for. */
  askedInput?: TraceText;
  /** The `seq` of the event `askedInput` comes from (its action). */
  askedInputSeq?: number;
  log?: TraceText;
  actionSeq?: number;
  actionAt?: number;
  stepSeq?: number;
  /** When it started (its step's `at - durationMs`). */
  start?: number;
  end?: number;
  durationMs?: number;
  observation?: TraceText;
  /** The images of its observation. */
  observationImages?: TraceImage[];
  metadata?: Record<string, unknown>;
  /** The last pause that waited on it: for a person's approval, or with the call in doubt (started, no recorded result). */
  pausedFor?: "approval" | "in_doubt";
  /** The sub-runs this call started (an executor called as a tool, a handoff), in order. */
  subRuns?: TraceModel[];
}

/** One agent call and what it led to. */
export interface TraceIteration {
  /** The recorded (0-based) iteration number. */
  n: number;
  modelCalls: TraceModelCall[];
  tools: TraceToolCall[];
  /** Streamed-token and usage events not yet claimed by a recorded model call. */
  pendingFirstTokenAt?: number;
  pendingTokenChars: number;
  /** The text of those tokens, when the page was given it (a live page). */
  pendingText?: string;
  /** The sum of the usage events since its last recorded model call (which that call did not claim). */
  pendingUsage?: TraceUsage;
  /** The model the latest of them named. */
  pendingModel?: string;
  /** Times of its first and last events. */
  firstAt: number;
  lastAt: number;
}

/** The run's answer. */
export interface TraceOutput {
  seq: number;
  at: number;
  text: TraceText;
  stopReason: string;
  usage?: TraceUsage;
  stoppedBy?: string;
}

/** An event without a view of its own. */
export interface TraceOther {
  seq: number;
  at: number;
  name: string;
  note?: string;
  summary?: TraceText;
  /** The images of its data (`summary` marks their places). */
  images?: TraceImage[];
  error?: string;
}

/** A run as the trace page knows it, built from its row and its events. */
export interface TraceModel {
  run: TraceRun;
  /** The page's request parts (its data's `requestParts`), which its model calls' `requestRef`s point at; a sub-run shares its run's. */
  requestParts?: TraceRequestParts;
  inputs?: TraceText;
  /** The images of the inputs. */
  inputImages?: TraceImage[];
  inputsSeq?: number;
  segments: TraceSegment[];
  /** Ordered by `n`. */
  iterations: TraceIteration[];
  output?: TraceOutput;
  others: TraceOther[];
  /** Sum of the `usage` events. */
  usage: TraceUsage;
  /**
   * A fork's: the usage recorded in its copied prefix (the run's own `usage` events and its
   * sub-runs'), which the run it was forked from spent; the run's usage counts it too.
   */
  copiedUsage?: TraceUsage;
  /**
   * How many `token` events the run has: none when nothing watched its model's tokens (an
   * `invoke` run without `verbose`), so its model calls were not streamed and have no first token.
   */
  tokenEvents: number;
  lastSeq: number;
  /** On a sub-run: the tool names down to it from the run (`["researcher"]`). */
  path?: string[];
  /** On a sub-run: where its events' texts are in the record's events (`event.`), for fetching a whole text. */
  fieldPrefix?: string;
  /**
   * The sub-run each tool name last started (where that tool's sub-run events without call ids
   * go), and each sub-run by its tool's name and the id of the call that started it (`name#id`).
   */
  activeSubRuns?: Record<string, TraceModel>;
  /**
   * Sub-runs whose tool call is not in the record (a damaged record), or not yet: a call started
   * early (`eagerTools`) starts its sub-run before the model's answer names the call; its action
   * adopts it then.
   */
  strayRuns?: TraceModel[];
  /** On a sub-run: the id of the tool call that started it, when recorded (`subRunCallIds`). */
  callId?: string;
}

/** The trace page's model functions. */
export type TraceModelRuntime = ReturnType<typeof traceModelRuntime>;

/**
 * Builds a {@link TraceModel} from a run's row and its events, as one self-contained function
 * (see the note at the top of this file): the page applies the embedded events, then the ones a
 * live run streams, with the same code.
 *
 * @internal
 */
export function traceModelRuntime() {
  /**
   * A run with no event applied yet; `requestParts`: the page data's, for its model calls'
   * `requestRef`s (none: an empty list, which a live page's updates fill and its sub-runs share).
   */
  function createTrace(run: TraceRun, requestParts: TraceRequestParts = { messages: [], texts: [] }): TraceModel {
    return { run, requestParts, segments: [], iterations: [], others: [], usage: { input: 0, output: 0, total: 0 }, tokenEvents: 0, lastSeq: 0 };
  }

  function iterationOf(model: TraceModel, n: number, at: number): TraceIteration {
    const list = model.iterations;
    let low = 0;
    let high = list.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if ((list[mid] as TraceIteration).n < n) low = mid + 1;
      else high = mid;
    }
    const found = list[low];
    if (found !== undefined && found.n === n) {
      found.firstAt = Math.min(found.firstAt, at);
      found.lastAt = Math.max(found.lastAt, at);
      return found;
    }
    const created: TraceIteration = { n, modelCalls: [], tools: [], pendingTokenChars: 0, firstAt: at, lastAt: at };
    list.splice(low, 0, created);
    return created;
  }

  /** Forgets the streamed tokens no model call of `iteration` claimed (yet). */
  function dropPendingTokens(iteration: TraceIteration): void {
    iteration.pendingFirstTokenAt = undefined;
    iteration.pendingTokenChars = 0;
    iteration.pendingText = undefined;
  }

  function addUsage(total: TraceUsage, usage: TraceUsage): void {
    total.input += usage.input;
    total.output += usage.output;
    total.total += usage.total;
    for (const key of ["cacheRead", "cacheCreation", "reasoning", "cost", "unpricedCalls"] as const) {
      const count = usage[key];
      if (count !== undefined) total[key] = (total[key] ?? 0) + count;
    }
  }

  /**
   * The tool call of an action or step: by its position in the turn; a step without one (a
   * parsing error, or a sub-run's step, recorded with its action) by its tool call id, else (in a
   * sub-run, `inSubRun`) the oldest call of its tool still open, with no tool call id either.
   */
  function toolAt(iteration: TraceIteration, index: number | null, seq: number, toolCallId?: string, name?: string, inSubRun = false): TraceToolCall | undefined {
    if (index !== null) return iteration.tools.find((tool) => tool.index === index);
    const own = iteration.tools.find((tool) => tool.stepSeq === seq);
    if (own !== undefined) return own;
    if (toolCallId !== undefined) return iteration.tools.find((tool) => tool.toolCallId === toolCallId && tool.stepSeq === undefined);
    if (!inSubRun || name === undefined) return undefined;
    return iteration.tools.find((tool) => tool.tool === name && tool.toolCallId === undefined && tool.actionSeq !== undefined && tool.stepSeq === undefined);
  }

  /**
   * The tool call of a sub-run's action recorded without its own position in the turn (records of
   * releases that kept none: no index, or 0 for every action): the call of its tool call id, else
   * a new call at the turn's next position (a turn's actions are recorded in order), never one
   * merged by position.
   */
  function unplacedCall(iteration: TraceIteration, event: { iteration: number; tool: string; toolCallId?: string }): TraceToolCall {
    const known = event.toolCallId === undefined ? undefined : iteration.tools.find((tool) => tool.toolCallId === event.toolCallId);
    if (known !== undefined) return known;
    let next = 0;
    for (const tool of iteration.tools) if (tool.index !== null && tool.index >= next) next = tool.index + 1;
    const created: TraceToolCall = { iteration: event.iteration, index: next, tool: event.tool };
    iteration.tools.push(created);
    iteration.tools.sort(byIndex);
    return created;
  }

  /** Turn order: by position, the calls without one (steps without a turn) last, in arrival order. */
  function byIndex(a: TraceToolCall, b: TraceToolCall): number {
    return (a.index ?? Infinity) - (b.index ?? Infinity);
  }

  function applyEvent(model: TraceModel, event: TraceEvent): void {
    if (event.seq <= model.lastSeq) return; // seen already (a reconnecting stream)
    model.lastSeq = event.seq;
    if (event.type === "start") {
      const segment: TraceSegment = { seq: event.seq, start: event.at, end: event.at, resumed: event.resumed };
      if (event.forkOf !== undefined) segment.forkOf = { runId: event.forkOf.runId, iteration: event.forkOf.iteration };
      // A later segment (a resume): tokens no model call claimed were a call's cut off with the
      // segment before, which the resume makes again as the same iteration; its text is not the retry's.
      if (model.segments.length > 0) for (const iteration of model.iterations) dropPendingTokens(iteration);
      model.segments.push(segment);
      if (model.inputs === undefined) {
        model.inputs = event.inputs;
        model.inputsSeq = event.seq;
        if (event.images !== undefined) model.inputImages = event.images;
      }
      return;
    }
    const segment = model.segments[model.segments.length - 1];
    if (segment === undefined) model.segments.push({ seq: event.seq, start: event.at, end: event.at, resumed: false });
    else segment.end = Math.max(segment.end, event.at);
    // A fork's copied prefix is its first segment: what it spent, the run it was forked from spent.
    if (segment?.forkOf !== undefined && !segment.resumed) {
      const usage = event.type === "usage" ? event.usage : event.type === "sub_run" && event.event.type === "usage" ? event.event.usage : undefined;
      if (usage !== undefined) addUsage((model.copiedUsage ??= { input: 0, output: 0, total: 0 }), usage);
    }
    switch (event.type) {
      case "token": {
        const iteration = iterationOf(model, event.iteration, event.at);
        model.tokenEvents++;
        iteration.pendingFirstTokenAt ??= event.at;
        iteration.pendingTokenChars += event.chars;
        if (event.text !== undefined) iteration.pendingText = (iteration.pendingText ?? "") + event.text;
        return;
      }
      case "usage": {
        const iteration = iterationOf(model, event.iteration, event.at);
        addUsage(model.usage, event.usage);
        const last = iteration.modelCalls[iteration.modelCalls.length - 1];
        // Usage normally comes just before its model_call; after it, it belongs to the call it follows.
        if (last !== undefined && last.usage === undefined && iteration.pendingUsage === undefined && last.end <= event.at) {
          last.usage = event.usage;
          if (event.model !== undefined) last.modelName = event.model;
        } else if (iteration.pendingUsage === undefined) {
          iteration.pendingUsage = event.usage;
          iteration.pendingModel = event.model;
        } else {
          // Several usage events before the model call (a call retried, a model's usage reported in parts): the call spent them all.
          const sum = { ...iteration.pendingUsage };
          addUsage(sum, event.usage);
          iteration.pendingUsage = sum;
          if (event.model !== undefined) iteration.pendingModel = event.model;
        }
        return;
      }
      case "model_call": {
        const iteration = iterationOf(model, event.iteration, event.at);
        const start = event.at - event.durationMs;
        const call: TraceModelCall = {
          iteration: event.iteration,
          call: event.call,
          seq: event.seq,
          start,
          end: event.at,
          tokenChars: iteration.pendingTokenChars,
          reply: event.reply,
          inputCount: event.inputCount,
          inputDigest: event.inputDigest,
        };
        if (iteration.pendingFirstTokenAt !== undefined) call.firstTokenAt = Math.max(start, Math.min(event.at, iteration.pendingFirstTokenAt));
        if (iteration.pendingUsage !== undefined) call.usage = iteration.pendingUsage;
        if (iteration.pendingModel !== undefined) call.modelName = iteration.pendingModel;
        if (event.request !== undefined) call.request = event.request;
        else if (event.requestRef !== undefined) call.requestRef = event.requestRef;
        iteration.pendingModel = undefined;
        dropPendingTokens(iteration);
        iteration.pendingUsage = undefined;
        iteration.firstAt = Math.min(iteration.firstAt, start);
        iteration.modelCalls.push(call);
        return;
      }
      case "action": {
        const iteration = iterationOf(model, event.iteration, event.at);
        let tool = event.index === null ? unplacedCall(iteration, event) : toolAt(iteration, event.index, event.seq);
        // A sub-run's position that another action holds is not its own (records that kept none gave each 0).
        if (model.path !== undefined && tool?.actionSeq !== undefined && tool.actionSeq !== event.seq) tool = unplacedCall(iteration, event);
        if (tool === undefined) {
          tool = { iteration: event.iteration, index: event.index, tool: event.tool };
          iteration.tools.push(tool);
          iteration.tools.sort(byIndex);
        }
        tool.tool = event.tool;
        if (event.toolCallId !== undefined) tool.toolCallId = event.toolCallId;
        tool.input = event.toolInput;
        tool.inputSeq = event.seq;
        if (event.images !== undefined) tool.inputImages = event.images;
        tool.log = event.log;
        tool.actionSeq = event.seq;
        tool.actionAt = event.at;
        if (event.idempotencyKey !== undefined) tool.idempotencyKey = event.idempotencyKey;
        if (event.early === true) tool.early = true;
        adoptStrays(model, iteration, tool);
        return;
      }
      case "step": {
        const iteration = iterationOf(model, event.iteration, event.at);
        let tool = toolAt(iteration, event.index, event.seq, event.toolCallId, event.tool, model.path !== undefined);
        if (tool === undefined) {
          tool = { iteration: event.iteration, index: event.index, tool: event.tool };
          iteration.tools.push(tool);
        }
        if (event.toolCallId !== undefined) tool.toolCallId = event.toolCallId;
        if (event.toolInput !== undefined && tool.actionSeq === undefined) {
          tool.input = event.toolInput;
          tool.inputSeq = event.seq;
        }
        tool.stepSeq = event.seq;
        tool.start = event.at - event.durationMs;
        tool.end = event.at;
        tool.durationMs = event.durationMs;
        tool.observation = event.observation;
        if (event.images !== undefined) tool.observationImages = event.images;
        if (event.metadata !== undefined) tool.metadata = event.metadata;
        iteration.firstAt = Math.min(iteration.firstAt, tool.start);
        return;
      }
      case "output":
        model.output = { seq: event.seq, at: event.at, text: event.output, stopReason: event.stopReason };
        if (event.usage !== undefined) model.output.usage = event.usage;
        if (event.stoppedBy !== undefined) model.output.stoppedBy = event.stoppedBy;
        return;
      case "sub_run":
        applySubRunEvent(model, event.path, event.event, event.callIds);
        return;
      case "other": {
        if (event.edits !== undefined) applyEdits(model, event.seq, event.edits);
        for (const call of event.paused ?? []) {
          const iteration = model.iterations.find((candidate) => candidate.n === call.iteration);
          const tool = iteration === undefined ? undefined : toolAt(iteration, call.index, event.seq);
          if (tool !== undefined) tool.pausedFor = call.reason;
        }
        const other: TraceOther = { seq: event.seq, at: event.at, name: event.name };
        if (event.note !== undefined) other.note = event.note;
        if (event.summary !== undefined) other.summary = event.summary;
        if (event.images !== undefined) other.images = event.images;
        if (event.error !== undefined) other.error = event.error;
        model.others.push(other);
        return;
      }
    }
  }

  /**
   * A resume's edit decisions: each edited call ran with the edited input, which becomes its input;
   * what the agent asked for is kept as its `askedInput`.
   */
  function applyEdits(model: TraceModel, seq: number, edits: readonly TraceEdit[]): void {
    edits.forEach((edit, i) => {
      const iteration = model.iterations.find((candidate) => candidate.n === edit.iteration);
      const tool = iteration === undefined ? undefined : toolAt(iteration, edit.index, seq);
      if (tool === undefined) return;
      if (tool.askedInput === undefined && tool.input !== undefined) {
        tool.askedInput = tool.input;
        if (tool.inputSeq !== undefined) tool.askedInputSeq = tool.inputSeq;
      }
      tool.input = edit.toolInput;
      tool.inputSeq = seq;
      tool.inputField = `edits.${i}.toolInput`;
    });
  }

  /**
   * The tool call of `parent` that started a sub-run of `name`. With `callId` (records that say
   * which call it was, `subRunCallIds`): the call of that id (its `toolCallId`, else
   * `"<iteration>:<index>"`). Without (older records): a guess, the one running not yet given a
   * sub-run, if any, else the latest one running.
   */
  function callerOf(parent: TraceModel, name: string, callId: string | undefined): TraceToolCall | undefined {
    if (callId !== undefined) {
      for (let i = parent.iterations.length - 1; i >= 0; i--) {
        const iteration = parent.iterations[i] as TraceIteration;
        for (const tool of iteration.tools) if (isCallOf(iteration, tool, callId)) return tool;
      }
      return undefined;
    }
    let running: TraceToolCall | undefined;
    for (let i = parent.iterations.length - 1; i >= 0; i--) {
      for (const tool of (parent.iterations[i] as TraceIteration).tools) {
        if (tool.tool !== name || tool.stepSeq !== undefined) continue;
        if (tool.subRuns === undefined) return tool;
        running ??= tool;
      }
    }
    return running;
  }

  /**
   * Whether `callId` (a sub-run's `subRunCallIds` entry) names `tool`: its `toolCallId`, else
   * `"<iteration>:<index>"`; a call the model streamed without an id and that started early
   * (`eagerTools`) is `"<iteration>:early-<n>"`, the end of its idempotency key.
   */
  function isCallOf(iteration: TraceIteration, tool: TraceToolCall, callId: string): boolean {
    if (tool.toolCallId === callId) return true;
    if (tool.idempotencyKey !== undefined && callId.startsWith(`${iteration.n}:early-`) && tool.idempotencyKey.endsWith(`:${callId}`)) return true;
    return tool.toolCallId === undefined && `${iteration.n}:${tool.index ?? 0}` === callId;
  }

  /**
   * Moves to `tool` the sub-runs it started before its action was recorded (a call started early:
   * its sub-run's first events come before the model's answer), in the order they started.
   */
  function adoptStrays(model: TraceModel, iteration: TraceIteration, tool: TraceToolCall): void {
    const strays = model.strayRuns;
    if (strays === undefined) return;
    const adopted = strays.filter((sub) => sub.callId !== undefined && isCallOf(iteration, tool, sub.callId));
    if (adopted.length === 0) return;
    model.strayRuns = strays.filter((sub) => !adopted.includes(sub));
    if (model.strayRuns.length === 0) delete model.strayRuns;
    (tool.subRuns ??= []).push(...adopted);
  }

  /**
   * Applies a sub-run's event to the sub-run `path` leads to from `parent`, starting it at its
   * `start`. `callIds` (parallel to `path`, when recorded) say which tool call started each sub-run
   * of the path, so two calls of one tool running at once each get their own sub-run.
   */
  function applySubRunEvent(parent: TraceModel, path: readonly string[], event: TraceSubRunEvent, callIds?: readonly string[]): void {
    const name = path[0] as string;
    const callId = callIds?.[0];
    const active = (parent.activeSubRuns ??= {});
    const key = callId === undefined ? name : `${name}#${callId}`;
    let sub = active[key];
    if (sub === undefined || (path.length === 1 && event.type === "start" && !event.resumed)) {
      const runId = event.type === "start" ? event.runId : `${name}?`;
      sub = createTrace({ runId, status: parent.run.status, createdAt: event.at, updatedAt: event.at, eventCount: 0 }, parent.requestParts);
      sub.path = [...(parent.path ?? []), name];
      sub.fieldPrefix = "event.";
      if (callId !== undefined) sub.callId = callId;
      active[key] = sub;
      const caller = callerOf(parent, name, callId);
      if (caller !== undefined) (caller.subRuns ??= []).push(sub);
      else (parent.strayRuns ??= []).push(sub);
    }
    if (path.length > 1) {
      sub.lastSeq = Math.max(sub.lastSeq, event.seq);
      const segment = sub.segments[sub.segments.length - 1];
      if (segment !== undefined) segment.end = Math.max(segment.end, event.at);
      applySubRunEvent(sub, path.slice(1), event, callIds?.slice(1));
    } else applyEvent(sub, event);
  }

  /** Applies events in order; ones already applied (by `seq`) are skipped. */
  function applyEvents(model: TraceModel, events: readonly TraceEvent[]): void {
    for (const event of events) applyEvent(model, event);
  }

  /**
   * Applies a live page's update (see `TraceUpdate`): the run's row, the request parts it adds, each
   * at its position in the page's (which a sub-run shares), then its events.
   */
  function applyUpdate(model: TraceModel, update: TraceUpdate): void {
    model.run = update.run;
    const added = update.requestParts;
    if (added !== undefined) {
      const parts = (model.requestParts ??= { messages: [], texts: [] });
      added.messages.forEach((message, i) => (parts.messages[added.messagesFrom + i] = message));
      added.texts.forEach((text, i) => (parts.texts[added.textsFrom + i] = text));
    }
    applyEvents(model, update.events);
  }

  return { createTrace, applyEvents, applyUpdate };
}

/**
 * The exact request of a model call (`recordPrompts`), rebuilt from its `requestRef` and the page's
 * request parts when the page embeds it so (only for the call shown: the page keeps each part
 * once); `undefined` when the call has none. A part the page does not have (data that does not
 * fit together) is a message that says so, never left out silently.
 *
 * @internal
 */
export function traceRequestOf(model: Pick<TraceModel, "requestParts">, call: Pick<TraceModelCall, "request" | "requestRef">): TraceRequest | undefined {
  if (call.request !== undefined) return call.request;
  const ref = call.requestRef;
  if (ref === undefined) return undefined;
  const parts = model.requestParts ?? { messages: [], texts: [] };
  const missing = (what: string, index: number) => `(${what} ${index} of this model call's request is not in the page's data)`;
  const messages: TraceMessage[] = [];
  const add = (index: number) => messages.push(parts.messages[index] ?? { role: "unknown", content: missing("message part", index) });
  for (const item of ref.messages) {
    if (typeof item === "number") add(item);
    else for (let index = item[0]; index <= item[1]; index++) add(index);
  }
  const request: TraceRequest = { hash: ref.hash, messages };
  if (ref.tools !== undefined) request.tools = parts.texts[ref.tools] ?? missing("text part", ref.tools);
  if (ref.toolCount !== undefined) request.toolCount = ref.toolCount;
  if (ref.settings !== undefined) request.settings = parts.texts[ref.settings] ?? missing("text part", ref.settings);
  return request;
}
