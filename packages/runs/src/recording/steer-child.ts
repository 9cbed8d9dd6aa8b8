// Test-only: a process that only sends a message to a run another process is running (the
// steering test): it holds no lease and writes only to the run's inbox.
import { sendRunMessage } from "@agentrx/executors";
import { type ChildStoreTarget, openChildStore } from "./child-store";

const args = JSON.parse(process.argv[2] as string) as { store: ChildStoreTarget; runId: string; message: string };
const store = openChildStore(args.store);
try {
  const result = await sendRunMessage(args.runId, args.message, { store, operation: "steer-child" });
  process.stdout.write(JSON.stringify({ ok: result }));
} catch (error) {
  process.stdout.write(JSON.stringify({ error: (error as Error).name, message: (error as Error).message }));
} finally {
  await store.close();
}
