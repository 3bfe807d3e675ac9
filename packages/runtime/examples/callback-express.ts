// Receiving run callbacks with Express 5: mount the Web handler through the node:http adapter.

import { createCallbackHandler, createClient } from "@wfr/runtime";
import { toNodeHandler } from "@wfr/runtime/node";
import express from "express";

const wfr = createClient({
  baseUrl: "https://api.example.com/api/v1",
  apiKey: process.env.WFR_API_KEY ?? "",
});
const callbacks = createCallbackHandler({
  client: wfr,
  onCompleted: async ({ run }) => {
    console.log(`run ${run.run_id} finished: ${String(run.status)}`);
  },
});

const app = express();
// No body parser on this route: the handler reads the raw body itself.
app.post("/wfr/callbacks", toNodeHandler(callbacks));
app.listen(3000);
