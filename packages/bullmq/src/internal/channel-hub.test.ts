import { EventEmitter } from "node:events";
import type { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { ChannelHub } from "./channel-hub";

/** A subscriber connection as ioredis has it, with the PING answer in the test's hands. */
function fakeSubscriber() {
  const emitter = new EventEmitter();
  const pings: (() => void)[] = [];
  const subscriber = Object.assign(emitter, {
    status: "ready",
    subscribe: async () => 1,
    unsubscribe: async () => 0,
    ping: () => new Promise<string>((resolve) => pings.push(() => resolve("PONG"))),
  });
  return { subscriber: subscriber as unknown as Redis, emitter, pings };
}

describe("ChannelHub", () => {
  it("tells its reconnect listeners once the channels are subscribed again, not at ioredis' ready (which comes before the SUBSCRIBEs)", async () => {
    const { subscriber, emitter, pings } = fakeSubscriber();
    const hub = new ChannelHub(subscriber);
    let heard = 0;
    hub.onReconnect(() => heard++);
    emitter.emit("ready"); // back after a disconnect: ioredis sends the SUBSCRIBEs after this
    expect(heard).toBe(0);
    expect(pings).toHaveLength(1); // a PING, answered after those SUBSCRIBEs
    pings[0]?.();
    await expect.poll(() => heard).toBe(1);
  });
});
