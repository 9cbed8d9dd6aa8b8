import { describe, expect, it } from "vitest";
import { decodeWire, type WireItem } from "../internal/wire";
import { WirePublisher } from "./wire-publisher";

/** A Redis connection that records what would be written, write by write. */
function recordingRedis(fail?: Error) {
  const writes: [string, WireItem[]][][] = [];
  const redis = {
    publish: async (channel: string, message: string) => {
      writes.push([[channel, decodeWire(message)]]);
      if (fail) throw fail;
      return 1;
    },
    pipeline: () => {
      const batch: [string, WireItem[]][] = [];
      const pipeline = {
        publish: (channel: string, message: string) => (batch.push([channel, decodeWire(message)]), pipeline),
        exec: async () => (writes.push(batch), batch.map(() => [fail ?? null, 1])),
      };
      return pipeline;
    },
  };
  return { redis: redis as never, writes };
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
const token = (text: string): WireItem => ({ live: { segment: 1, iteration: 0, offset: 0, text, at: 0 } });

describe("WirePublisher", () => {
  it("sends what many runs publish in one turn of the event loop in one write, one message a run, in order", async () => {
    const { redis, writes } = recordingRedis();
    const publisher = new WirePublisher(redis, (error) => expect.fail(String(error)));
    publisher.send("run:a", [token("a1")]);
    publisher.send("run:b", [token("b1")]);
    publisher.send("run:a", [token("a2"), token("a3")]);
    expect(writes).toEqual([]); // nothing until the turn ends
    await turn();
    expect(writes).toEqual([[["run:a", [token("a1"), token("a2"), token("a3")]], ["run:b", [token("b1")]]]]);
    publisher.send("run:a", [token("a4")]);
    await turn();
    expect(writes.at(-1)).toEqual([["run:a", [token("a4")]]]); // one channel: a plain PUBLISH
    expect(writes).toHaveLength(2);
  });

  it("publishes at once on flush (a run's end), and has nothing left for the turn's end", async () => {
    const { redis, writes } = recordingRedis();
    const publisher = new WirePublisher(redis, (error) => expect.fail(String(error)));
    publisher.send("run:a", [token("last")]);
    publisher.flush();
    expect(writes).toEqual([[["run:a", [token("last")]]]]);
    await turn();
    expect(writes).toHaveLength(1);
  });

  it("reports a failed publish to onError, from a single message and from a pipeline", async () => {
    const errors: unknown[] = [];
    const { redis } = recordingRedis(new Error("connection lost"));
    const publisher = new WirePublisher(redis, (error) => errors.push(error));
    publisher.send("run:a", [token("x")]);
    await turn();
    publisher.send("run:a", [token("y")]);
    publisher.send("run:b", [token("z")]);
    await turn();
    await turn();
    expect(errors.map((error) => (error as Error).message)).toEqual(["connection lost", "connection lost", "connection lost"]);
  });
});
