// Test-only (not exported by the package): a Node http server on a loopback port and clients that
// never read what it sends, for the backpressure tests of the streams AgentRx serves (these and
// @agentrx/serve's). `closeLoopback()` in an afterEach closes both.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { type AddressInfo, type Socket, connect } from "node:net";

let server: Server | undefined;
const sockets: Socket[] = [];

/** Starts a server with `handler` on 127.0.0.1 and returns its origin, e.g. `http://127.0.0.1:4123`. */
export async function startLoopback(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  server = createServer(handler);
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A client that sends `request` (a raw HTTP/1.1 request, GET / by default) and never reads the answer. */
export function stalledClient(origin: string, request = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"): Promise<Socket> {
  return new Promise((resolve) => {
    const socket = connect(Number(new URL(origin).port), "127.0.0.1", () => {
      socket.write(request);
      socket.pause();
      resolve(socket);
    });
    sockets.push(socket);
  });
}

/** Destroys the clients and closes the server. */
export async function closeLoopback(): Promise<void> {
  for (const socket of sockets.splice(0)) socket.destroy();
  if (server === undefined) return;
  server.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
}
