export type { TelemetryOptions } from "./telemetry-options";
