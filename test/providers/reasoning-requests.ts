// Reading the requests of the four reasoning wire formats (./reasoning-providers.ts) alike: the
// conversation a request carries, its shape, and whether a later request repeats an earlier one's
// conversation exactly (the reasoning of the turns it carries back included).
import { expect } from "vitest";
import type { ReasoningProvider } from "./reasoning-providers";

/** The conversation a request carries: Anthropic's and Chat Completions' `messages`, the Responses API's `input`, Gemini's `contents`. */
export function conversationOf(provider: ReasoningProvider, request: any): any[] {
  if (provider === "responses") return request.input;
  if (provider === "gemini") return request.contents;
  return request.messages;
}

/**
 * Each entry of a request's conversation as `<role or type>:<what it holds>`: Anthropic's blocks,
 * the Responses API's item types, Gemini's parts, Chat Completions' tool calls and reasoning.
 */
export function shapeOf(provider: ReasoningProvider, request: any): string[] {
  const entries = conversationOf(provider, request);
  if (provider === "anthropic") {
    return entries.map((message: { role: string; content: string | { type: string }[] }) =>
      `${message.role}:${typeof message.content === "string" ? "text" : message.content.map((block) => block.type).join(",")}`,
    );
  }
  if (provider === "responses") return entries.map((item: { type?: string; role?: string }) => (item.role ? `${item.type ?? "message"}(${item.role})` : String(item.type)));
  if (provider === "gemini") {
    return entries.map((content: { role: string; parts: Record<string, unknown>[] }) =>
      `${content.role}:${content.parts
        .map((part) => (part["thought"] ? "thought" : part["functionCall"] ? `call${part["thoughtSignature"] ? "+signature" : ""}` : part["functionResponse"] ? "response" : "text"))
        .join(",")}`,
    );
  }
  return entries.map((message: { role: string; tool_calls?: unknown[]; reasoning_content?: string }) =>
    `${message.role}${message.reasoning_content !== undefined ? "+reasoning" : ""}${message.tool_calls ? `:${message.tool_calls.length} calls` : ""}`,
  );
}

/**
 * Asserts that `later` begins with `earlier`'s conversation, entry for entry, as it was sent (so
 * every turn `earlier` carried back, its reasoning and signatures included, went back unchanged).
 */
export function expectRepeats(provider: ReasoningProvider, later: any, earlier: any): void {
  const before = conversationOf(provider, earlier);
  expect(conversationOf(provider, later).slice(0, before.length)).toEqual(before);
}

/**
 * What `reasoningSent` reads of a request's earlier assistant turns, given each turn's reasoning,
 * or `null` for a turn without any (a text the agent wrote, the note of a summary): Gemini marks
 * a signed turn and writes `-` for a turn without a thought; the Responses API lists reasoning
 * items only.
 */
export function sentOf(provider: ReasoningProvider, turns: (string | null)[]): (string | undefined)[] {
  if (provider === "responses") return turns.filter((turn): turn is string => turn !== null);
  if (provider === "gemini") return turns.map((turn) => (turn === null ? "-" : `${turn} (signed)`));
  return turns.map((turn) => turn ?? undefined);
}

/** The conversation of `request` from the entry that carries `reasoning` (the turn that reasoned so) on. */
export function fromTurn(provider: ReasoningProvider, request: any, reasoning: string): any[] {
  const entries = conversationOf(provider, request);
  const start = entries.findIndex((entry) => JSON.stringify(entry).includes(JSON.stringify(reasoning).slice(1, -1)));
  expect(start, `no entry carries "${reasoning}"`).toBeGreaterThanOrEqual(0);
  return entries.slice(start);
}

/**
 * Asserts that `later` carries the turn that reasoned `reasoning`, and what followed it in
 * `earlier`, exactly as `earlier` did (though what came before it may differ: a summary, a cut).
 */
export function expectTurnRepeated(provider: ReasoningProvider, later: any, earlier: any, reasoning: string): void {
  const before = fromTurn(provider, earlier, reasoning);
  expect(fromTurn(provider, later, reasoning).slice(0, before.length)).toEqual(before);
}
