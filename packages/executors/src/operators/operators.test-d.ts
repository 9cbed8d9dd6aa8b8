import {
  finalAnswerTokens,
  ofType,
  printTrace,
  renderTrace,
  stopWhenAny,
  timeBudget,
  tokenBudget,
  toolCallBudget,
  type AgentStreamEvent,
  type BudgetSpent,
  type OutputEvent,
  type StepEvent,
  type TokenEvent,
  type StopCondition,
} from "@agentrx/executors";
import type { MonoTypeOperatorFunction, Observable, OperatorFunction } from "rxjs";
import { describe, expectTypeOf, it } from "vitest";

describe("operator types", () => {
  it("budgets are stop conditions that emit BudgetSpent", () => {
    expectTypeOf(tokenBudget(10)).toEqualTypeOf<OperatorFunction<AgentStreamEvent, BudgetSpent>>();
    expectTypeOf(toolCallBudget(1)).toMatchTypeOf<StopCondition>();
    expectTypeOf(timeBudget(1)).toMatchTypeOf<StopCondition>();
    expectTypeOf(stopWhenAny(tokenBudget(10), timeBudget(5))).toEqualTypeOf<StopCondition>();
    // @ts-expect-error count is "total" | "input" | "output"
    tokenBudget(10, { count: "prompt" });
  });

  it("finalAnswerTokens maps events to strings; renderTrace passes events through", () => {
    expectTypeOf(finalAnswerTokens()).toEqualTypeOf<OperatorFunction<AgentStreamEvent, string>>();
    expectTypeOf(renderTrace()).toEqualTypeOf<MonoTypeOperatorFunction<AgentStreamEvent>>();
    expectTypeOf(printTrace).parameter(0).toEqualTypeOf<Observable<AgentStreamEvent>>();
    expectTypeOf(printTrace).returns.toEqualTypeOf<Promise<OutputEvent>>();
    // @ts-expect-error colors is a boolean or "auto"
    renderTrace({ colors: "always" });
  });

  it("ofType narrows the event union", () => {
    expectTypeOf(ofType("step")).toEqualTypeOf<OperatorFunction<AgentStreamEvent, StepEvent>>();
    expectTypeOf(ofType("token", "output")).toEqualTypeOf<OperatorFunction<AgentStreamEvent, TokenEvent | OutputEvent>>();
    // @ts-expect-error not an event type
    ofType("finish");
    // @ts-expect-error at least one type
    ofType();
  });
});
