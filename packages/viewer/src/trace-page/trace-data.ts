// The data a trace page is built from: a run's record, decoded into plain JSON that the page's
// script reads (from its embedded `<script type="application/json">`, or from the `ui` server's
// Server-Sent Events). Types only: the page and the server share them.

/** A text as the page carries it: whole, or cut to fit the page (its start and its full length). */
export type TraceText = string | TraceTextCut;

/** A text the page holds only the start of (the whole text stays in the store). */
export interface TraceTextCut {
  /** The first characters. */
  head: string;
  /** How many characters the whole text has. */
  length: number;
}

/** Token counts of a model call or a run. */
export interface TraceUsage {
  input: number;
  output: number;
  total: number;
  /** Input tokens read from the provider's prompt cache (`input_token_details.cache_read`). */
  cacheRead?: number;
  /** Input tokens written to the prompt cache (`input_token_details.cache_creation`). */
  cacheCreation?: number;
  /** Output tokens spent reasoning (`output_token_details.reasoning`). */
  reasoning?: number;
  /** What it cost in US dollars, when the executor's `prices` knew the model (`usage.cost.total`). */
  cost?: number;
  /**
   * How many model calls the executor's `prices` could not price (`usage.unpricedCalls`: 1 on such
   * a call's usage, a count on a run's; see docs/cost.md#calls-without-a-price). Absent when there
   * are none, and on a record written before usage counted them.
   */
  unpricedCalls?: number;
}

/**
 * A model call's whole request, as the run recorded it with `recordPrompts`: the messages sent,
 * the tool definitions and the call's settings (model, temperature, ...).
 */
export interface TraceRequest<T = TraceText> {
  /** The hash of the whole request (two calls with the same hash sent the same request). */
  hash: string;
  messages: TraceMessage<T>[];
  /** The tool definitions, as JSON text. */
  tools?: T;
  /** How many tools were sent. */
  toolCount?: number;
  /** The settings, as JSON text. */
  settings?: T;
}

/**
 * A model call's request as a page embeds it (`TraceEvent`'s `requestRef`): its parts by their
 * position in the page's {@link TraceRequestParts}. A request repeats the conversation so far, so
 * the page keeps each distinct message, tool list and settings text once and each request names
 * the ones it had: a long run's page grows with its number of calls, not with its square.
 */
export interface TraceRequestRef {
  /** The hash of the whole request (two calls with the same hash sent the same request). */
  hash: string;
  /**
   * The messages sent, in order: positions in the parts' `messages`, a run of consecutive ones as
   * `[first, last]` (a request that repeats the conversation so far is one run or a few).
   */
  messages: (number | [first: number, last: number])[];
  /** The tool definitions: a position in the parts' `texts`. */
  tools?: number;
  /** How many tools were sent. */
  toolCount?: number;
  /** The settings: a position in the parts' `texts`. */
  settings?: number;
}

/** The distinct parts of a page's requests, each once: what {@link TraceRequestRef}s point at. */
export interface TraceRequestParts<T = TraceText> {
  messages: TraceMessage<T>[];
  /** Tool definitions and settings, as JSON text. */
  texts: T[];
}

/**
 * The request parts a live page's update adds to the page's {@link TraceRequestParts}: its new
 * events' `requestRef`s point at them, and at the parts the page has already (sent once, never
 * again). Each list goes at its position in the page's: `messages[i]` is the page's message
 * `messagesFrom + i`.
 */
export interface TraceRequestPartsUpdate<T = TraceText> extends TraceRequestParts<T> {
  /** The position in the page's `messages` of the first of `messages`. */
  messagesFrom: number;
  /** The position in the page's `texts` of the first of `texts`. */
  textsFrom: number;
}

/**
 * An image of a recorded value (a tool's observation, the run's inputs, a message), as the page
 * shows it: a thumbnail when the page embeds it (`dataUrl`), else a placeholder with its type and
 * size. Its place in the text is marked `[image N: ...]`.
 */
export interface TraceImage {
  /** Its media type (`image/png`), or `image` when the record does not say. */
  mime: string;
  /** Its size in bytes, when known (from its base64, or the record's note). */
  bytes?: number;
  /** A `data:` URL of the image, for a small inline image the page embeds. */
  dataUrl?: string;
  /** An image by URL: the page shows the URL, it does not load it. */
  url?: string;
  /** The record left it out (too large to keep): a note with its type and size is all there is. */
  leftOut?: boolean;
  /** The SHA-256 of its base64, when the record's note gives it. */
  sha256?: string;
}

/** A tool call a model asked for, as its reply carries it. */
export interface TraceToolCall<T = TraceText> {
  id?: string;
  name: string;
  /** The arguments, as JSON text. */
  args: T;
}

/**
 * A message, reduced to what a person reads: who sent it, its text, the reasoning it shows, the
 * tool calls it asks for.
 */
export interface TraceMessage<T = TraceText> {
  role: string;
  /** Its text: the content without reasoning, and without the blocks that repeat its tool calls. */
  content: T;
  /** The images of its content (their places in `content` are marked `[image N: ...]`). */
  images?: TraceImage[];
  /** The model's reasoning, when the reply carries it (thinking blocks, reasoning summaries, `reasoning_content`). */
  reasoning?: T;
  toolCalls?: TraceToolCall<T>[];
}

interface TraceEventBase {
  /** 1-based position in the run's record. */
  seq: number;
  /** When it happened, epoch milliseconds. */
  at: number;
}

/** One recorded event of a run, in the page's form. `T` is the text type (the server builds capped texts). */
export type TraceEvent<T = TraceText> =
  | (TraceEventBase & {
      type: "start";
      runId: string;
      threadId?: string;
      inputs: T;
      /** The images of the inputs. */
      images?: TraceImage[];
      resumed: boolean;
      /**
       * A fork's: the run it was forked from and after which iteration. Its first `start` (of the
       * copied prefix, `resumed: false`) and the start of its own part (`resumed: true`) carry it.
       */
      forkOf?: { runId: string; iteration: number };
    })
  | (TraceEventBase & {
      type: "model_call";
      iteration: number;
      /** 0-based position of the call in the run. */
      call: number;
      /** `at` is when the call ended; it started `durationMs` before. */
      durationMs: number;
      inputCount: number;
      inputDigest: string;
      reply: TraceMessage<T>;
      /** With `recordPrompts`: the exact request, whole (the server's form, before it is embedded as `requestRef`). */
      request?: TraceRequest<T>;
      /** With `recordPrompts`, in a page's data and a live page's updates: the exact request, by its parts in the page's `requestParts`. */
      requestRef?: TraceRequestRef;
    })
  | (TraceEventBase & {
      type: "token";
      iteration: number;
      /** Characters streamed. */
      chars: number;
      /** The streamed text, for a call still streaming on a live page (absent once its reply is recorded). */
      text?: string;
    })
  | (TraceEventBase & { type: "usage"; iteration: number; usage: TraceUsage; /** The model's name, when it reported one. */ model?: string })
  | (TraceEventBase & {
      type: "action";
      iteration: number;
      /**
       * The action's position in its turn; `null` for a sub-run's action in a record that did not
       * keep it (records of releases before sub-run events carried their own positions).
       */
      index: number | null;
      tool: string;
      toolCallId?: string;
      toolInput: T;
      /** The images of the tool's input. */
      images?: TraceImage[];
      log: T;
      /** The call's idempotency key, when recorded: it names a call the model streamed without an id and that started early. */
      idempotencyKey?: string;
      /** The call started while the model still streamed its answer (`eagerTools`). */
      early?: boolean;
    })
  | (TraceEventBase & {
      type: "step";
      iteration: number;
      /** The action's position in its turn; `null` for a step without a turn (a handled parsing error). */
      index: number | null;
      tool: string;
      toolCallId?: string;
      /** Only on a step without a turn: its action's input. */
      toolInput?: T;
      observation: T;
      /** The images of the observation (and of a step without a turn's input). */
      images?: TraceImage[];
      /** `at` is when the tool call ended; it started `durationMs` before. */
      durationMs: number;
      /** What the tool's policies measured (attempts, timedOut, cached, error, ...). */
      metadata?: Record<string, unknown>;
    })
  | (TraceEventBase & { type: "output"; output: T; stopReason: string; usage?: TraceUsage; stoppedBy?: string })
  /** An event this page has no view of its own for (an approval's interrupt, ...), or one it cannot read (`error`). */
  | (TraceEventBase & {
      type: "other";
      name: string;
      /** One line about it. */
      note?: string;
      summary?: T;
      /** The images of its data (a message sent to the run, a paused call's input): `summary` marks their places. */
      images?: TraceImage[];
      error?: string;
      /** On a resume's `decisions`: the inputs a person edited, by the call they replaced (the call then ran with them). */
      edits?: TraceEdit<T>[];
      /** On a pause (`interrupt`): the calls it waits on, by iteration and position in their turn, and why. */
      paused?: TracePausedCall[];
    })
  /**
   * An event of a sub-run (an executor called as a tool, `asTool`; a handoff), or one of its model
   * calls: `path` names the tool calls down to it (`["researcher"]`, `["researcher", "fact_checker"]`),
   * `callIds` (when the record has them: `subRunCallIds`) the id of each of those tool calls, `event`
   * is the sub-run's own event.
   */
  | (TraceEventBase & { type: "sub_run"; path: string[]; callIds?: string[]; event: TraceSubRunEvent<T> });

/** An edit decision of a resume: the call it changed (by iteration and position in its turn) and the input it ran with. */
export interface TraceEdit<T = TraceText> {
  iteration: number;
  index: number;
  toolInput: T;
}

/**
 * A tool call a pause waits on: for a person's approval (`"approval"`), or in doubt (`"in_doubt"`:
 * it started before a crash or a cancellation and has no recorded result, so it may have run).
 */
export interface TracePausedCall {
  iteration: number;
  index: number;
  reason: "approval" | "in_doubt";
}

/** A sub-run's own event, as a `sub_run` event carries it. */
export type TraceSubRunEvent<T = TraceText> = Exclude<TraceEvent<T>, { type: "sub_run" }>;

/** The run's row, as the page shows it. */
export interface TraceRun {
  runId: string;
  threadId?: string;
  status: string;
  /**
   * Set on a `running` run whose lease had lapsed when its row was read (its process stopped
   * without ending it): the header shows it `running (stalled)`. See `isStalledRun`.
   */
  stalled?: true;
  stopReason?: string;
  error?: string;
  usage?: TraceUsage;
  createdAt: number;
  updatedAt: number;
  eventCount: number;
  /** Iterations so far (from the run's checkpoint). */
  iterations?: number;
  /** Wall time spent running, over every segment (from the run's checkpoint). */
  elapsedMs?: number;
  /** The run this one was forked from, and after which of its iterations. */
  forkOf?: { runId: string; iteration: number };
}

/** Everything a trace page starts from. */
export interface TracePageData {
  run: TraceRun;
  events: TraceEvent[];
  /** `"file"`: a self-contained file; `"ui"`: served by `agentrx ui` (live updates, whole texts on demand). */
  mode: "file" | "ui";
  /** Where the record was read, e.g. `SQLite .agentrx/runs.db`. */
  source: string;
  /** When the page was made, epoch milliseconds. */
  generatedAt: number;
  /** What can be done to the run from the page (a `ui` started with an executor); absent: nothing. */
  actions?: TraceActions;
  /** The parts of the model calls' recorded requests (`recordPrompts`), each once: what their `requestRef`s point at. */
  requestParts?: TraceRequestParts;
}

/** A paused tool call waiting for a decision, as the page's actions show it. */
export interface TracePendingCall {
  /** The interrupt's id (the key of its decision). */
  id: string;
  tool: string;
  toolInput: unknown;
  /** Why it paused: `"approval"` or `"in_doubt"`. */
  reason?: string;
  /**
   * Set on another agent's call (a paused `handoff`'s or `asTool`'s, see docs/agent-types.md,
   * "Pauses inside a handoff"): the run's tool that ran that agent, and that agent's run. `tool` is
   * not one of this run's tools; a decision for `id` goes to that agent's run when this one
   * resumes. The page names the tool and links to that run's page (when this store holds it).
   */
  subRun?: {
    /** This run's tool that ran the other agent (the handoff's or `asTool`'s name). */
    tool: string;
    /** The other agent's paused run (`handoff:<key>` or `as-tool:<key>`). */
    runId: string;
    /** The call's interrupt id in that run. */
    interruptId: string;
    /** Whether the `ui`'s store holds that run (the other agent may record its runs in a store of its own). */
    inStore: boolean;
  };
}

/**
 * What the page may ask the `ui` server to do to its run: each action is a POST to
 * `/api/runs/<runId>/actions` carrying `token` (a per-server-session secret) in the
 * `x-agentrx-token` header.
 */
export interface TraceActions {
  token: string;
  /** Calls waiting for approve / reject / edit. */
  pending: TracePendingCall[];
  /**
   * Set on another agent's paused run (a `handoff`'s or `asTool`'s) whose calling run, in this
   * store, waits on it: that run's id. Its calls are answered on that run's page, not here
   * (`pending` is empty): resuming it resumes this run with its own agent.
   */
  pausedIn?: string;
  /** A cancelled run, or one whose worker died (running, with its lease expired). */
  resume: boolean;
  /** A run this server runs (it resumed or forked it). */
  cancel: boolean;
  /** Forks are possible (any run with a record). */
  fork: boolean;
}

/** A batch of new events and the run's row, as the `ui` server streams them. */
export interface TraceUpdate {
  run: TraceRun;
  events: TraceEvent[];
  /**
   * The request parts the events' `requestRef`s add to the page's `requestParts` (`recordPrompts`):
   * only the new ones, so a long live run's stream grows with its calls, not with their square.
   */
  requestParts?: TraceRequestPartsUpdate;
}
