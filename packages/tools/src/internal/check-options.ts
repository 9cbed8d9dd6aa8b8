import { InvalidArgumentError, showValue } from "@agentrx/core";

const shown = (value: unknown) => (Array.isArray(value) ? "an array" : showValue(value));

/** Throws an InvalidArgumentError unless `options` is an object (a plain one, not an array). */
export function checkOptionsObject(owner: string, options: unknown, example: string): void {
  if (typeof options === "object" && options !== null && !Array.isArray(options)) return;
  throw new InvalidArgumentError({ argument: `${owner} options`, value: options, message: `${owner}: the options must be an object such as ${example}, got ${shown(options)}.` });
}

/** Throws an InvalidArgumentError unless a tool's `name` is a non-empty string (a model calls the tool by it). */
export function checkToolName(owner: string, name: unknown): void {
  if (typeof name === "string" && name.trim() !== "") return;
  throw new InvalidArgumentError({ argument: `${owner} name`, value: name, message: `${owner}: \`name\` must be a non-empty string (the model calls the tool by it), got ${shown(name)}.` });
}

/** Throws an InvalidArgumentError unless `value` is true or false. */
export function checkBooleanOption(argument: string, value: unknown): void {
  if (typeof value === "boolean") return;
  throw new InvalidArgumentError({ argument, value, message: `${argument} must be true or false, got ${shown(value)}.` });
}
