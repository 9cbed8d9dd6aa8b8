// The agent card createA2AHandler publishes: made whole from the card given (defaults for what it
// leaves out), checked when the handler is made, and written as A2A 1.0 JSON, in which a `oneof`
// (a security scheme, an OAuth flow) is an object keyed by the chosen field, where the SDK's
// values have `{ $case, value }` (see docs/serving-a2a.md, "The agent card"). @internal
import type { AgentCard } from "@a2a-js/sdk";
import { InvalidArgumentError, nearMissOf } from "@agentrx/core";
import type { A2AAgentCard, A2AAgentInterface } from "./a2a-types";
import type { A2AAgentCardInput } from "./create-a2a-handler";

/** The fields of an A2A 1.0 agent card (the spec's `AgentCard`), and `url`, which becomes its interfaces. */
const CARD_KEYS = Object.keys({
  name: true,
  description: true,
  supportedInterfaces: true,
  provider: true,
  version: true,
  documentationUrl: true,
  capabilities: true,
  securitySchemes: true,
  securityRequirements: true,
  defaultInputModes: true,
  defaultOutputModes: true,
  skills: true,
  signatures: true,
  iconUrl: true,
  url: true,
} satisfies Record<keyof A2AAgentCardInput, true>);

/** Fields of an A2A 0.3 card, and what A2A 1.0 has instead. */
const CARD_HINTS: Readonly<Record<string, string>> = {
  protocolVersion: "A2A 1.0 gives each interface its own, in `supportedInterfaces[].protocolVersion`",
  preferredTransport: "A2A 1.0 names each interface's binding in `supportedInterfaces[].protocolBinding`, the preferred interface first",
  additionalInterfaces: "A2A 1.0 lists every interface in `supportedInterfaces`",
  security: "A2A 1.0 calls it `securityRequirements`",
  supportsAuthenticatedExtendedCard: "A2A 1.0 says it in `capabilities.extendedAgentCard`",
};

/** The security schemes an A2A 1.0 card can name (the SDK's `SecurityScheme` cases). */
const SCHEME_CASES: ReadonlySet<string> = new Set(["apiKeySecurityScheme", "httpAuthSecurityScheme", "oauth2SecurityScheme", "openIdConnectSecurityScheme", "mtlsSecurityScheme"]);

/**
 * Refuses a card field A2A 1.0 does not have (a misspelt one, one of A2A 0.3, a vendor field: the
 * spec's card has no others, and vendor data goes in an extension's `params`), and a security
 * scheme not in the SDK's form (`{ scheme: { $case, value } }`), which would be published empty.
 */
export function checkAgentCard(input: A2AAgentCardInput): void {
  for (const key of Object.keys(input)) {
    if (CARD_KEYS.includes(key)) continue;
    const meant = nearMissOf(key, CARD_KEYS);
    const hint = CARD_HINTS[key];
    const said = hint !== undefined ? `${hint}.` : meant !== undefined ? `did you mean \`${meant}\`?` : "data of your own goes in an extension's `params` (`capabilities.extensions`).";
    throw new InvalidArgumentError({
      argument: `agentCard.${key}`,
      value: (input as Record<string, unknown>)[key],
      message: `createA2AHandler: \`agentCard.${key}\` is not a field of an A2A 1.0 agent card; ${said} The fields taken: ${CARD_KEYS.join(", ")}.`,
    });
  }
  checkCapabilities(input.capabilities);
  const schemes: unknown = input.securitySchemes;
  if (schemes === undefined) return;
  if (typeof schemes !== "object" || schemes === null || Array.isArray(schemes)) {
    throw new InvalidArgumentError({ argument: "agentCard.securitySchemes", value: schemes, message: "createA2AHandler: `agentCard.securitySchemes` must be an object of security schemes by name." });
  }
  for (const [name, scheme] of Object.entries(schemes)) {
    if (isSdkScheme(scheme)) continue;
    throw new InvalidArgumentError({
      argument: `agentCard.securitySchemes.${name}`,
      value: scheme,
      message: `createA2AHandler: security scheme \`${name}\` must be in the SDK's form, { scheme: { $case: "httpAuthSecurityScheme", value: { description: "", scheme: "Bearer", bearerFormat: "JWT" } } } ($case one of ${[...SCHEME_CASES].join(", ")}), got ${JSON.stringify(scheme)}.`,
    });
  }
}

/** The fields of an A2A 1.0 card's `capabilities`. */
const CAPABILITY_KEYS: readonly string[] = ["streaming", "pushNotifications", "extensions", "extendedAgentCard"];

/**
 * Refuses `capabilities` that are not an object, and a key they do not have (a misspelt
 * `streamng` would be published while `streaming` kept its default; A2A 0.3's
 * `stateTransitionHistory` is not in 1.0).
 */
function checkCapabilities(capabilities: unknown): void {
  if (capabilities === undefined) return;
  if (typeof capabilities !== "object" || capabilities === null || Array.isArray(capabilities)) {
    throw new InvalidArgumentError({ argument: "agentCard.capabilities", value: capabilities, message: `createA2AHandler: \`agentCard.capabilities\` must be an object ({ ${CAPABILITY_KEYS.join(", ")} }), got ${JSON.stringify(capabilities)}.` });
  }
  for (const [key, value] of Object.entries(capabilities)) {
    if (!CAPABILITY_KEYS.includes(key)) {
      const meant = nearMissOf(key, CAPABILITY_KEYS);
      throw new InvalidArgumentError({
        argument: `agentCard.capabilities.${key}`,
        value,
        message: `createA2AHandler: \`agentCard.capabilities.${key}\` is not a capability of an A2A 1.0 agent card; ${meant !== undefined ? `did you mean \`${meant}\`?` : "data of your own goes in an extension's `params` (`capabilities.extensions`)."} The capabilities taken: ${CAPABILITY_KEYS.join(", ")}.`,
      });
    }
    const fine = key === "extensions" ? Array.isArray(value) : value === undefined || typeof value === "boolean";
    if (!fine) {
      throw new InvalidArgumentError({ argument: `agentCard.capabilities.${key}`, value, message: `createA2AHandler: \`agentCard.capabilities.${key}\` must be ${key === "extensions" ? "an array of extensions ({ uri, description, required, params })" : "a boolean"}, got ${JSON.stringify(value)}.` });
    }
  }
}

/** Whether `scheme` is `{ scheme: { $case, value } }` with a known case (or `{}`: no scheme chosen). */
function isSdkScheme(scheme: unknown): boolean {
  if (typeof scheme !== "object" || scheme === null || Object.keys(scheme).some((key) => key !== "scheme")) return false;
  const chosen: unknown = (scheme as { scheme?: unknown }).scheme;
  if (chosen === undefined) return true;
  if (typeof chosen !== "object" || chosen === null) return false;
  const { $case, value } = chosen as { $case?: unknown; value?: unknown };
  return typeof $case === "string" && SCHEME_CASES.has($case) && typeof value === "object" && value !== null;
}

/** A whole `AgentCard` from the input, with defaults; JSON-RPC at `url` for protocols 1.0 and 0.3. */
export function agentCardOf(input: A2AAgentCardInput, url: string): AgentCard {
  const { url: _url, supportedInterfaces, capabilities, ...rest } = input;
  const interfaces: A2AAgentInterface[] = supportedInterfaces ?? [
    { url, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" },
    { url, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "0.3" },
  ];
  return {
    version: "1.0.0",
    provider: undefined,
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["text/plain", "application/json"],
    defaultOutputModes: ["text/plain", "application/json"],
    skills: [],
    signatures: [],
    ...rest,
    capabilities: { streaming: true, pushNotifications: false, extensions: [], ...capabilities },
    supportedInterfaces: interfaces,
  };
}

/**
 * The card as A2A 1.0 JSON, what `/.well-known/agent-card.json` serves: every field as given, but
 * each security scheme (and an OAuth scheme's flow) keyed by the field its `$case` names, as the
 * spec's JSON (and the SDK's own `AgentCard.fromJSON`, which its client reads the card with) has it.
 */
export function agentCardJson(card: A2AAgentCard): Record<string, unknown> {
  const schemes = Object.fromEntries(Object.entries(card.securitySchemes).map(([name, scheme]) => [name, securitySchemeJson(scheme)]));
  return { ...card, securitySchemes: schemes };
}

function securitySchemeJson(scheme: A2AAgentCard["securitySchemes"][string]): Record<string, unknown> {
  const chosen = scheme.scheme;
  if (chosen === undefined) return {};
  if (chosen.$case !== "oauth2SecurityScheme") return { [chosen.$case]: chosen.value };
  const { flows, ...oauth2 } = chosen.value;
  const flow = flows?.flow;
  return { oauth2SecurityScheme: { ...oauth2, ...(flows === undefined ? {} : { flows: flow === undefined ? {} : { [flow.$case]: flow.value } }) } };
}
