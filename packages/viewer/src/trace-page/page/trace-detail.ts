// Runs in the page: bundled into the page's script at build time (scripts/build-page-scripts.mjs).
import type { TraceImage, TraceText, TraceUsage } from "../trace-data";
import type { DomChild, DomRuntime } from "./dom-runtime";
import type { FormatRuntime } from "./format-runtime";
import type { TraceLayoutRuntime, TraceRow } from "./trace-layout";
import { traceRequestOf, type TraceModel, type TraceModelCall, type TraceToolCall } from "./trace-model";
import { jsonText } from "../json-text";
import { runPagePath } from "../run-route";
import { cutText, cutTextEnd } from "../cut-text";

/** What the detail pane needs besides the row. */
export interface TraceDetailContext {
  mode: "file" | "ui";
  /** In the `ui`, fetches a whole text the page holds only the start of. */
  fetchText?: (seq: number, field: string) => Promise<string>;
}

/** The page's detail pane. */
export type TraceDetailRuntime = ReturnType<typeof traceDetailRuntime>;

/**
 * Renders the detail of a selected row: the run, an iteration, a model call (what it was sent as
 * far as the record keeps it, and its reply), a tool call (input, observation, policy metadata).
 * Long texts show their first few thousand characters with a "Show all" button.
 *
 * @internal
 */
export function traceDetailRuntime(dom: DomRuntime, fmt: FormatRuntime, layout: TraceLayoutRuntime) {
  const { h } = dom;
  const PREVIEW = 4000;
  /** The run's start (offsets are from it) and where the shown row's texts are in its event (a sub-run's: `event.`). */
  let origin: number | undefined;
  let prefix = "";

  function text(value: TraceText | undefined, seq: number | undefined, field: string, context: TraceDetailContext): HTMLElement {
    const whole = value === undefined ? "" : typeof value === "string" ? value : value.head;
    const length = value === undefined ? 0 : typeof value === "string" ? value.length : value.length;
    field = `${prefix}${field}`;
    const preview = cutText(whole, PREVIEW);
    const pre = h("pre", { class: "payload", attrs: { "data-field": field } }, preview.length < whole.length ? `${preview}…` : whole);
    if (whole === "") pre.textContent = "(empty)";
    if (length <= PREVIEW) return pre;
    const status = h("span", null, `${fmt.count(preview.length)} of ${fmt.count(length)} characters shown`);
    const button = h("button", { attrs: { type: "button" } }, `Show all (${fmt.size(length)})`);
    const tools = h("div", { class: "payload-tools" }, button, status);
    button.addEventListener("click", () => {
      button.disabled = true;
      pre.classList.add("all");
      const cut = whole.length < length;
      if (cut && context.fetchText !== undefined && seq !== undefined) {
        status.textContent = "loading…";
        context.fetchText(seq, field).then(
          (full) => {
            pre.textContent = full;
            status.textContent = `all ${fmt.count(full.length)} characters`;
            button.remove();
          },
          (error: unknown) => {
            status.textContent = `could not load the whole text: ${error instanceof Error ? error.message : String(error)}`;
            button.disabled = false;
          },
        );
        return;
      }
      pre.textContent = whole;
      button.remove();
      status.textContent = cut
        ? `This file holds the first ${fmt.count(whole.length)} of ${fmt.count(length)} characters (to stay small); the whole text is in the run store: agentrx show <runId> --json, or agentrx ui.`
        : `all ${fmt.count(length)} characters`;
    });
    return h("div", null, pre, tools);
  }

  /**
   * The images of a text: a thumbnail for one the page embeds (click to see it larger), else a
   * placeholder with its type and size; never its base64. `[image N]` in the text marks its place.
   */
  function images(list: readonly TraceImage[] | undefined): HTMLElement | null {
    if (list === undefined || list.length === 0) return null;
    const strip = h("div", { class: "images" });
    list.forEach((image, index) => {
      const bytes = image.bytes;
      const size = bytes === undefined ? "" : ` · ${bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${Math.round(bytes / 1024)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`}`;
      const caption = h("figcaption", null, `image ${index + 1} · ${image.mime}${size}`);
      if (image.dataUrl !== undefined && image.dataUrl.startsWith("data:image/")) {
        const img = h("img", { attrs: { src: image.dataUrl, alt: `image ${index + 1} (${image.mime})`, title: "Click to enlarge" } });
        const figure = h("figure", { class: "thumb", attrs: { "data-image": String(index + 1) } }, img, caption);
        img.addEventListener("click", () => figure.classList.toggle("large"));
        strip.appendChild(figure);
        return;
      }
      const why = image.leftOut
        ? `not in the record: too large to keep${image.sha256 ? ` (sha256 ${cutText(image.sha256, 16)}…)` : ""}`
        : image.url !== undefined
          ? `by URL, not loaded: ${image.url}`
          : image.bytes !== undefined
            ? "not embedded in this page (too large, or not a PNG, JPEG, GIF or WebP)"
            : "no data recorded";
      strip.appendChild(h("figure", { class: "thumb placeholder", attrs: { "data-image": String(index + 1) } }, h("div", { class: "placeholder-box", attrs: { title: image.sha256 ? `sha256 ${image.sha256}` : why } }, why), caption));
    });
    return strip;
  }

  function kv(pairs: [string, DomChild | undefined][]): HTMLElement {
    const list = h("dl", { class: "kv" });
    for (const [key, value] of pairs) if (value !== undefined && value !== "") dom.append(list, [h("dt", null, key), h("dd", null, value)]);
    return list;
  }

  function usage(value: TraceUsage | undefined): string | undefined {
    if (value === undefined) return undefined;
    const parts = [`${fmt.count(value.input)} in`];
    if (value.cacheRead !== undefined) parts.push(`${fmt.count(value.cacheRead)} of them cached`);
    if (value.cacheCreation !== undefined) parts.push(`${fmt.count(value.cacheCreation)} written to the cache`);
    parts.push(`${fmt.count(value.output)} out`);
    if (value.reasoning !== undefined) parts.push(`${fmt.count(value.reasoning)} of them reasoning`);
    return `${fmt.count(value.total)} tokens (${parts.join(", ")})`;
  }

  /** The exact request of a model call (`recordPrompts`), collapsed: messages, tools, settings. */
  function requestSection(model: TraceModel, call: TraceModelCall, context: TraceDetailContext): DomChild[] {
    const request = traceRequestOf(model, call);
    if (request === undefined) return [];
    const tools = request.toolCount !== undefined ? `, ${request.toolCount} tool${request.toolCount === 1 ? "" : "s"}` : "";
    const body: DomChild[] = [];
    request.messages.forEach((message, index) => {
      body.push(h("div", { class: "message" }, h("div", { class: "role" }, message.role), text(message.content, call.seq, `request.messages.${index}.content`, context), images(message.images)));
      message.toolCalls?.forEach((toolCall, k) => {
        body.push(h("div", { class: "message" }, h("div", { class: "role" }, `tool call · ${toolCall.name}${toolCall.id ? ` · ${toolCall.id}` : ""}`), text(toolCall.args, call.seq, `request.messages.${index}.toolCalls.${k}.args`, context)));
      });
    });
    if (request.tools !== undefined) body.push(h("h3", null, "Tools"), text(request.tools, call.seq, "request.tools", context));
    if (request.settings !== undefined) body.push(h("h3", null, "Settings"), text(request.settings, call.seq, "request.settings", context));
    const details = h(
      "details",
      { class: "request", attrs: { "data-section": "request" } },
      h("summary", null, `Exact request: ${request.messages.length} message${request.messages.length === 1 ? "" : "s"}${tools}`),
      ...body,
    );
    return [h("h3", null, "Request"), details];
  }

  /**
   * A run's cost in dollars with the calls it leaves out (`$0.0213 + 2 unpriced`, see
   * docs/cost.md#calls-without-a-price), when it was priced (the executor's `prices`).
   */
  function costOf(value: TraceUsage | undefined): string | undefined {
    return fmt.costWithUnpriced(value?.cost === undefined ? undefined : fmt.usd(value.cost), value?.unpricedCalls);
  }

  /** A model call's cost in dollars, or `unpriced` when the executor's `prices` had none for its model. */
  function callCostOf(value: TraceUsage | undefined): string | undefined {
    if ((value?.unpricedCalls ?? 0) > 0) return "unpriced (the executor's prices have none for its model)";
    return value?.cost === undefined ? undefined : fmt.usd(value.cost);
  }

  function offset(_model: TraceModel, at: number | undefined): string | undefined {
    return at === undefined || origin === undefined ? undefined : `+${fmt.duration(at - origin)}`;
  }

  function json(value: unknown): string {
    return jsonText(value, 2);
  }

  function toolSection(model: TraceModel, row: TraceRow, tool: TraceToolCall, context: TraceDetailContext): DomChild[] {
    const withInput = row.kind === "tool";
    // The tool row's chips say what the layout knows (a pause, a missing result); "slowest",
    // "early" and "edited" are no outcome.
    const badges = (withInput ? row.badges : layout.toolState(tool).badges).filter((badge) => badge !== "slowest" && badge !== "early" && badge !== "edited");
    const metadata = tool.metadata ?? {};
    const error = typeof metadata["error"] === "string" ? metadata["error"] : undefined;
    // The retry policy's failed attempts (records written before `attemptErrors` kept the last one as `error`).
    const attemptErrors = Array.isArray(metadata["attemptErrors"]) ? metadata["attemptErrors"].filter((item): item is string => typeof item === "string") : [];
    const callFailed = tool.observation !== undefined && badges.includes("failed");
    const rest = Object.fromEntries(Object.entries(metadata).filter(([key]) => !["error", "attemptErrors", "attempts", "timedOut", "cached", "durationMs", "failed", "rejected"].includes(key)));
    const outcome = tool.observation === undefined ? undefined : outcomeNote(tool);
    return [
      kv([
        ["Tool", tool.tool],
        ["Tool call id", tool.toolCallId],
        ["Started", offset(model, tool.start ?? tool.actionAt)],
        ["Started early", tool.early === true ? "yes: while the model still streamed its answer (eagerTools)" : undefined],
        ["Edited", tool.askedInput !== undefined ? "yes: a person changed its input before it ran" : undefined],
        // A rejected call never ran: its recorded duration (0) is no running time.
        ["Duration", metadata["rejected"] === true ? "not run" : tool.durationMs !== undefined ? fmt.duration(tool.durationMs) : layout.isLive(model) ? "running…" : "–"],
        ["Outcome", badges.length > 0 ? badges.join(", ") : "ok"],
        ["Attempts", typeof metadata["attempts"] === "number" ? String(metadata["attempts"]) : undefined],
        ["Timed out", metadata["timedOut"] === true ? "yes (at least one attempt)" : undefined],
        ["Cached", typeof metadata["cached"] === "boolean" ? (metadata["cached"] ? "yes" : "no") : undefined],
        ["Policy time", typeof metadata["durationMs"] === "number" ? fmt.duration(metadata["durationMs"]) : undefined],
      ]),
      error !== undefined ? h("h3", null, callFailed || attemptErrors.length > 0 ? "Error" : "Error of a failed attempt") : null,
      error !== undefined ? h("pre", { class: "payload error-text" }, error) : null,
      attemptErrors.length > 0 ? h("h3", null, attemptErrors.length === 1 ? "Error of a failed attempt" : `Errors of the ${attemptErrors.length} failed attempts`) : null,
      attemptErrors.length > 0 ? h("pre", { class: "payload error-text" }, attemptErrors.join("\n")) : null,
      withInput ? h("h3", null, "Input") : null,
      withInput ? text(tool.input, tool.inputSeq, tool.inputField ?? "toolInput", context) : null,
      withInput ? images(tool.inputImages) : null,
      withInput && tool.askedInput !== undefined ? h("h3", null, "Input the agent asked for (edited before it ran)") : null,
      withInput && tool.askedInput !== undefined ? text(tool.askedInput, tool.askedInputSeq, "toolInput", context) : null,
      h("h3", null, "Observation"),
      outcome ?? null,
      tool.observation !== undefined ? text(tool.observation, tool.stepSeq, "observation", context) : h("p", { class: "muted" }, missingResult(model, tool)),
      images(tool.observationImages),
      Object.keys(rest).length > 0 ? h("h3", null, "Metadata") : null,
      Object.keys(rest).length > 0 ? h("pre", { class: "payload" }, json(rest)) : null,
      tool.log ? h("h3", null, "Agent log") : null,
      tool.log ? text(tool.log, tool.actionSeq, "log", context) : null,
    ];
  }

  /** What the detail says above the observation of a call that failed or was rejected: the observation is no tool result. */
  function outcomeNote(tool: TraceToolCall): HTMLElement | undefined {
    if (tool.metadata?.["rejected"] === true) return h("p", { class: "muted", attrs: { "data-outcome": "rejected" } }, "Rejected: a person rejected this call, so the tool did not run. The observation is the rejection the agent was shown.");
    if (!layout.isFailed(tool)) return undefined;
    const why = tool.tool === "_Exception" ? "the agent's output could not be parsed. The observation is what the agent was told about it." : "the tool threw (the observation is the error, as handleToolRuntimeErrors put it), its input did not fit its schema, or no tool has this name. The observation is the error the agent was shown, and the run went on.";
    return h("p", { class: "error-text", attrs: { "data-outcome": "failed" } }, `This call failed: ${why}`);
  }

  function missingResult(model: TraceModel, tool: TraceToolCall): string {
    if (layout.isLive(model)) return "Still running.";
    if (model.run.status === "interrupted" && tool.pausedFor === "in_doubt") {
      return "In doubt: the call started before the run stopped (a crash or a cancellation) and no result was recorded, so it may have run. The run waits for a person's decision: approve runs it again (with the same idempotency key), reject skips it, and a result decision supplies what it returned.";
    }
    if (model.run.status === "interrupted") return "Not run: the run paused for a person's approval; resume it with decisions.";
    if (model.run.stalled === true) return "No result recorded: the run's process stopped (its lease lapsed) before the tool returned.";
    return "No result recorded: the run ended before the tool returned.";
  }

  /** The conversation a model call was sent, rebuilt from the record (the prompt's own messages are not recorded). */
  function sentMessages(model: TraceModel, n: number, context: TraceDetailContext): DomChild[] {
    const out: DomChild[] = [h("div", { class: "message" }, h("div", { class: "role" }, "inputs"), text(model.inputs, model.inputsSeq, "inputs", context), images(model.inputImages))];
    for (const iteration of model.iterations) {
      if (iteration.n >= n) break;
      const reply = iteration.modelCalls[iteration.modelCalls.length - 1]?.reply;
      const calls = iteration.tools.filter((tool) => tool.index !== null);
      if (calls.length > 0) {
        const asked = calls.map((tool) => `${tool.tool}(${fmt.oneLine(layout.textOf(tool.input), 200)})`).join("\n");
        out.push(h("div", { class: "message" }, h("div", { class: "role" }, `ai · iteration ${iteration.n + 1}`), h("pre", { class: "payload" }, `${reply ? fmt.oneLine(layout.textOf(reply.content), 300) : ""}${reply && layout.textOf(reply.content) ? "\n" : ""}${asked}`)));
      }
      for (const tool of iteration.tools) {
        out.push(h("div", { class: "message" }, h("div", { class: "role" }, `tool · ${tool.tool}`), text(tool.observation, tool.stepSeq, "observation", context), images(tool.observationImages)));
      }
    }
    return out;
  }

  /** The detail's "First token": when it came, or why the record has none. */
  function firstTokenText(model: TraceModel, row: TraceRow): string {
    const call = row.modelCall as TraceModel["iterations"][number]["modelCalls"][number];
    const ttft = layout.firstToken(model, call);
    if (ttft.known) return `after ${ttft.text}`;
    if (row.state === "running") return call.tokenChars > 0 ? "–" : "– (no token yet)";
    if (ttft.text === "not streamed") return "– (not streamed: nothing watched the model's tokens, as in an invoke run)";
    if (ttft.text === "no text streamed") return "– (no text streamed: the reply was tool calls only)";
    if (ttft.text === "tokens not recorded") return "– (a sub-run's streamed tokens are not in the record)";
    return "–";
  }

  /** What the detail says of a model call whose reply is not in the record (yet). */
  function pendingReply(row: TraceRow): string {
    if (row.state !== "running") return "Not recorded.";
    const chars = row.modelCall?.tokenChars ?? 0;
    return chars > 0 ? `Streaming: ${fmt.count(chars)} characters so far.` : "Waiting for the reply.";
  }

  /** The run a fork was forked from: in the ui, a link to its page. */
  function sourceOf(runId: string, context: TraceDetailContext): DomChild {
    return context.mode === "ui" ? h("a", { attrs: { href: runPagePath(runId), "data-fork-source": "" } }, runId) : runId;
  }

  /**
   * On a row of a fork's copied prefix (a copied iteration, its model and tool calls): the run that
   * made it, which this run did not run again. Undefined on the run's own rows.
   */
  function copiedFrom(model: TraceModel, row: TraceRow, context: TraceDetailContext): DomChild | undefined {
    if (row.trace !== undefined || row.iteration === undefined || row.iteration.n >= layout.copiedIterations(model)) return undefined;
    const forkOf = model.segments.find((segment) => segment.forkOf !== undefined)?.forkOf;
    if (forkOf === undefined) return undefined;
    return h("span", { attrs: { "data-copied-from": "" } }, sourceOf(forkOf.runId, context), " (this run's record copies it; it was not run again here, and its times are that run's)");
  }

  function render(container: HTMLElement, row: TraceRow, top: TraceModel, context: TraceDetailContext): void {
    dom.clear(container);
    origin = top.segments[0]?.start;
    prefix = row.trace?.fieldPrefix ?? "";
    const model = row.trace ?? top; // a sub-run's row shows the sub-run's record
    const title = (kind: string, name: string) => h("h2", null, h("span", { class: "muted" }, `${kind} `), name);
    const parts: DomChild[] = [];
    if (row.kind === "run") {
      // A fork's own part starts with `resumed: true` too: it is not a resume.
      const resumes = model.segments.filter((segment) => segment.resumed && segment.forkOf === undefined).length;
      const forkOf = model.segments.find((segment) => segment.forkOf !== undefined)?.forkOf;
      // A fork's usage is its own; its copied prefix's was spent by the run it was forked from.
      const { own, copied } = layout.usageOf(model);
      const ownUsage = own ?? model.output?.usage;
      parts.push(
        title("run", model.run.runId),
        kv([
          ["Status", model.run.status],
          ["Stop reason", model.output?.stopReason ?? model.run.stopReason],
          ["Thread", model.run.threadId],
          ["Started", fmt.time(layout.startedAt(model))],
          ["Last write", fmt.time(model.run.updatedAt)],
          ["Segments", resumes > 0 ? `${model.segments.length} (resumed ${resumes}×)` : undefined],
          ["Forked from", forkOf === undefined ? undefined : h("span", null, sourceOf(forkOf.runId, context), forkOf.iteration === 0 ? ", at its start" : `, after iteration ${forkOf.iteration}`)],
          ["Usage", usage(ownUsage)],
          ["Cost", costOf(ownUsage ?? model.usage)],
          ["Copied usage", copied === undefined ? undefined : `${usage(copied)}${costOf(copied) !== undefined ? `, ${costOf(copied)}` : ""}: the copied prefix's, spent by ${forkOf?.runId ?? "the run it was forked from"}`],
          ["Events", fmt.count(model.lastSeq)],
        ]),
        model.run.error ? h("h3", null, model.run.status === "cancelled" ? "Cancelled" : "Error") : null,
        model.run.error ? h("pre", { class: model.run.status === "cancelled" ? "payload" : "payload error-text" }, model.run.error) : null,
        h("h3", null, "Inputs"),
        text(model.inputs, model.inputsSeq, "inputs", context),
        images(model.inputImages),
        model.output ? h("h3", null, "Answer") : null,
        model.output ? text(model.output.text, model.output.seq, "output", context) : null,
      );
    } else if (row.kind === "subrun") {
      parts.push(
        title("sub-run", (model.path ?? []).join(" › ")),
        h(
          "p",
          { class: "hint" },
          model.iterations.some((iteration) => iteration.modelCalls.length > 0)
            ? "An executor called as a tool (asTool, a handoff): its events and model calls are in this run's record (its streamed tokens are not), under the tool call that started it."
            : "An executor called as a tool (asTool, a handoff): its events are in this run's record, under the tool call that started it. Its model calls are not (the calling run did not record model calls, or its record is older than that).",
        ),
        kv([
          ["Run id", model.run.runId],
          ["Started", offset(model, model.segments[0]?.start)],
          ["Duration", row.start !== undefined && row.end !== undefined ? fmt.duration(row.end - row.start) : undefined],
          ["Stop reason", model.output?.stopReason],
          ["Iterations", fmt.count(model.iterations.length)],
          ["Usage", usage(model.output?.usage ?? (model.usage.total > 0 ? model.usage : undefined))],
        ]),
        h("h3", null, "Inputs"),
        text(model.inputs, model.inputsSeq, "inputs", context),
        model.output ? h("h3", null, "Answer") : null,
        model.output ? text(model.output.text, model.output.seq, "output", context) : null,
      );
    } else if (row.kind === "iteration") {
      parts.push(
        title("iteration", String((row.iteration?.n ?? 0) + 1)),
        kv([["Copied from", copiedFrom(model, row, context)], ["Started", offset(model, row.start)], ["Duration", row.start !== undefined && row.end !== undefined ? fmt.duration(row.end - row.start) : undefined], ["Contains", row.note]]),
      );
    } else if (row.kind === "model" && row.modelCall !== undefined) {
      const call = row.modelCall;
      const reply = call.reply;
      parts.push(
        title("model call", call.call !== undefined ? `#${call.call + 1}` : `of iteration ${call.iteration + 1}`),
        kv([
          ["Iteration", String(call.iteration + 1)],
          ["Copied from", copiedFrom(model, row, context)],
          ["Started", offset(model, call.start)],
          ["Duration", row.state === "running" ? "running…" : fmt.duration(call.end - call.start)],
          ["First token", firstTokenText(model, row)],
          ["Streamed", call.tokenChars > 0 ? `${fmt.count(call.tokenChars)} characters` : undefined],
          ["Model", call.modelName],
          ["Usage", usage(call.usage)],
          ["Cost", callCostOf(call.usage)],
          ["Sent", call.inputCount !== undefined ? `${call.inputCount} messages (digest ${call.inputDigest})` : undefined],
        ]),
        row.state === "inferred"
          ? h("p", { class: "hint" }, row.trace !== undefined ? "This record does not hold the sub-run's model calls: the bar spans from the previous step to the agent's decision." : "This run did not record its model calls (recordModelCalls: false): the bar spans from the previous step to the agent's decision.")
          : null,
        reply?.reasoning !== undefined ? h("h3", null, "Reasoning") : null,
        reply?.reasoning !== undefined ? text(reply.reasoning, call.seq, "reply.reasoning", context) : null,
        h("h3", null, "Received"),
        reply ? text(reply.content, call.seq, "reply.content", context) : h("p", { class: "muted" }, pendingReply(row)),
        images(reply?.images),
        !reply && call.liveText !== undefined ? h("pre", { class: "payload streaming", attrs: { "data-field": "live-text" } }, call.liveText.length > PREVIEW ? `…${cutTextEnd(call.liveText, PREVIEW)}` : call.liveText) : null,
      );
      reply?.toolCalls?.forEach((toolCall, index) => {
        parts.push(h("div", { class: "message" }, h("div", { class: "role" }, `tool call · ${toolCall.name}${toolCall.id ? ` · ${toolCall.id}` : ""}`), text(toolCall.args, call.seq, `reply.toolCalls.${index}.args`, context)));
      });
      if (call.request !== undefined || call.requestRef !== undefined) parts.push(...requestSection(model, call, context));
      else {
        parts.push(
          h("h3", null, "Sent"),
          h(
            "p",
            { class: "hint" },
            row.state === "running"
              ? "As far as the record keeps it so far: the run's inputs and the earlier turns. A run recorded with recordPrompts (on for stream()) shows the exact request once the call ends."
              : "As far as the record keeps it: the run's inputs and the earlier turns. The prompt's own messages (such as a system message) are not recorded: a run recorded with recordPrompts (on for stream()) keeps the exact request.",
          ),
          ...sentMessages(model, call.iteration, context),
        );
      }
    } else if ((row.kind === "tool" || row.kind === "step") && row.toolCall !== undefined) {
      const copied = copiedFrom(model, row, context);
      parts.push(title(row.kind === "tool" ? "tool call" : "result of", row.toolCall.tool), copied === undefined ? null : kv([["Copied from", copied]]), ...toolSection(model, row, row.toolCall, context));
    } else if (row.kind === "answer" && model.output !== undefined) {
      parts.push(
        title("answer", model.output.stopReason),
        kv([["At", offset(model, model.output.at)], ["Stop reason", model.output.stopReason], ["Stopped by", model.output.stoppedBy], ["Usage", usage(model.output.usage)]]),
        h("h3", null, "Output"),
        text(model.output.text, model.output.seq, "output", context),
      );
    } else if (row.kind === "segment" && model.segments[row.item ?? -1]?.forkOf !== undefined) {
      const fork = model.segments[row.item ?? -1]?.forkOf as { runId: string; iteration: number };
      // In the ui, the run it was forked from is a link to its page.
      const source = sourceOf(fork.runId, context);
      parts.push(
        title("forked", ""),
        h("p", { class: "hint" }, "This run is a fork: its record begins with a copy of the run it was forked from, up to this point. The copied iterations were not run again; their times are that run's. From here on, the run is its own."),
        kv([["At", fmt.time(row.at ?? 0)], ["Forked from", source], ["After iteration", String(fork.iteration)]]),
      );
    } else if (row.kind === "segment") {
      parts.push(title("resumed", ""), kv([["At", fmt.time(row.at ?? 0)], ["Pause", row.note]]));
    } else if (row.kind === "event") {
      const other = model.others[row.item ?? -1];
      parts.push(title("event", row.label), kv([["At", offset(model, other?.at)], ["Seq", other ? String(other.seq) : undefined]]));
      if (other?.error) parts.push(h("h3", null, "Could not be read"), h("pre", { class: "payload error-text" }, other.error));
      if (other?.note !== undefined) parts.push(h("p", { class: "hint" }, other.note));
      if (other?.summary !== undefined) parts.push(h("h3", null, other.name === "message" ? "Message" : "Data"), text(other.summary, other.seq, "summary", context), images(other.images));
    }
    dom.append(container, parts);
  }

  return { render };
}
