/**
 * An OpenTelemetry tracer: a `Tracer` of `@opentelemetry/api` (`trace.getTracer("my-app")`, a
 * provider's `getTracer`), typed by the one method the executor calls, so that the executor's
 * types compile without `@opentelemetry/api` installed (it is an optional peer dependency).
 *
 * @example
 * ```ts
 * import type { TelemetryTracer } from "@agentrx/executors";
 * import { trace } from "@opentelemetry/api";
 *
 * const tracer: TelemetryTracer = trace.getTracer("support-bot");
 * ```
 */
export interface TelemetryTracer {
  /** Starts a span (`Tracer.startSpan(name, options, context)`). */
  startSpan(name: string, options?: object, context?: object): object;
}

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
  tracer?: TelemetryTracer;
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
