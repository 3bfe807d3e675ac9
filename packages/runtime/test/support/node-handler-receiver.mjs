// A callback receiver as the runtime README's node:http example runs it, in a process of its
// own so that its peak memory can be read (from /proc, by the test).
import { createServer } from "node:http";
import { createCallbackHandler } from "../../dist/index.js";
import { toNodeHandler } from "../../dist/node.js";

const handler = createCallbackHandler({
  webhookSecret: `whsec_${Buffer.from("a".repeat(32)).toString("base64")}`,
  client: {
    getRun: async () => {
      throw new Error("not reached: every delivery here is unsigned");
    },
    getResult: async () => {
      throw new Error("not reached: every delivery here is unsigned");
    },
  },
  onCompleted: () => {},
});
const server = createServer(toNodeHandler(handler));
server.listen(0, "127.0.0.1", () => process.send(server.address().port));
