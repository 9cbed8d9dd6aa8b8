/** Returns an observation as text: strings as they are, anything else as JSON. */
export function observationText(observation: unknown): string {
  if (typeof observation === "string") return observation;
  try {
    return JSON.stringify(observation) ?? String(observation);
  } catch {
    return String(observation);
  }
}

/** Returns a tool input as text: strings as they are, anything else as JSON. */
export const toolInputText = observationText;
