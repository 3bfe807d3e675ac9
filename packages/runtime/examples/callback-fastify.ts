// Receiving run callbacks with Fastify 5: hand the raw request to the node:http adapter.

import { createCallbackHandler, createClient } from "@wfr/runtime";
import { toNodeHandler } from "@wfr/runtime/node";
import Fastify from "fastify";

const wfr = createClient({
  baseUrl: "https://api.example.com/api/v1",
  apiKey: process.env.WFR_API_KEY ?? "",
});
const nodeHandler = toNodeHandler(
  createCallbackHandler({
    client: wfr,
    onRequiresAction: async ({ run }) => {
      console.log(`run ${run.run_id} waits for a person at ${run.human_action?.checkpoint_id}`);
    },
  }),
);

const app = Fastify();
// Leave the body unparsed so the handler can read the stream itself.
app.removeAllContentTypeParsers();
app.addContentTypeParser("*", (_request, _payload, done) => done(null));
app.post("/wfr/callbacks", async (request, reply) => {
  reply.hijack();
  await nodeHandler(request.raw, reply.raw);
});
await app.listen({ port: 3000 });
