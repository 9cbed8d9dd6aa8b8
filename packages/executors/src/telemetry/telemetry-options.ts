import type { Tracer } from "@opentelemetry/api";

/**
 * The executor's `telemetry` option: OpenTelemetry spans for every run (`invoke_agent`), model
 * call (`chat {model}`) and tool call (`execute_tool {name}`), with the GenAI semantic conventions'
 * `gen_ai.*` attributes. `@opentelemetry/api` is loaded only when this option is set.
 *
 * @example
 * ```ts
 * import type { TelemetryOptions } from "@agentrx/executors";
 * import { trace } from "@opentelemetry/api";
 *
 * const telemetry: TelemetryOptions = { tracer: trace.getTracer("support-bot"), recordInputs: true };
 * ```
 */
export interface TelemetryOptions {
  /**
   * The tracer the spans are made with.
   * @default trace.getTracer("agentrx") from `@opentelemetry/api` (the global tracer provider)
   */
  tracer?: Tracer;
  /**
   * Record what goes in: the run's input, the messages sent to each model call
   * (`gen_ai.input.messages`) and each tool call's arguments (`gen_ai.tool.call.arguments`).
   * They may hold personal data: off unless asked for.
   * @default false
   */
  recordInputs?: boolean;
  /**
   * Record what comes out: the run's answer, each model reply (`gen_ai.output.messages`) and each
   * tool result (`gen_ai.tool.call.result`).
   * @default false
   */
  recordOutputs?: boolean;
}
