import { OpenAIChatModel } from "@agentrx/core/openai";

/**
 * The model of the endpoint that `OPENAI_API_KEY` / `OPENAI_BASE_URL` (and `OPENAI_MODEL`) name,
 * or `undefined` when they are not set, so the caller falls back to its scripted model. Either way
 * it prints one line saying which model the example uses. Shared by the examples and notebooks.
 */
export function endpointModel(options: Parameters<typeof OpenAIChatModel.fromEnv>[0] = {}): OpenAIChatModel | undefined {
  const real = OpenAIChatModel.fromEnv(options);
  console.log(
    real
      ? `Model: ${real.model} at ${real.baseURL} (from OPENAI_API_KEY / OPENAI_BASE_URL).\n`
      : "Model: ScriptedChatModel, offline (set OPENAI_API_KEY to use a real endpoint).\n",
  );
  return real;
}
