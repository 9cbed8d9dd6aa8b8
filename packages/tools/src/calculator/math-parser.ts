import { all, create } from "mathjs";

// A private mathjs instance used only to parse (loaded on the calculator's first use, see
// evaluate-expression.ts). Everything that could define, import or evaluate code is replaced by a
// function that throws, in case anything ever reached it; evaluation walks the parsed tree itself
// and knows only numbers, operators and the calculator's functions.
const math = create(all!, { number: "number" });
/** mathjs's parser, from the locked-down instance (taken before `parse` itself is disabled below). @internal */
export const parse = math.parse;
const disabled = (name: string) => () => {
  throw new Error(`${name} is disabled in the calculator.`);
};
math.import(
  Object.fromEntries(
    ["import", "createUnit", "evaluate", "parse", "compile", "simplify", "derivative", "resolve", "reviver", "replacer"].map(
      (name) => [name, disabled(name)],
    ),
  ),
  { override: true },
);
