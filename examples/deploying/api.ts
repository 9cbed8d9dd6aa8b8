// api.ts: the HTTP API in front of the workers: submit, follow (Server-Sent Events), cancel, resume.
//   REDIS_URL=redis://127.0.0.1:6379 DATABASE_URL=postgres://postgres@127.0.0.1:5432/app PORT=3000 npx tsx api.ts
import { type IncomingMessage, createServer } from "node:http";
import { RunClient, serveRunEvents } from "@agentrx/bullmq";
import type { Decision } from "@agentrx/executors";
import { PostgresRunStore } from "@agentrx/runs";

const store = new PostgresRunStore({ connectionString: process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/app" });
const client = new RunClient({ connection: { url: process.env.REDIS_URL ?? "redis://127.0.0.1:6379" }, store });

async function body(req: IncomingMessage): Promise<Record<string, unknown>> {
  let text = "";
  for await (const chunk of req) text += chunk;
  return text === "" ? {} : (JSON.parse(text) as Record<string, unknown>);
}

// POST /runs {input, threadId?} · GET /runs/:id (the result) · GET /runs/:id/events (SSE)
// POST /runs/:id/cancel · POST /runs/:id/resume {decisions?}
const server = createServer(async (req, res) => {
  const [, runs, runId, action] = (req.url ?? "").replace(/\?.*/, "").split("/");
  try {
    if (runs !== "runs") return void res.writeHead(404).end();
    if (req.method === "POST" && runId === undefined) {
      const { input, threadId } = await body(req);
      const id = await client.submit("support", { input }, typeof threadId === "string" ? { threadId } : {});
      return void res.writeHead(202, { "Content-Type": "application/json" }).end(JSON.stringify({ runId: id }));
    }
    if (runId === undefined) return void res.writeHead(404).end();
    if (action === "events") return void (await serveRunEvents(client, runId, req, res));
    if (req.method === "POST" && action === "cancel") {
      await client.cancel(runId);
      return void res.writeHead(202).end();
    }
    if (req.method === "POST" && action === "resume") {
      const { decisions } = await body(req);
      await client.resume(runId, decisions === undefined ? {} : { decisions: decisions as Record<string, Decision> });
      return void res.writeHead(202).end();
    }
    if (req.method === "GET" && action === undefined) {
      return void res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(await client.result(runId)));
    }
    res.writeHead(404).end();
  } catch (error) {
    res.writeHead(400, { "Content-Type": "text/plain" }).end(`${(error as Error).message}\n`);
  }
});
process.on("SIGTERM", () => {
  server.close();
  void client.close().then(() => store.close()).then(() => process.exit(0));
});
server.listen(Number(process.env.PORT ?? 3000), () => console.log(`api listening on ${process.env.PORT ?? 3000}`));
