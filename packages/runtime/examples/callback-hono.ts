// Receiving run callbacks with Hono: it speaks Web Request/Response, so the handler plugs in directly.
import { serve } from "@hono/node-server";
import { createCallbackHandler, createClient } from "@wfr/runtime";
import { Hono } from "hono";

const wfr = createClient({
  baseUrl: "https://api.example.com/api/v1",
  apiKey: process.env.WFR_API_KEY ?? "",
});
const callbacks = createCallbackHandler({
  client: wfr,
  onCompleted: async ({ callback, run }) => {
    console.log(`event ${callback.event_id}: run ${run.run_id} is ${String(run.status)}`);
  },
});

const app = new Hono();
app.post("/wfr/callbacks", (context) => callbacks(context.req.raw));
serve({ fetch: app.fetch, port: 3000 });
