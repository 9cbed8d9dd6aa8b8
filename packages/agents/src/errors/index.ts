export { InvalidPromptError } from "./invalid-prompt-error";
export { UnsupportedModelError } from "./unsupported-model-error";
export { AgentTypeRegistryError } from "./agent-type-registry-error";
