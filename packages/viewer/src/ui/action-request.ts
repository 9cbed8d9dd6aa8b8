/** What the page asks for (the JSON body of `POST /api/runs/<runId>/actions`). */
export type RunActionRequest =
  | { action: "approve"; interruptId: string }
  | { action: "reject"; interruptId: string; message?: string }
  | { action: "edit"; interruptId: string; toolInput: unknown }
  | { action: "resume" }
  | { action: "cancel" }
  | { action: "fork"; at?: number };

/**
 * The body of an action request, checked: a clear message names what is wrong.
 *
 * @internal
 */
export function parseActionRequest(body: unknown): RunActionRequest | string {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return "the body must be a JSON object with an `action`";
  const { action, interruptId, message, toolInput, at } = body as Record<string, unknown>;
  switch (action) {
    case "approve":
    case "reject":
    case "edit":
      if (typeof interruptId !== "string" || interruptId === "") return `\`${action}\` needs \`interruptId\`, the id of the paused call`;
      if (action === "approve") return { action, interruptId };
      if (action === "reject") {
        if (message !== undefined && typeof message !== "string") return "`message` must be a string";
        return { action, interruptId, ...(message === undefined ? {} : { message }) };
      }
      if (toolInput === undefined) return "`edit` needs `toolInput`, the call's new arguments";
      return { action, interruptId, toolInput };
    case "resume":
    case "cancel":
      return { action };
    case "fork":
      if (at !== undefined && (typeof at !== "number" || !Number.isInteger(at) || at < 0)) return "`at` must be an iteration number (an integer >= 0)";
      return { action, ...(at === undefined ? {} : { at }) };
    default:
      return `unknown action ${JSON.stringify(action)}: one of approve, reject, edit, resume, cancel, fork`;
  }
}
