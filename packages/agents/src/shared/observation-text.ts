import { observationText } from "@agentrx/core";

// Text agents read observations as text: strings as they are, message content as its text with a
// note per image, anything else as JSON (see `observationText` in @agentrx/core).
export { observationText };

/** Returns a tool input as text: strings as they are, anything else as JSON. */
export function toolInputText(input: unknown): string {
  return observationText(input);
}
