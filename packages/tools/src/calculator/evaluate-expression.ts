import { checkOptionKeys } from "@agentrx/core";
import type { MathNode } from "mathjs";
import { checkNumberOption } from "../internal/check-number-option";
import { ExpressionError } from "./expression-error";

// mathjs takes about a second to load, so it is loaded on the calculator's first use, not when
// @agentrx/tools is imported (most users of the package never compute anything).
let parser: Promise<(expression: string) => MathNode> | undefined;
const loadParser = () => (parser ??= import("./math-parser").then((module) => module.parse));

const CONSTANTS: Readonly<Record<string, number>> = { pi: Math.PI, PI: Math.PI, e: Math.E, E: Math.E, tau: 2 * Math.PI, phi: (1 + Math.sqrt(5)) / 2 };

type NumberFunction = { arity: [number, number]; apply: (...args: number[]) => number };
const unary = (apply: (x: number) => number): NumberFunction => ({ arity: [1, 1], apply: (x) => apply(x) });

const MAX_FACTORIAL = 170; // 171! is not a finite double
function factorial(n: number): number {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`factorial needs a whole number >= 0, got ${n}`);
  if (n > MAX_FACTORIAL) return Number.POSITIVE_INFINITY;
  let result = 1;
  for (let i = 2; i <= n; i++) result *= i;
  return result;
}

/**
 * One of the two logarithms in `log(x, base)`, refused unless finite: it is a step on the way, as
 * much as a syntax node is ("log(8, 0)" would be log(8) / -Infinity, a silent 0).
 */
function logStep(x: number): number {
  const value = Math.log(x);
  if (!Number.isFinite(value)) throw new RangeError(`"log(${x})" is not a finite number (${value})`);
  return value;
}

const FUNCTIONS: Readonly<Record<string, NumberFunction>> = {
  abs: unary(Math.abs),
  sign: unary(Math.sign),
  sqrt: unary(Math.sqrt),
  cbrt: unary(Math.cbrt),
  exp: unary(Math.exp),
  log: { arity: [1, 2], apply: (x, base) => (base === undefined ? Math.log(x) : logStep(x) / logStep(base)) },
  log2: unary(Math.log2),
  log10: unary(Math.log10),
  sin: unary(Math.sin),
  cos: unary(Math.cos),
  tan: unary(Math.tan),
  asin: unary(Math.asin),
  acos: unary(Math.acos),
  atan: unary(Math.atan),
  atan2: { arity: [2, 2], apply: (y, x) => Math.atan2(y, x ?? 0) },
  sinh: unary(Math.sinh),
  cosh: unary(Math.cosh),
  tanh: unary(Math.tanh),
  floor: unary(Math.floor),
  ceil: unary(Math.ceil),
  round: {
    arity: [1, 2],
    apply: (x, digits = 0) => {
      if (!Number.isInteger(digits) || digits < 0 || digits > 15) throw new RangeError("round's digits must be a whole number from 0 to 15");
      return Math.round(x * 10 ** digits) / 10 ** digits;
    },
  },
  min: { arity: [1, 100], apply: Math.min },
  max: { arity: [1, 100], apply: Math.max },
  hypot: { arity: [1, 100], apply: Math.hypot },
  pow: { arity: [2, 2], apply: (x, y) => x ** (y ?? 1) },
  mod: { arity: [2, 2], apply: (x, y) => mod(x, y ?? 1) },
  factorial: unary(factorial),
};

const OPERATORS: Readonly<Record<string, (...args: number[]) => number>> = {
  add: (a, b) => a! + b!,
  subtract: (a, b) => a! - b!,
  multiply: (a, b) => a! * b!,
  divide: (a, b) => a! / b!,
  pow: (a, b) => a! ** b!,
  mod: (a, b) => mod(a!, b!),
  unaryMinus: (a) => -a!,
  unaryPlus: (a) => a!,
  factorial: (a) => factorial(a!),
};

/**
 * Modulo with the sign of the divisor (as mathjs); by zero it is undefined, and refused. `%` is
 * exact (`x - y * floor(x / y)` is not: `2^60 % 10` would be 0), so the remainder is computed
 * with it and moved into the divisor's sign with a single addition.
 */
function mod(x: number, y: number): number {
  if (y === 0) throw new RangeError("modulo by zero is undefined");
  const remainder = x % y;
  if (remainder === 0) return 0; // not -0 ("-6 % 3")
  return remainder < 0 === y < 0 ? remainder : remainder + y;
}

const REFUSED: Readonly<Record<string, string>> = {
  AccessorNode: "property and index access are not allowed",
  IndexNode: "property and index access are not allowed",
  AssignmentNode: "assignment is not allowed",
  FunctionAssignmentNode: "defining functions is not allowed",
  BlockNode: "only one expression is allowed (no ';' or newlines)",
  ObjectNode: "objects are not allowed",
  ArrayNode: "matrices and arrays are not allowed",
  RangeNode: "ranges are not allowed",
  ConditionalNode: "conditionals are not allowed",
  RelationalNode: "comparisons are not allowed",
};

/** Options of {@link evaluateExpression}. */
export interface EvaluateExpressionOptions {
  /** The longest expression accepted, in characters. @default 500 */
  maxLength?: number;
  /** The most operators, numbers and function calls an expression may have. @default 200 */
  maxNodes?: number;
}

/** The options {@link evaluateExpression} takes: a misspelt one would leave its default in place. @internal */
export const EVALUATE_OPTION_KEYS: readonly string[] = Object.keys({ maxLength: true, maxNodes: true } satisfies Record<keyof EvaluateExpressionOptions, true>);

/**
 * The names of the functions the calculator knows.
 *
 * @example
 * ```ts
 * import { CALCULATOR_FUNCTIONS } from "@agentrx/tools";
 *
 * console.log(CALCULATOR_FUNCTIONS.includes("sqrt")); // true
 * ```
 */
export const CALCULATOR_FUNCTIONS: readonly string[] = Object.keys(FUNCTIONS);

/**
 * Evaluates an arithmetic expression without `eval` and without access to anything but numbers,
 * `+ - * / ^ % !`, parentheses, the constants `pi e tau phi` and the functions in
 * {@link CALCULATOR_FUNCTIONS}. Resolves with the number (asynchronous because the parser, mathjs,
 * is loaded on first use) or rejects with an {@link ExpressionError} that says what is not allowed:
 * also for anything but a string, a comment (`#`), a result that is not a finite number (`1 / 0`),
 * also on the way to the answer (`1 / (1 / 0)`, `sqrt(-1) ^ 0`, `log(8, 0)`), a modulo by zero (`5 % 0`,
 * `mod(5, 0)`), and a `%` right before a sign (`50% + 1`: a modulo by +1, or 50 percent plus 1?).
 * `%` is the modulo between two operands and a percentage after one (`50%` is 0.5, `200 + 10%` is
 * 220, `8% * 50` is 4); the modulo has the sign of the divisor and is exact (`2^60 % 10` is 6).
 * Bad options reject with an `InvalidArgumentError`.
 *
 * @example
 * ```ts
 * import { evaluateExpression } from "@agentrx/tools";
 *
 * console.log(await evaluateExpression("2 * (3 + 4) ^ 2 / sqrt(16)")); // 24.5
 * ```
 */
export async function evaluateExpression(expression: string, options: EvaluateExpressionOptions = {}): Promise<number> {
  checkOptionKeys("evaluateExpression", options, EVALUATE_OPTION_KEYS);
  const { maxLength = 500, maxNodes = 200 } = options ?? {};
  checkNumberOption("evaluateExpression maxLength", maxLength, { min: 1, integer: true });
  checkNumberOption("evaluateExpression maxNodes", maxNodes, { min: 1, integer: true });
  const fail = (reason: string, cause?: unknown): never => {
    throw new ExpressionError({ expression, reason, cause });
  };
  if (typeof expression !== "string") fail(`the expression must be a string, got ${expression === null ? "null" : typeof expression}.`);
  if (expression.trim() === "") fail("the expression is empty.");
  // mathjs reads "#" as the start of a comment: "1 # + 2" would quietly be 1.
  if (expression.includes("#")) fail('comments ("#") are not allowed; send only the expression.');
  if (expression.length > maxLength) fail(`the expression is longer than ${maxLength} characters.`);
  const parse = await loadParser();
  let root: MathNode;
  try {
    root = parse(expression);
  } catch (error) {
    return fail(`it does not parse (${error instanceof Error ? error.message : String(error)}).`, error);
  }
  let nodes = 0;
  // Every step must give a finite number, not only the last: "1 / (1 / 0)" would be 0 and
  // "sqrt(-1) ^ 0" would be 1, an infinity or NaN on the way silently turned into an answer.
  const visit = (node: MathNode): number => {
    const value = evaluateNode(node);
    if (!Number.isFinite(value)) {
      if (node.type !== "ConstantNode") fail(`"${node.toString()}" is not a finite number (${value}).`);
      fail(Number.isNaN(value) ? '"NaN" is not a number to compute with.' : "a number in it is too large to compute with (it reads as Infinity).");
    }
    return value;
  };
  const evaluateNode = (node: MathNode): number => {
    nodes += 1;
    if (nodes > maxNodes) fail(`the expression has more than ${maxNodes} parts.`);
    const refused = REFUSED[node.type];
    if (refused) return fail(`${refused}.`);
    switch (node.type) {
      case "ConstantNode": {
        const value = (node as unknown as { value: unknown }).value;
        return typeof value === "number" ? value : fail(`only numbers are allowed, not ${JSON.stringify(value)}.`);
      }
      case "ParenthesisNode":
        return visit((node as unknown as { content: MathNode }).content);
      case "SymbolNode": {
        const name = (node as unknown as { name: string }).name;
        return (Object.hasOwn(CONSTANTS, name) ? CONSTANTS[name] : undefined) ?? fail(`unknown name "${name}"; the known constants are ${Object.keys(CONSTANTS).join(", ")}.`);
      }
      case "OperatorNode": {
        const { fn, op, args } = node as unknown as { fn: string; op: string; args: MathNode[] };
        const operator = OPERATORS[fn];
        if (!operator) return fail(`the operator "${op}" is not allowed; use + - * / ^ % !.`);
        if (op === "%") refuseSignedModulo(args);
        return operator(...args.map(visit));
      }
      case "FunctionNode": {
        const { fn, args } = node as unknown as { fn: MathNode & { name?: string }; args: MathNode[] };
        const name = fn.type === "SymbolNode" ? fn.name ?? "" : "";
        const known = Object.hasOwn(FUNCTIONS, name) ? FUNCTIONS[name] : undefined;
        if (!known) return fail(`unknown function "${name || fn.toString()}"; allowed: ${CALCULATOR_FUNCTIONS.join(", ")}.`);
        const [least, most] = known.arity;
        if (args.length < least || args.length > most) {
          fail(`${name} takes ${least === most ? least : `${least} to ${most}`} argument(s), got ${args.length}.`);
        }
        try {
          return known.apply(...args.map(visit));
        } catch (error) {
          if (ExpressionError.isInstance(error)) throw error;
          return fail(`${error instanceof Error ? error.message : String(error)}.`, error);
        }
      }
      default:
        return fail(`${node.type} is not allowed.`);
    }
  };
  // mathjs reads "a % -b" and "a% - b" alike, as a modulo by -b, though the second may mean "a
  // percent, minus b" (mathjs's own reading of "a% * b"): refused, so it cannot answer the wrong one.
  const refuseSignedModulo = (args: MathNode[]) => {
    type Operator = MathNode & { fn?: string; args?: MathNode[]; implicit?: boolean };
    const [left, operand] = args as [MathNode, Operator];
    let right = operand;
    // "50% -2 pi" is a modulo by (-2) * pi: the sign opens the implicit product.
    while (right.type === "OperatorNode" && right.implicit) right = right.args![0] as Operator;
    if (right.type !== "OperatorNode" || (right.fn !== "unaryMinus" && right.fn !== "unaryPlus")) return;
    const a = left.toString();
    const sign = right.fn === "unaryMinus" ? "-" : "+";
    const b = right === operand ? right.args![0]!.toString() : operand.toString().replace(/^[-+]/, "");
    fail(`"${a} % ${sign}${b}" is ambiguous: write "${a} % (${sign}${b})" or "mod(${a}, ${sign}${b})" for a modulo, or "${a} / 100 ${sign} ${b}" for a percentage.`);
  };
  let result: number;
  try {
    result = visit(root);
  } catch (error) {
    if (ExpressionError.isInstance(error)) throw error;
    return fail(`${error instanceof Error ? error.message : String(error)}.`, error);
  }
  if (!Number.isFinite(result)) fail(`the result is not a finite number (${result}).`);
  return result;
}
