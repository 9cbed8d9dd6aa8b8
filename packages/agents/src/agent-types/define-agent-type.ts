import { checkOptionKeys, InvalidArgumentError, type AgentInput, type AgentOutput, type AgentStep } from "@agentrx/core";
import type { BaseOutputParser } from "@langchain/core/output_parsers";
import type { BasePromptTemplate } from "@langchain/core/prompts";
import type { Runnable } from "@langchain/core/runnables";

/** What an agent type requires of its model: native tool calling, or only text. */
export type ModelRequirement = "tool-calling" | "text";

const AGENT_TYPE_MARKER = Symbol.for("agentrx.agent-type");
const NAME = /^(?:[a-z0-9][a-z0-9._-]*\/)?[a-z0-9][a-z0-9._-]*$/;
// Semantic Versioning 2.0.0: numbers without leading zeros, dot-separated non-empty identifiers
// after `-` (numeric ones without leading zeros) and after `+`.
const NUMBER = "(?:0|[1-9]\\d*)";
const PRE_ID = `(?:${NUMBER}|\\d*[A-Za-z-][0-9A-Za-z-]*)`;
const VERSION = new RegExp(`^${NUMBER}\\.${NUMBER}\\.${NUMBER}(?:-${PRE_ID}(?:\\.${PRE_ID})*)?(?:\\+[0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*)?$`);

/** The declaration of an agent type, as given to {@link defineAgentType}. */
export interface AgentTypeDefinition<
  Name extends string,
  Options extends { prompt: BasePromptTemplate },
  Scratchpad,
  Parser extends BaseOutputParser<AgentOutput>,
  Requires extends ModelRequirement,
> {
  /** A unique name: `"react"`, or `"scope/name"` for community types (e.g. `"acme/planner"`). */
  name: Name;
  /** The agent type's own semver version (of its prompt, format and behaviour). */
  version: string;
  /** One sentence on what the agent type does and when to use it. */
  description: string;
  /** What the agent type needs from its model. */
  requires: Requires;
  /** Builds an agent; receives the options with `prompt` always set. */
  create: (options: Options) => Runnable<AgentInput, AgentOutput>;
  /** Returns the prompt used when the caller gives none. */
  defaultPrompt: () => Options["prompt"];
  /** Returns the agent type's output parser. */
  createOutputParser: (options: { toolNames: string[] }) => Parser;
  /** Turns the steps so far into the agent's `agent_scratchpad`. */
  formatScratchpad: (steps: AgentStep[]) => Scratchpad;
}

/** The options of an agent type's `create`, where `prompt` may be omitted. */
export type AgentTypeCreateOptions<Options extends { prompt: BasePromptTemplate }> = Omit<Options, "prompt"> & {
  prompt?: Options["prompt"] | undefined;
};

/** A named, versioned agent type, as returned by {@link defineAgentType}. */
export interface AgentType<
  Name extends string = string,
  Options extends { prompt: BasePromptTemplate } = { prompt: BasePromptTemplate },
  Scratchpad = unknown,
  Parser extends BaseOutputParser<AgentOutput> = BaseOutputParser<AgentOutput>,
  Requires extends ModelRequirement = ModelRequirement,
> {
  readonly name: Name;
  readonly version: string;
  readonly description: string;
  readonly requires: Requires;
  /** Builds an agent; without `prompt`, the agent type's default prompt is used. */
  create(options: AgentTypeCreateOptions<Options>): Runnable<AgentInput, AgentOutput>;
  defaultPrompt(): Options["prompt"];
  createOutputParser(options: { toolNames: string[] }): Parser;
  formatScratchpad(steps: AgentStep[]): Scratchpad;
}

/** Any agent type, whatever its options. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyAgentType = AgentType<string, any, any, any, ModelRequirement>;

/** The options of an agent type's `create`. */
export type AgentTypeOptions<T extends AnyAgentType> = Parameters<T["create"]>[0];

/**
 * Declares an agent type: a named, versioned bundle of a constructor, its default prompt, its
 * output parser and scratchpad formatter, and what it requires of the model. Types are inferred
 * from the definition: the name stays a literal, `create`'s options keep their type (with
 * `prompt` optional, falling back to the default prompt), and so do the parser and scratchpad.
 * Throws an `InvalidArgumentError` for a definition that is not an object, an unknown key (with
 * the key meant, for a near miss), and a bad name, version, requirement, description or function;
 * the agent type's `create` throws one when it is given no options object, or `prompt: null`
 * (leave `prompt` out for the default prompt).
 *
 * @example
 * ```ts
 * import { createReactAgent, createReactPrompt, defineAgentType, formatLogToString, ReActSingleInputOutputParser } from "@agentrx/agents";
 *
 * export const carefulReact = defineAgentType({
 *   name: "acme/careful-react",
 *   version: "1.0.0",
 *   description: "ReAct with a prompt that asks the model to double-check.",
 *   requires: "text",
 *   create: createReactAgent,
 *   defaultPrompt: createReactPrompt,
 *   createOutputParser: ({ toolNames }) => new ReActSingleInputOutputParser({ toolNames }),
 *   formatScratchpad: (steps) => formatLogToString(steps),
 * });
 * console.log(carefulReact.name); // "acme/careful-react"
 * ```
 */
export function defineAgentType<
  const Name extends string,
  Options extends { prompt: BasePromptTemplate },
  Scratchpad,
  Parser extends BaseOutputParser<AgentOutput>,
  Requires extends ModelRequirement,
>(
  definition: AgentTypeDefinition<Name, Options, Scratchpad, Parser, Requires>,
): AgentType<Name, Options, Scratchpad, Parser, Requires> {
  validateDefinition(definition);
  const { name, version, description, requires, create, defaultPrompt, createOutputParser, formatScratchpad } = definition;
  const agentType: AgentType<Name, Options, Scratchpad, Parser, Requires> = {
    name,
    version,
    description,
    requires,
    create: (options) => {
      if (typeof options !== "object" || options === null) {
        throw new InvalidArgumentError({
          argument: "options",
          value: options,
          message: `The "${name}" agent type's create: pass an options object such as { llm, tools }, got ${options === null ? "null" : typeof options}.`,
        });
      }
      if (options.prompt === null) {
        throw new InvalidArgumentError({
          argument: "prompt",
          value: null,
          message: `The "${name}" agent type's create: \`prompt\` must be a prompt template, or left out for the default prompt; got null.`,
        });
      }
      const prompt = options.prompt ?? defaultPrompt();
      return create({ ...options, prompt } as unknown as Options);
    },
    defaultPrompt,
    createOutputParser,
    formatScratchpad,
  };
  Object.defineProperty(agentType, AGENT_TYPE_MARKER, { value: true });
  return Object.freeze(agentType);
}

/**
 * Returns true when `value` is an agent type made by `defineAgentType` (from any copy of
 * `@agentrx/agents`).
 *
 * @example
 * ```ts
 * import { isAgentType, reactAgentType } from "@agentrx/agents";
 *
 * console.log(isAgentType(reactAgentType)); // true
 * ```
 */
export function isAgentType(value: unknown): value is AnyAgentType {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[AGENT_TYPE_MARKER] === true;
}

/** The keys of a definition: any other is refused. */
const DEFINITION_KEYS = Object.keys({
  name: true,
  version: true,
  description: true,
  requires: true,
  create: true,
  defaultPrompt: true,
  createOutputParser: true,
  formatScratchpad: true,
} satisfies Record<keyof AgentTypeDefinition<string, { prompt: BasePromptTemplate }, unknown, BaseOutputParser<AgentOutput>, ModelRequirement>, true>);

function validateDefinition(definition: unknown): void {
  if (typeof definition !== "object" || definition === null || Array.isArray(definition)) {
    throw new InvalidArgumentError({
      argument: "definition",
      value: definition,
      message: `defineAgentType: pass a definition object { name, version, description, requires, create, ... }, got ${Array.isArray(definition) ? "an array" : definition === null ? "null" : typeof definition}.`,
    });
  }
  // A misspelt key (`requirez`) is refused, not dropped with the default left in its place.
  checkOptionKeys("defineAgentType", definition, DEFINITION_KEYS);
  const { name, version, requires, description } = definition as Record<string, unknown>;
  if (typeof name !== "string" || !NAME.test(name)) {
    throw new InvalidArgumentError({
      argument: "name",
      value: name,
      message: `defineAgentType: \`name\` must be lowercase "name" or "scope/name" (letters, digits, ".", "_", "-"), got ${JSON.stringify(name)}.`,
    });
  }
  if (typeof version !== "string" || !VERSION.test(version)) {
    throw new InvalidArgumentError({
      argument: "version",
      value: version,
      message: `defineAgentType("${name}"): \`version\` must be a semver version such as "1.0.0", got ${JSON.stringify(version)}.`,
    });
  }
  if (requires !== "tool-calling" && requires !== "text") {
    throw new InvalidArgumentError({
      argument: "requires",
      value: requires,
      message: `defineAgentType("${name}"): \`requires\` must be "tool-calling" or "text", got ${JSON.stringify(requires)}.`,
    });
  }
  if (typeof description !== "string") {
    throw new InvalidArgumentError({
      argument: "description",
      value: description,
      message: `defineAgentType("${name}"): \`description\` must be a string.`,
    });
  }
  for (const key of ["create", "defaultPrompt", "createOutputParser", "formatScratchpad"]) {
    if (typeof (definition as Record<string, unknown>)[key] !== "function") {
      throw new InvalidArgumentError({
        argument: key,
        value: (definition as Record<string, unknown>)[key],
        message: `defineAgentType("${name}"): \`${key}\` must be a function.`,
      });
    }
  }
}
