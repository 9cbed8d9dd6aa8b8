// Runs in the page: bundled into the page's script at build time (scripts/build-page-scripts.mjs).
import type { TraceActions, TracePendingCall } from "../trace-data";
import type { DomRuntime } from "./dom-runtime";
import { runPagePath } from "../run-route";
import { cutText } from "../cut-text";

/** What an action asks the server (the JSON body of `POST /api/runs/<runId>/actions`). */
export type TraceActionBody = Record<string, unknown> & { action: string };

/** Sends an action; resolves with the run it started (`runId`), rejects with the server's error. */
export type PostAction = (body: TraceActionBody) => Promise<{ runId?: string }>;

/** The page's action bar. */
export type TraceActionsRuntime = ReturnType<typeof traceActionsRuntime>;

/**
 * The actions bar of a run's page in a `ui` started with an executor: approve, reject or edit each
 * paused call (another agent's call, a `handoff`'s or `asTool`'s, says whose, linking to that
 * agent's run; that run's own page links back to the run whose page answers it), resume a
 * cancelled or crashed run, cancel a run the server runs, fork from an iteration. After an action
 * the page reloads (the run then follows live), or opens the fork.
 *
 * @internal
 */
export function traceActionsRuntime(dom: DomRuntime) {
  const { h } = dom;

  /** `fetch` of an action, with the page's token. */
  function poster(runPath: string, token: string): PostAction {
    return async (body) => {
      const response = await fetch(`${runPath}/actions`, { method: "POST", headers: { "content-type": "application/json", "x-agentrx-token": token }, body: JSON.stringify(body) });
      const answer = (await response.json().catch(() => ({}))) as { runId?: string; error?: string };
      if (!response.ok) throw new Error(answer.error ?? `HTTP ${response.status}`);
      return answer;
    };
  }

  /** Where the page goes after an action: the fork's page, or this page again. */
  function after(action: string, runId: string | undefined): void {
    if (action === "fork" && runId !== undefined) location.assign(runPagePath(runId));
    else location.reload();
  }

  function render(actions: TraceActions, iterations: number, post: PostAction): HTMLElement {
    const status = h("span", { class: "muted", attrs: { role: "status", "data-field": "action-status" } });
    const act = async (button: HTMLButtonElement, body: TraceActionBody) => {
      for (const other of Array.from(bar.querySelectorAll("button"))) other.disabled = true;
      status.textContent = `${button.textContent ?? body.action}…`;
      try {
        after(body.action, (await post(body)).runId);
      } catch (error) {
        status.textContent = `${body.action} failed: ${error instanceof Error ? error.message : String(error)}`;
        status.classList.add("error-text");
        for (const other of Array.from(bar.querySelectorAll("button"))) other.disabled = false;
      }
    };
    const button = (label: string, name: string, body: () => TraceActionBody | undefined, extra = "") => {
      const element = h("button", { class: extra, attrs: { type: "button", "data-action": name } }, label) as HTMLButtonElement;
      element.addEventListener("click", () => {
        const request = body();
        if (request !== undefined) void act(element, request);
      });
      return element;
    };
    const bar = h("div", { class: "actions", attrs: { "data-fact": "actions" } });
    if (actions.pausedIn !== undefined) dom.append(bar, [pausedInLine(actions.pausedIn)]);
    for (const call of actions.pending) dom.append(bar, [pendingRow(call, button, status)]);
    const line = h("div", { class: "action-line" });
    if (actions.resume) line.appendChild(button("Resume the run", "resume", () => ({ action: "resume" }), "primary"));
    if (actions.cancel) line.appendChild(button("Cancel the run", "cancel", () => ({ action: "cancel" }), "danger"));
    if (actions.fork) {
      const at = h("select", { attrs: { "aria-label": "Fork after iteration", "data-field": "fork-at" } }) as HTMLSelectElement;
      for (let n = iterations; n >= 0; n--) at.appendChild(h("option", { attrs: { value: String(n) } }, n === 0 ? "from the start" : `after iteration ${n}`));
      line.appendChild(h("span", { class: "fork" }, button("Fork", "fork", () => ({ action: "fork", at: Number(at.value) })), at));
    }
    dom.append(bar, [line, status]);
    return bar;
  }

  function pendingRow(call: TracePendingCall, button: (label: string, name: string, body: () => TraceActionBody | undefined, extra?: string) => HTMLButtonElement, status: HTMLElement): HTMLElement {
    const args = h("textarea", { class: "edit-args", attrs: { "aria-label": `New arguments of ${call.tool}`, rows: "3", spellcheck: "false", "data-field": "edit-args" } }) as HTMLTextAreaElement;
    args.value = JSON.stringify(call.toolInput, null, 2) ?? "";
    args.hidden = true;
    const reason = h("input", { attrs: { type: "text", placeholder: "why (optional)", "aria-label": "Why it is rejected", "data-field": "reject-reason" } }) as HTMLInputElement;
    const edit = button("Edit…", "edit", () => {
      if (args.hidden) {
        args.hidden = false;
        edit.textContent = "Run with these arguments";
        return undefined;
      }
      try {
        return { action: "edit", interruptId: call.id, toolInput: JSON.parse(args.value) as unknown };
      } catch (error) {
        status.textContent = `The arguments are not JSON: ${error instanceof Error ? error.message : String(error)}`;
        return undefined;
      }
    });
    const waiting = call.reason === "in_doubt" ? "In doubt" : "Waiting for approval";
    const { subRun } = call;
    return h(
      "div",
      {
        class: "pending",
        // Named for a screen reader as it is read: which call, and whose (another agent's call says so).
        attrs: { "data-interrupt": call.id, role: "group", "aria-label": `${waiting}: ${call.tool}${subRun === undefined ? "" : `, asked by ${subRun.tool}`}` },
      },
      h("strong", null, waiting),
      h("code", null, `${call.tool}(${oneLine(JSON.stringify(call.toolInput) ?? "")})`),
      subRun === undefined ? null : askedBy(subRun),
      button("Approve", "approve", () => ({ action: "approve", interruptId: call.id }), "primary"),
      button("Reject", "reject", () => ({ action: "reject", interruptId: call.id, ...(reason.value ? { message: reason.value } : {}) }), "danger"),
      reason,
      edit,
      args,
    );
  }

  /**
   * Whose call another agent's call is: the tool of this run that ran that agent, and that agent's
   * run, a link to its page when the `ui`'s store holds it (the other agent may record its runs in
   * a store of its own). E.g. "asked by transfer_to_billing (run handoff:r1:0:call_1)".
   */
  function askedBy(subRun: NonNullable<TracePendingCall["subRun"]>): HTMLElement {
    const run = subRun.inStore ? h("a", { attrs: { href: runPagePath(subRun.runId), "data-sub-run": "" } }, subRun.runId) : h("code", null, subRun.runId);
    return h(
      "span",
      { class: "asked-by", attrs: { "data-field": "asked-by" } },
      "asked by ",
      h("code", null, subRun.tool),
      " (run ",
      run,
      subRun.inStore ? ")" : ", recorded in that agent's store, not this one)",
    );
  }

  /** Another agent's paused run: its calls are answered on its calling run's page, linked. */
  function pausedInLine(callerId: string): HTMLElement {
    return h(
      "p",
      { class: "paused-in", attrs: { "data-field": "paused-in" } },
      "Another agent's run, paused inside a call of run ",
      h("a", { attrs: { href: runPagePath(callerId), "data-paused-in": "" } }, callerId),
      ": approve, reject or edit its calls there (resuming that run resumes this one, with its own agent).",
    );
  }

  function oneLine(text: string): string {
    return text.length <= 120 ? text : `${cutText(text, 119)}…`;
  }

  return { render, poster };
}
