import { AbortError, getToolApproval, linkAbortSignal } from "@agentrx/core";
import type { AgentAction } from "@agentrx/core";
import type { EarlyCall } from "./tool-runner";
import type { ResolvedOptions } from "./validate-options";

/**
 * What eager dispatch needs of its run, and nothing more: the options that say which tools may
 * start early, the signal early calls are linked to, whether the run was interrupted, and how a
 * tool call starts.
 *
 * @internal
 */
export interface EagerDispatchContext {
  readonly options: Pick<ResolvedOptions, "toolsByName" | "eager" | "approvalOption">;
  /** The signal the run's tool calls listen on: early calls are linked to it. */
  readonly signal: AbortSignal;
  /** Whether the run was halted, cancelled or failed: nothing more starts then. */
  readonly interrupted: boolean;
  /** Starts a tool call under `signal`, before the agent has returned. */
  startCall(action: AgentAction, signal: AbortSignal): EarlyCall;
}

/** An early call while it waits for the model's answer: the model call that streamed it, and how to unlink it. */
type PendingEarlyCall = EarlyCall & { modelRun: string; unlink: () => void };

/**
 * Eager tool dispatch (the `eagerTools` option): starts each tool call the model streams as soon
 * as it is complete, and gives the turn the early calls its actions keep; the others are aborted.
 *
 * @internal
 */
export class EagerDispatch {
  /** Tool calls started while the model streamed, by call key, with their model call (made on the first one). */
  private early: Map<string, PendingEarlyCall> | undefined;
  /** The current turn's early starts, by action index. */
  private turnEarly: (EarlyCall | undefined)[] | undefined;

  constructor(private readonly run: EagerDispatchContext) {}

  /** Starts a streamed tool call at once (eager dispatch), when its tool may start early. */
  start(modelRun: string, call: { id: string | undefined; name: string; args: string }): void {
    if (this.run.interrupted) return;
    const { options } = this.run;
    const tool = options.toolsByName.get(call.name);
    if (tool === undefined || !options.eager?.(tool) || options.approvalOption || getToolApproval(tool) !== undefined) return;
    let args: unknown;
    try {
      args = call.args.trim() === "" ? {} : JSON.parse(call.args);
    } catch {
      return; // not valid JSON: the agent's parser reports it, and nothing starts early
    }
    if (typeof args !== "object" || args === null || Array.isArray(args)) return;
    const key = call.id ?? `${call.name}#${JSON.stringify(args)}`;
    const early = (this.early ??= new Map());
    if (early.has(key)) return;
    const action = { tool: call.name, toolInput: args as Record<string, unknown>, log: "", ...(call.id ? { toolCallId: call.id } : {}) };
    const controller = new AbortController();
    const unlink = linkAbortSignal(this.run.signal, controller);
    const started = this.run.startCall(action, controller.signal);
    started.controller = controller;
    started.result.catch(noop); // awaited by the turn if it keeps the call; dropped otherwise
    early.set(key, { ...started, modelRun, unlink });
  }

  /** A model call failed: its early calls stop. */
  dropModelCall(modelRun: string): void {
    if (this.early === undefined) return;
    for (const [key, entry] of this.early) {
      if (entry.modelRun === modelRun) this.drop(key, entry);
    }
  }

  /** Aborts and forgets every early call not taken by a turn. */
  dropAll(): void {
    if (this.early === undefined) return;
    for (const [key, entry] of this.early) this.drop(key, entry);
  }

  /** A new agent call begins: the previous turn's early starts are forgotten. */
  resetTurn(): void {
    this.turnEarly = undefined;
  }

  /**
   * A turn started with `actions`: it keeps the early calls its actions match (same call id, tool
   * and input), by action index; the rest are aborted.
   */
  matchTurn(actions: readonly AgentAction[]): void {
    if (this.early !== undefined && this.early.size > 0) this.turnEarly = this.match(actions);
  }

  /** The early start of the current turn's action at `index`, if it was dispatched eagerly. */
  call(index: number): EarlyCall | undefined {
    return this.turnEarly?.[index];
  }

  private match(actions: readonly AgentAction[]): (EarlyCall | undefined)[] {
    const early = this.early as Map<string, PendingEarlyCall>;
    const kept = actions.map((action) => {
      const id = (action as { toolCallId?: string }).toolCallId;
      const entry = early.get(id ?? `${action.tool}#${JSON.stringify(action.toolInput)}`);
      if (entry === undefined || entry.action.tool !== action.tool || JSON.stringify(entry.action.toolInput) !== JSON.stringify(action.toolInput)) return undefined;
      early.delete(id ?? `${action.tool}#${JSON.stringify(action.toolInput)}`);
      return entry; // still linked to the run's signal: a limit or a cancellation stops it
    });
    this.dropAll();
    return kept;
  }

  private drop(key: string, entry: PendingEarlyCall): void {
    this.early?.delete(key);
    entry.unlink();
    entry.controller?.abort(new AbortError({ message: "The model's answer did not keep this early tool call." }));
  }
}

function noop(): void {}
