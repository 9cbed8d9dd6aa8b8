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

  /** Adds an agent type; throws when its name is already registered. */
  register<T extends AnyAgentType>(agentType: T): AgentTypeRegistry<Types & { [K in T["name"]]: T }> {
    if (!isAgentType(agentType)) {
      throw new AgentTypeRegistryError({
        name: String((agentType as { name?: unknown } | null)?.name ?? ""),
        reason: "invalid",
        message: "AgentTypeRegistry.register: pass an agent type made with defineAgentType(...).",
      });
    }
    const existing = this.types.get(agentType.name);
    if (existing) {
      throw new AgentTypeRegistryError({
        name: agentType.name,
        reason: "duplicate",
        message:
          `An agent type named "${agentType.name}" is already registered (version ${existing.version}); ` +
          `refusing to register version ${agentType.version} under the same name. Names must be unique: ` +
          `publish under your own scope (e.g. "acme/${agentType.name.split("/").pop() ?? agentType.name}").`,
      });
    }
    this.types.set(agentType.name, agentType);
    return this as unknown as AgentTypeRegistry<Types & { [K in T["name"]]: T }>;
  }

  /** Returns the agent type registered under `name`; throws when there is none. */
  get<N extends keyof Types & string>(name: N): Types[N];
  get(name: string): AnyAgentType;
  get(name: string): AnyAgentType {
    const agentType = this.types.get(name);
    if (!agentType) {
      throw new AgentTypeRegistryError({
        name,
        reason: "unknown",
        message: `No agent type named "${name}" is registered. Registered: ${[...this.types.keys()].map((key) => `"${key}"`).join(", ") || "none"}.`,
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
