import { InvalidArgumentError } from "@agentrx/core";
import type { BasePromptTemplate } from "@langchain/core/prompts";
import { InvalidPromptError } from "../errors/invalid-prompt-error";

/** Where an agent constructor's validation messages come from. */
export interface ValidationContext {
  /** The agent type, e.g. `"react"`. */
  agentType: string;
  /** The constructor's name, e.g. `"createReactAgent"`, used as the message prefix. */
  constructorName: string;
  /**
   * Where the caller's user passed the prompt, when not in `prompt` (`createAgentForModel`'s
   * `prompts.react`): errors about the prompt name it.
   */
  promptArgument?: string;
}

/** The prompt as messages name it: "the prompt", or "the prompt `prompts.react`" when given elsewhere. */
export function thePrompt({ promptArgument }: ValidationContext): string {
  return promptArgument === undefined ? "the prompt" : `the prompt \`${promptArgument}\``;
}

/** Returns the variables a prompt accepts: its input variables and its partial variables. */
export function promptVariables(prompt: BasePromptTemplate): Set<string> {
  return new Set([...(prompt.inputVariables ?? []), ...Object.keys(prompt.partialVariables ?? {})]);
}

/** Throws unless `prompt` looks like a `@langchain/core` prompt template. */
export function assertPrompt(prompt: unknown, { constructorName, promptArgument = "prompt" }: ValidationContext): asserts prompt is BasePromptTemplate {
  const candidate = prompt as Partial<BasePromptTemplate> | null | undefined;
  if (
    typeof candidate !== "object" ||
    candidate === null ||
    !Array.isArray(candidate.inputVariables) ||
    typeof candidate.invoke !== "function"
  ) {
    throw new InvalidArgumentError({
      argument: promptArgument,
      value: prompt,
      message: `${constructorName}: \`${promptArgument}\` must be a @langchain/core prompt template (e.g. ChatPromptTemplate.fromMessages([...])).`,
    });
  }
}

/**
 * Throws an {@link InvalidPromptError} naming every variable of `required` that the prompt
 * lacks (`hints` adds a fix per variable).
 */
export function assertPromptVariables(
  prompt: BasePromptTemplate,
  required: readonly string[],
  context: ValidationContext,
  hints: Record<string, string> = {},
): void {
  const present = promptVariables(prompt);
  const missing = required.filter((name) => !present.has(name));
  if (missing.length === 0) return;
  const list = missing.map((name) => `"${name}"`).join(", ");
  const fixes = missing.map((name) => hints[name]).filter(Boolean);
  throw new InvalidPromptError({
    agentType: context.agentType,
    missingVariables: missing,
    message:
      `${context.constructorName}: ${thePrompt(context)} is missing the input variable${missing.length > 1 ? "s" : ""} ${list}. ` +
      `The prompt has ${JSON.stringify([...present])}.` +
      (fixes.length ? ` ${fixes.join(" ")}` : ""),
  });
}

/**
 * Throws an {@link InvalidPromptError} unless the prompt is a chat prompt with a
 * `MessagesPlaceholder` for `variable`.
 */
export function assertMessagesPlaceholder(prompt: BasePromptTemplate, variable: string, context: ValidationContext): void {
  const hint = `Add new MessagesPlaceholder("${variable}") to the prompt's messages.`;
  assertPromptVariables(prompt, [variable], context, { [variable]: hint });
  const messages = (prompt as { promptMessages?: unknown[] }).promptMessages;
  const found = Array.isArray(messages) && messages.some((message) => isMessagesPlaceholder(message, variable));
  if (!found) {
    throw new InvalidPromptError({
      agentType: context.agentType,
      missingVariables: [variable],
      message:
        `${context.constructorName}: ${thePrompt(context)}'s "${variable}" variable must be a MessagesPlaceholder, ` +
        `because the agent fills it with messages. ${hint}`,
    });
  }
}

function isMessagesPlaceholder(value: unknown, variable: string): boolean {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as { variableName?: unknown; constructor?: { lc_name?: () => string } };
  return candidate.variableName === variable && candidate.constructor?.lc_name?.() === "MessagesPlaceholder";
}
