import { AgentTypeRegistryError } from "../errors/agent-type-registry-error";
import { builtInAgentTypes, type BuiltInAgentTypes } from "./built-in-agent-types";
import { isAgentType, type AnyAgentType, type ModelRequirement } from "./define-agent-type";

/** What {@link AgentTypeRegistry.list} tells about each agent type. */
export interface AgentTypeInfo {
  name: string;
  version: string;
  description: string;
  requires: ModelRequirement;
}

/**
 * A set of agent types looked up by name. Registering a second agent type under a name already
 * taken throws an {@link AgentTypeRegistryError}; so does looking up a name nobody registered.
 * `register` returns the registry with its type widened, so `get` of a registered name is fully
 * typed.
 *
 * @example
 * ```ts
 * import { AgentTypeRegistry, reactAgentType } from "@agentrx/agents";
 *
 * const registry = new AgentTypeRegistry().register(reactAgentType);
 * console.log(registry.get("react").requires); // "text"
 * console.log(registry.list().map((type) => type.name)); // ["react"]
 * ```
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export class AgentTypeRegistry<Types extends Record<string, AnyAgentType> = {}> {
  private readonly types = new Map<string, AnyAgentType>();

  /**
   * Adds an agent type; throws an {@link AgentTypeRegistryError} (reason `"duplicate"`) when its
   * name is already registered, saying whether it is the same agent type again (from this or
   * another copy of its package) or another one under the same name.
   */
  register<T extends AnyAgentType>(agentType: T): AgentTypeRegistry<Types & { [K in T["name"]]: T }> {
    if (!isAgentType(agentType)) {
      throw new AgentTypeRegistryError({
        name: nameOf(agentType),
        reason: "invalid",
        message: `AgentTypeRegistry.register: pass an agent type made with defineAgentType(...); ${describeNotAgentType(agentType)}`,
      });
    }
    const existing = this.types.get(agentType.name);
    if (existing) {
      throw new AgentTypeRegistryError({ name: agentType.name, reason: "duplicate", message: describeDuplicate(existing, agentType) });
    }
    this.types.set(agentType.name, agentType);
    return this as unknown as AgentTypeRegistry<Types & { [K in T["name"]]: T }>;
  }

  /**
   * Returns the agent type registered under `name`; throws when there is none, naming the
   * registered ones (and the scoped name meant, for a name given without its scope).
   */
  get<N extends keyof Types & string>(name: N): Types[N];
  get(name: string): AnyAgentType;
  get(name: string): AnyAgentType {
    const agentType = this.types.get(name);
    if (!agentType) {
      // A community agent type looked up without its scope ("planner" for "acme/planner").
      const scoped = [...this.types.keys()].filter((key) => key.endsWith(`/${name}`));
      const meant = scoped.length > 0 ? ` Did you mean ${scoped.map((key) => `"${key}"`).join(" or ")}?` : "";
      throw new AgentTypeRegistryError({
        name,
        reason: "unknown",
        message: `No agent type named "${name}" is registered.${meant} Registered: ${[...this.types.keys()].map((key) => `"${key}"`).join(", ") || "none"}.`,
      });
    }
    return agentType;
  }

  /** Whether an agent type is registered under `name`. */
  has(name: string): boolean {
    return this.types.has(name);
  }

  /** Describes the registered agent types, in registration order. */
  list(): AgentTypeInfo[] {
    return [...this.types.values()].map(({ name, version, description, requires }) => ({ name, version, description, requires }));
  }
}

/**
 * Creates a registry holding every built-in agent type (`"tool-calling"`, `"openai-tools"`,
 * `"openai-functions"`, `"react"`, `"structured-chat"`, `"xml"`, `"self-ask-with-search"`, `"json-chat"`);
 * register community agent types on it.
 *
 * @example
 * ```ts
 * import { createAgentTypeRegistry } from "@agentrx/agents";
 *
 * const registry = createAgentTypeRegistry();
 * console.log(registry.has("react")); // true
 * ```
 */
export function createAgentTypeRegistry(): AgentTypeRegistry<BuiltInAgentTypes> {
  let registry: AgentTypeRegistry<Record<string, AnyAgentType>> = new AgentTypeRegistry();
  for (const agentType of builtInAgentTypes) registry = registry.register(agentType);
  return registry as unknown as AgentTypeRegistry<BuiltInAgentTypes>;
}

/**
 * Says why a second registration under a taken name is refused, and what to do: the same agent
 * type registered twice (register it once), the same declaration from another copy of its package
 * (it is already there), or another agent type under the same name (give it a name of its own).
 */
function describeDuplicate(existing: AnyAgentType, added: AnyAgentType): string {
  const { name } = added;
  if (existing === added) {
    return `The agent type "${name}" is already registered (version ${existing.version}, this same agent type); register it once.`;
  }
  if (existing.version === added.version && existing.description === added.description && existing.requires === added.requires) {
    return (
      `An agent type "${name}" version ${existing.version} is already registered; this is the same agent type from another copy of its package ` +
      `(two copies are installed, e.g. two versions of @agentrx/agents or of the package that declares it). ` +
      `It is already available: leave this registration out, or deduplicate the installs (npm dedupe).`
    );
  }
  const base = name.split("/").pop() ?? name;
  const suggestion = `your-scope/${base}` === name ? `your-scope/${base}-2` : `your-scope/${base}`;
  // Two versions of one name are most often two installs of the package that declares it.
  const versions =
    existing.version === added.version
      ? ""
      : `If both are versions of one package, two copies of it are installed: deduplicate the installs (npm dedupe, or align the ranges that require it) and register the one left. `;
  return (
    `An agent type named "${name}" is already registered (version ${existing.version}); ` +
    `refusing to register another agent type (version ${added.version}) under the same name. Names must be unique: ${versions}` +
    `register one version of an agent type only, and publish a different agent type under a scoped name of your own (e.g. "${suggestion}").`
  );
}

function nameOf(value: unknown): string {
  try {
    const name = (value as { name?: unknown } | null | undefined)?.name;
    return typeof name === "string" ? name : "";
  } catch {
    return "";
  }
}

/**
 * Says what was passed to `register` instead of an agent type, and how to get the agent type from
 * it: the usual slips are a whole module (`import * as pkg`, or CommonJS interop's `{ default }`),
 * an import name the package does not export (`undefined`), and a copy made with `{ ...type }`,
 * which loses the mark `defineAgentType` sets.
 */
function describeNotAgentType(value: unknown): string {
  if (value === undefined || value === null) {
    return `got ${String(value)}. Check the import: is the name one the package exports, and is the package's version the one whose docs you read?`;
  }
  if (typeof value === "function") return "got a function. Pass the agent type itself, not its create function or the constructor it wraps.";
  if (typeof value !== "object") return `got the ${typeof value} ${typeof value === "string" ? JSON.stringify(value) : String(value)}. Register the agent type object; look it up by name with get(name) afterwards.`;
  try {
    const found = agentTypesIn(value);
    if (found.length > 0) {
      const listed = found.map(({ path, type }) => `\`${path}\` ("${type.name}")`).join(", ");
      return `got an object (a module?) holding agent types in ${listed}. Pass the agent type itself, e.g. register(${found[0]!.path}).`;
    }
    const { name, create, defaultPrompt } = value as Record<string, unknown>;
    if (typeof name === "string" && typeof create === "function" && typeof defaultPrompt === "function") {
      return `got "${name}", an object shaped like an agent type but without the mark defineAgentType sets (a copy made with { ...agentType } or Object.assign loses it). Register the agent type defineAgentType returned, or define a new one with defineAgentType({ ...agentType, ... }).`;
    }
  } catch {
    // An object that cannot be read (a revoked proxy): nothing more to say about it.
  }
  return "got an object that is not one.";
}

/** The agent types among an object's own values and its `default` export's, with the path to each. */
function agentTypesIn(value: object): { path: string; type: AnyAgentType }[] {
  const found: { path: string; type: AnyAgentType }[] = [];
  const look = (holder: object, prefix: string) => {
    for (const key of Object.keys(holder)) {
      const inner = (holder as Record<string, unknown>)[key];
      if (isAgentType(inner)) found.push({ path: `${prefix}${key}`, type: inner });
    }
  };
  look(value, "module.");
  const fallback = (value as { default?: unknown }).default;
  if (typeof fallback === "object" && fallback !== null && !isAgentType(fallback)) look(fallback, "module.default.");
  return found;
}
