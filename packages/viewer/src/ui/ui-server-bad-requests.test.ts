// The ui server answers bad requests with 400 (or 422 for a record it cannot compare), naming the
// problem, never with 500: a NUL character in a run id or thread, a bad list filter, the diff of a
// damaged record.
import { MemoryRunStore } from "@agentrx/runs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordTripRun, writeDamagedRun, writeSyntheticRun } from "../trace/trace-test-fixtures";
import { type UiServer, startUiServer } from "./start-ui-server";

let server: UiServer;
const errors: string[] = [];
const store = new MemoryRunStore();

beforeAll(async () => {
  await recordTripRun(store, { scale: 0.01 });
  await writeSyntheticRun(store, { runId: "short", iterations: 1, toolsPerIteration: 1 });
  await writeDamagedRun(store, "damaged");
  server = await startUiServer({ store, source: "memory", port: 0, onError: (message) => errors.push(message) });
});

afterAll(async () => {
  await server?.close();
});

const get = (path: string) => fetch(`${server.url}${path}`);

describe("agentrx ui server: bad requests", () => {
  it("answers 400 naming the problem for a run id or thread with a NUL character, which no store can hold", async () => {
    for (const path of ["/runs/%00", "/runs/a%00b", "/api/runs/%00/events", "/api/runs/%00/text?seq=1&field=output", "/diff?a=%00&b=trip-1", "/?thread=%00"]) {
      const response = await get(path);
      expect(response.status, path).toBe(400);
      expect(await response.text(), path).toMatch(/NUL/);
    }
    const api = await get("/api/runs?thread=%00");
    expect(api.status).toBe(400);
    expect(((await api.json()) as { error: string }).error).toMatch(/threadId .*NUL/);
    expect(errors).toEqual([]); // the request's mistake, not the server's
  });

  it("answers 400 for a list filter it does not understand, instead of ignoring it or failing", async () => {
    for (const [query, problem] of [
      ["status=bogus", /Unknown status "bogus" in `status`: use one or more of queued, running/],
      ["status=finished,Finished", /Unknown status "Finished"/],
      ["limit=1.5", /`limit` must be an integer >= 1, got "1.5"/],
      ["limit=0", /`limit` must be an integer >= 1/],
      ["limit=abc", /`limit` must be an integer >= 1/],
      ["limit=000", /`limit` must be an integer >= 1/],
      ["limit=1e3", /`limit` must be an integer >= 1/],
      ["limit=-5", /`limit` must be an integer >= 1/],
      // A search without a word would list every run; one given twice would drop one of them.
      ["search=%3F%3F", /`search` "\?\?" has no word to search for: give words \(letters or digits\)/],
      ["search=%20", /`search` " " has no word to search for/],
      ["search=paris&search=nice", /`search` is given 2 times: give it once/],
      [`search=${"a".repeat(201)}`, /`search` is 201 characters long: give at most 200/],
      ["sort=price", /Unknown sort "price" in `sort`: use created \(the default: newest first\), updated \(last written first\) or cost \(most expensive first\)/],
    ] as const) {
      const response = await get(`/api/runs?${query}`);
      expect(response.status, query).toBe(400);
      expect(((await response.json()) as { error: string }).error, query).toMatch(problem);
      expect((await get(`/?${query}`)).status, query).toBe(400);
    }
    // What the list page sends still works.
    const runs = (await (await get("/api/runs?status=finished,failed&limit=1&thread=support-42")).json()) as { runs: { runId: string }[]; limit: number };
    expect(runs).toMatchObject({ runs: [{ runId: "trip-1" }], limit: 1 });
    expect((await get("/api/runs?status=&limit=")).status).toBe(200);
    // Any whole number from 1 is a limit, capped at the list's: a large one, or one written with leading zeros.
    for (const limit of ["00001", "1000000000", "99999999999999999999"]) {
      const response = await get(`/api/runs?limit=${limit}`);
      expect(response.status, limit).toBe(200);
      expect(((await response.json()) as { limit: number }).limit, limit).toBe(limit === "00001" ? 1 : 200);
    }
    expect((await get("/api/runs?search=")).status).toBe(200); // an empty box: no search
    expect((await get(`/api/runs?search=${"a".repeat(200)}`)).status).toBe(200);
  });

  it("answers 400 naming the parameter for a whole text asked without a valid seq or field, 404 for one the record does not hold", async () => {
    for (const [query, problem] of [
      ["field=output", /`seq` must be the number of one of the run's events \(an integer >= 1\), got none/],
      ["seq=abc&field=output", /got "abc"/],
      ["seq=0&field=output", /got "0"/],
      ["seq=1.5&field=output", /got "1.5"/],
      ["seq=2", /`field` must name a text of the event/],
      ["seq=2&field=", /`field` must name a text of the event/],
    ] as const) {
      const response = await get(`/api/runs/trip-1/text?${query}`);
      expect(response.status, query).toBe(400);
      expect(((await response.json()) as { error: string }).error, query).toMatch(problem);
    }
    expect((await get("/api/runs/trip-1/text?seq=100000&field=output")).status).toBe(404);
    expect((await get("/api/runs/trip-1/text?seq=1&field=inputs")).status).toBe(200);
  });

  it("refuses to compare a damaged record with 422, naming the run and its bad event, and links to its trace page", async () => {
    for (const path of ["/diff?a=trip-1&b=damaged", "/diff?a=damaged&b=trip-1"]) {
      const response = await get(path);
      expect(response.status, path).toBe(422);
      const page = await response.text();
      expect(page).toMatch(/Run &#34;damaged&#34; cannot be compared: its record is damaged \(event 4 cannot be decoded: .+\)/);
      expect(page).toContain('<a href="/runs/damaged">Its trace page</a>');
    }
    expect(errors).toEqual([]);
  });

  it("compares two runs of different lengths", async () => {
    const response = await get("/diff?a=short&b=trip-1");
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("agentrx-data");
  });
});

describe("startUiServer's option values", () => {
  it.each([
    [{ port: "4477x" }, "port", "an integer from 0 (any free port) to 65535"],
    [{ port: 70_000 }, "port", "an integer from 0"],
    [{ listLimit: 0 }, "listLimit", "an integer >= 1"],
    [{ pollMs: Number.NaN }, "pollMs", "a number of milliseconds > 0"],
    [{ store: undefined }, "store", "a RunStore that lists runs"],
    [{ source: "" }, "source", "a non-empty string"],
    [{ onError: "log" }, "onError", "a function"],
  ])("refuses %j, naming it, before listening", async (override, argument, expected) => {
    const error = await startUiServer({ store, source: "memory", port: 0, ...override } as never).then(
      (started) => (void started.close(), undefined),
      (thrown: unknown) => thrown,
    );
    expect(error).toMatchObject({ name: "InvalidArgumentError", argument });
    expect((error as Error).message).toContain(`startUiServer: \`${argument}\` must be ${expected}`);
  });
});

describe("a query string that does not decode", () => {
  it.each(["/?thread=%ff", "/api/runs?q=%E2%82", "/?thread=50%"])("is refused with 400, not read as U+FFFD: %s", async (path) => {
    const response = await get(path);
    expect(response.status).toBe(400);
    expect(await response.text()).toMatch(/malformed query string/i);
  });

  it("leaves a well-formed escape alone", async () => {
    expect((await get("/api/runs?q=%E2%82%AC")).status).toBe(200);
  });
});
