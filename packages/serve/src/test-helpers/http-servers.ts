// Test-only (not exported by the package): node:http servers on loopback ports, closed together
// by `closeServers()` in an afterEach.
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";

const servers: Server[] = [];

/** Starts `server` on a free port of 127.0.0.1 and returns its origin, e.g. `http://127.0.0.1:4123`. */
export async function listenOnLoopback(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Closes every server {@link listenOnLoopback} started, and their connections. */
export async function closeServers(): Promise<void> {
  await Promise.all(
    servers.splice(0).map((server) => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    }),
  );
}
