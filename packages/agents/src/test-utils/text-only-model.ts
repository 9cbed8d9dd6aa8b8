// A ScriptedChatModel that behaves like a model without native tool calling (no bindTools), for tests.
import { ScriptedChatModel, type ScriptedChatModelOptions } from "@agentrx/core/testing";

/** Creates a `ScriptedChatModel` whose `bindTools` is hidden, like a text-only model's. */
export function textOnlyModel(options: ScriptedChatModelOptions): ScriptedChatModel {
  const model = new ScriptedChatModel(options);
  Object.defineProperty(model, "bindTools", { value: undefined, configurable: true });
  return model;
}
