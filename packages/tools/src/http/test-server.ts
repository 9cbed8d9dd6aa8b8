import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A loopback HTTP server for tests: records requests; `close` ends every connection. */
export interface TestServer {
  origin: string;
  port: number;
  requests: IncomingMessage[];
  close(): Promise<void>;
}

export async function startTestServer(handler: (request: IncomingMessage, response: ServerResponse) => void): Promise<TestServer> {
  const requests: IncomingMessage[] = [];
  const server: Server = createServer((request, response) => {
    requests.push(request);
    handler(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
