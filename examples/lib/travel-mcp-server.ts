// A small MCP server, written with the official SDK, that examples/mcp.ts and docs/mcp.md start
// as a child process over stdio:
//
//   node --import tsx examples/lib/travel-mcp-server.ts
//
// Two tools: a read-only forecast (annotated `readOnlyHint`) and a hotel booking that changes
// things. The booking listens to its request's `signal`, so a cancelled run stops it here.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "travel", version: "1.0.0" });
const forecasts: Record<string, string> = { lisbon: "sunny, 24°C", porto: "showers, 17°C" };

server.registerTool(
  "get_forecast",
  {
    description: "The weather forecast for a city.",
    inputSchema: { city: z.string().describe("The city, e.g. Lisbon"), days: z.number().int().min(1).max(7).optional() },
    annotations: { readOnlyHint: true },
  },
  async ({ city, days }) => ({
    content: [{ type: "text", text: `${city}${days ? `, next ${days} days` : ""}: ${forecasts[city.toLowerCase()] ?? "cloudy, 15°C"}` }],
  }),
);

server.registerTool(
  "book_hotel",
  {
    description: "Books a hotel room.",
    inputSchema: { city: z.string(), nights: z.number().int().min(1).max(30), guest: z.object({ name: z.string(), email: z.string().email() }) },
    annotations: { readOnlyHint: false, destructiveHint: false },
  },
  async ({ city, nights, guest }, { signal }) => {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, 200); // the booking system is slow
      signal.addEventListener("abort", () => {
        clearTimeout(timer);
        reject(new Error("booking cancelled"));
      });
    });
    if (!forecasts[city.toLowerCase()]) return { isError: true, content: [{ type: "text", text: `No hotels in ${city}.` }] };
    return { content: [{ type: "text", text: `Booked ${nights} nights in ${city} for ${guest.name}; confirmation H-${city.length}${nights}.` }] };
  },
);

await server.connect(new StdioServerTransport());
