// Runs in the page: bundled into the page's script at build time (scripts/build-page-scripts.mjs).
import type { DiffPair, DiffToolCall, IterationDiff, RunDiff } from "@agentrx/runs";
import type { DomChild, DomRuntime } from "../trace-page/page/dom-runtime";
import type { FormatRuntime } from "../trace-page/page/format-runtime";
import type { DiffPageData, DiffPrompt, DiffPromptMessage } from "./diff-page-data";
import { jsonText as json } from "../trace-page/json-text";
import { runPagePath } from "../trace-page/run-route";

type RunUsage = NonNullable<RunDiff["usage"]["a"]>;

/**
 * The diff page: two runs side by side (inputs, each iteration's prompt, text, tool calls with
 * observations and usage, answers, usage and cost). What both sides agree on is shown once; the
 * leading iterations both runs share (a fork's prefix) are collapsed; the first divergence is
 * marked and scrolled to.
 *
 * @internal
 */
export function diffPageMain(dom: DomRuntime, fmt: FormatRuntime, data: DiffPageData, root: HTMLElement): void {
  const { h } = dom;
  const { diff } = data;
  const first = diff.firstDivergence;
  const prompts = new Map<number, DiffPrompt>(data.prompts.map((prompt) => [prompt.iteration, prompt]));
  let target: HTMLElement | undefined;

  /** Marks `element` as the first divergence (the page scrolls to it). */
  const markFirst = (element: HTMLElement): HTMLElement => {
    element.classList.add("first");
    element.setAttribute("data-first-divergence", "");
    element.insertBefore(h("span", { class: "first-tag" }, "first divergence"), element.firstChild);
    target = element;
    return element;
  };

  const runLink = (run: RunDiff["a"]): HTMLElement =>
    data.mode === "ui" ? h("a", { class: "mono", attrs: { href: runPagePath(run.runId) } }, run.runId) : h("code", null, run.runId);

  const runCard = (letter: "a" | "b", run: RunDiff["a"]): HTMLElement => {
    const forked = diff.relation?.fork === letter ? h("div", { class: "muted" }, `fork of ${letter === "a" ? "b" : "a"} at iteration ${diff.relation.iteration}`) : null;
    const cost = data.costText[letter];
    return h(
      "div",
      { class: `run-card side-${letter}`, attrs: { "data-side": letter } },
      h("div", { class: "run-name" }, h("span", { class: "letter" }, letter), runLink(run), h("span", { class: `status ${run.status}` }, run.status)),
      forked,
      h(
        "div",
        { class: "muted" },
        [run.stopReason ? `stop: ${run.stopReason}` : undefined, run.usage ? `${fmt.count(run.usage.total_tokens)} tokens` : undefined, cost, `started ${fmt.time(run.createdAt)}`]
          .filter((part) => part !== undefined)
          .join(" · "),
      ),
    );
  };

  const banner = first
    ? h(
        "div",
        { class: "diff-banner diverges", attrs: { role: "status" } },
        h("strong", null, "First divergence: "),
        first.description,
        " ",
        h("button", { attrs: { type: "button", "data-action": "goto-divergence" }, on: { click: () => reveal() } }, "Show"),
      )
    : h("div", { class: "diff-banner same", attrs: { role: "status" } }, h("strong", null, "No divergence: "), "same inputs, iterations and answer.");

  const body = h("main", { class: "diff-body" });
  dom.append(root, [
    h(
      "header",
      { class: "top" },
      h("h1", { class: "title" }, h("span", null, "Compare runs"), h("span", { class: "muted" }, data.source), data.mode === "ui" ? h("a", { attrs: { href: "/" } }, "All runs") : null),
      h("div", { class: "run-cards" }, runCard("a", diff.a), runCard("b", diff.b)),
      banner,
    ),
    body,
  ]);

  // Inputs.
  const inputs = section("Inputs", "inputs");
  inputs.appendChild(row("inputs", diff.inputs, (value) => pre(json(value, 2))));
  if (first?.field === "inputs") markFirst(inputs);
  body.appendChild(inputs);

  // The iterations: the leading ones both runs share are collapsed.
  const shared = first?.field === "inputs" ? 0 : leadingSame(diff.iterations);
  if (shared > 0) {
    const fork = diff.relation ? `; ${diff.relation.fork} is a fork of ${diff.relation.fork === "a" ? "b" : "a"} at iteration ${diff.relation.iteration}` : "";
    const details = h(
      "details",
      { class: "shared-prefix" },
      h("summary", null, `Shared prefix: iteration${shared === 1 ? " 0" : `s 0–${shared - 1}`}, the same in both runs${fork}`),
    );
    for (const iteration of diff.iterations.slice(0, shared)) details.appendChild(iterationSection(iteration));
    body.appendChild(details);
  }
  for (const iteration of diff.iterations.slice(shared)) body.appendChild(iterationSection(iteration));

  // The end.
  const end = section("Answer", "answer");
  end.appendChild(row("answer", diff.answer, (value) => (value === undefined ? h("span", { class: "muted" }, "(none)") : pre(value))));
  if (first?.field === "answer") markFirst(end.querySelector('[data-field="answer"]') as HTMLElement);
  end.appendChild(row("stop", diff.stopReason, (value) => value ?? "–", true));
  end.appendChild(row("usage", diff.usage, (value) => usageText(value), true));
  end.appendChild(row("cost", { a: data.costText.a, b: data.costText.b, same: data.costText.a === data.costText.b }, (value) => value ?? "–", true));
  body.appendChild(end);

  function iterationSection(iteration: IterationDiff): HTMLElement {
    const n = iteration.iteration;
    const element = section(`Iteration ${n}`, undefined, iteration.same ? "same" : "differs");
    element.setAttribute("data-iteration", String(n));
    const missing = (side: "a" | "b") => iteration.prompt[side] === undefined && iteration.reply[side] === undefined && iteration.toolCalls[side].length === 0 && iteration.usage[side] === undefined;
    if (missing("a") || missing("b")) element.appendChild(h("p", { class: "muted" }, `Run ${missing("a") ? "a" : "b"} has no iteration ${n}.`));
    if (iteration.promptIds !== undefined) element.appendChild(promptIdsRow(iteration.promptIds, iteration.prompt));
    else if (iteration.prompt.a !== undefined || iteration.prompt.b !== undefined) {
      element.appendChild(row("prompt", iteration.prompt, (value) => (value === undefined ? h("span", { class: "muted" }, "not recorded") : h("code", null, `digest ${value}`))));
    }
    const prompt = prompts.get(n);
    if (prompt !== undefined && (iteration.prompt.a !== undefined || iteration.prompt.b !== undefined)) element.appendChild(promptDetails(prompt, iteration.promptIds));
    if (iteration.reply.a !== undefined || iteration.reply.b !== undefined) element.appendChild(row("text", iteration.reply, (value) => (value === undefined ? "–" : pre(value)), false, "reply"));
    element.appendChild(row("tools", iteration.toolCalls, (calls, other) => toolCalls(calls, other), false, "toolCalls"));
    if (iteration.usage.a !== undefined || iteration.usage.b !== undefined) element.appendChild(row("usage", iteration.usage, (value) => usageText(value), true));
    if (first !== undefined && first.iteration === n) {
      if (first.field === "iterations") markFirst(element);
      else {
        const field = element.querySelector(`[data-field="${first.field}"]`);
        if (field instanceof HTMLElement) markFirst(field);
      }
    }
    return element;
  }

  function section(title: string, field?: string, badge?: "same" | "differs"): HTMLElement {
    return h(
      "section",
      { class: "diff-section", attrs: field ? { "data-section": field } : {} },
      h("h2", null, title, badge ? h("span", { class: `badge ${badge}` }, badge === "same" ? "same" : "differs") : null),
    );
  }

  /** A label and the two sides, or one cell when they agree; `quiet`: a difference is not highlighted. */
  function row<T>(label: string, value: DiffPair<T>, show: (value: T, other: T) => DomChild, quiet = false, field = label): HTMLElement {
    const cells: DomChild[] = value.same
      ? [h("div", { class: "cell both" }, show(value.a, value.b))]
      : [h("div", { class: `cell side-a${quiet ? "" : " differs"}`, attrs: { "data-side": "a" } }, show(value.a, value.b)), h("div", { class: `cell side-b${quiet ? "" : " differs"}`, attrs: { "data-side": "b" } }, show(value.b, value.a))];
    return h("div", { class: `diff-row${value.same ? " same" : ""}`, attrs: { "data-field": field } }, h("div", { class: "label" }, label), ...cells);
  }

  function toolCalls(calls: DiffToolCall[], other: DiffToolCall[]): DomChild {
    if (calls.length === 0) return h("span", { class: "muted" }, "(no tool calls)");
    return h(
      "ol",
      { class: "calls" },
      ...calls.map((call, index) =>
        h(
          "li",
          { class: json(call) === json(other[index]) ? "call" : "call differs" },
          h("code", null, `${call.tool}(${fmt.oneLine(json(call.input), 200)})`),
          call.observation === undefined ? h("div", { class: "muted" }, "→ (no result)") : pre(`→ ${call.observation}`),
        ),
      ),
    );
  }

  /**
   * The prompt line of an iteration whose digests differ in tool-call ids only (`promptIds`): the
   * prompts are the same but for those ids, or were not compared; never one side's digest as if
   * both were that.
   */
  function promptIdsRow(promptIds: NonNullable<IterationDiff["promptIds"]>, prompt: DiffPair<string | undefined>): HTMLElement {
    const digests = h("span", { class: "muted" }, ` (digests ${prompt.a ?? "–"} and ${prompt.b ?? "–"})`);
    const text =
      promptIds === "ignored"
        ? h("span", null, "the same but for tool-call ids", digests)
        : h("span", null, "not compared: the digests hash tool-call ids, which differ between the runs (recordPrompts compares the messages)", digests);
    return h("div", { class: "diff-row same", attrs: { "data-field": "prompt", "data-prompt-ids": promptIds } }, h("div", { class: "label" }, "prompt"), h("div", { class: "cell both" }, text));
  }

  function promptDetails(prompt: DiffPrompt, promptIds: IterationDiff["promptIds"]): HTMLElement {
    const list = (messages: DiffPromptMessage[], other: DiffPromptMessage[]) =>
      h(
        "ol",
        { class: "messages" },
        ...messages.map((message, index) =>
          h("li", { class: prompt.same || json(message) === json(other[index]) ? "message" : "message differs" }, h("span", { class: "role" }, message.role), pre(message.text)),
        ),
      );
    const cells = prompt.same
      ? [h("div", { class: "cell both" }, list(prompt.a, prompt.a))]
      : [h("div", { class: "cell side-a", attrs: { "data-side": "a" } }, list(prompt.a, prompt.b)), h("div", { class: "cell side-b", attrs: { "data-side": "b" } }, list(prompt.b, prompt.a))];
    return h(
      "details",
      { class: "recorded-prompt", attrs: { "data-field": "recorded-prompt" } },
      h("summary", null, `Recorded prompt: ${prompt.a.length} message${prompt.a.length === 1 ? "" : "s"} in a, ${prompt.b.length} in b${prompt.same ? " (the same)" : promptIds === "ignored" ? " (the same but for tool-call ids)" : ""}`),
      h("div", { class: "diff-row" }, h("div", { class: "label" }, ""), ...cells),
    );
  }

  function usageText(usage: RunUsage | undefined): string {
    if (usage === undefined) return "–";
    return `${fmt.count(usage.total_tokens)} tokens (${fmt.count(usage.input_tokens)} in, ${fmt.count(usage.output_tokens)} out)`;
  }

  function pre(text: string): HTMLElement {
    return h("pre", { class: "text" }, text);
  }

  function reveal(): void {
    if (target === undefined) return;
    target.scrollIntoView({ block: "center" });
    target.classList.remove("flash");
    void target.offsetWidth; // restart the animation
    target.classList.add("flash");
  }

  if (target !== undefined) requestAnimationFrame(() => reveal());
}

/** How many leading iterations are the same on both sides. */
function leadingSame(iterations: IterationDiff[]): number {
  let count = 0;
  while (count < iterations.length && (iterations[count] as IterationDiff).same) count++;
  return count;
}
