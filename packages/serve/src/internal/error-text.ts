// The default text of an error sent to a client: its message (first line), else the value as a string. @internal
export function errorText(error: unknown): string {
  const text = error instanceof Error ? error.message : typeof error === "string" ? error : String(error);
  return text.split("\n")[0] || "The run failed.";
}
