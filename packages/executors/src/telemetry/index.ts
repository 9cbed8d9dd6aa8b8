export type { TelemetryOptions, TelemetryTracer } from "./telemetry-options";
