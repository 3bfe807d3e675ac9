// Embedding a run's live view in your own page without ever giving the
// browser a workspace key (docs/service-rules.md#portal-sessions-and-browser-access):
// your server makes a short-lived browser-access grant bound to your page's
// exact origin, and the page sends that grant's token when it loads the live
// view. Deleting the grant (or letting it expire) closes the view; the run
// goes on.
//
//   GET /runs/{runId}/watch  -> a page that shows the run's live view
//
// Run against the emulator: packages/runtime/test/embedded-live-view.browser.test.ts.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { WorkflowRunClient } from "@wfr/runtime";

export interface EmbeddedLiveViewExample {
  /** This page's origin, the one exact origin its grants allow. */
  readonly origin: string;
  readonly server: Server;
  close(): Promise<void>;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The page: fetches the live view with the grant (an iframe cannot send a header) and shows it sandboxed. */
function page(runId: string, liveViewUrl: string, token: string): string {
  // JSON in a <script type="application/json"> block, escaped so it cannot close the tag.
  const config = JSON.stringify({ liveViewUrl, token }).replaceAll("<", "\\u003c");
  return `<!doctype html>
<meta charset="utf-8">
<title>Run ${escapeHtml(runId)}</title>
<h1>Watching run ${escapeHtml(runId)}</h1>
<p id="state">loading the live view...</p>
<iframe id="live" title="live view" sandbox="" style="width:100%;height:20rem"></iframe>
<script type="application/json" id="config">${config}</script>
<script type="module">
  const { liveViewUrl, token } = JSON.parse(document.getElementById("config").textContent);
  const state = document.getElementById("state");
  const answer = await fetch(liveViewUrl, { headers: { authorization: "Bearer " + token } });
  if (answer.ok) {
    document.getElementById("live").srcdoc = await answer.text();
    state.textContent = "live";
  } else {
    state.textContent = "the live view refused: " + answer.status;
  }
</script>
`;
}

/** Starts the example page server on 127.0.0.1 (port 0: a free one). */
export async function startEmbeddedLiveViewExample(
  client: WorkflowRunClient,
  port = 0,
): Promise<EmbeddedLiveViewExample> {
  let origin = "";
  const server = createServer(async (req, res) => {
    const match = /^\/runs\/([^/]+)\/watch$/.exec(req.url ?? "");
    if (req.method !== "GET" || !match) {
      res.writeHead(404).end();
      return;
    }
    try {
      const runId = decodeURIComponent(match[1] as string);
      const run = await client.getRun(runId);
      if (!run.live_view_url) {
        res.writeHead(409, { "content-type": "text/plain" }).end("the run has no session yet");
        return;
      }
      // Short-lived and bound to this page's origin: a leaked token opens nothing elsewhere.
      const grant = await client.createBrowserAccessGrant(runId, {
        origins: [origin],
        expiresInSeconds: 300,
      });
      res
        .writeHead(200, {
          "content-type": "text/html; charset=utf-8",
          "cache-control": "no-store",
          "referrer-policy": "no-referrer",
        })
        .end(page(runId, run.live_view_url, grant.token));
    } catch (error) {
      res
        .writeHead(502, { "content-type": "text/plain" })
        .end(`could not open the live view: ${(error as Error).name}`);
    }
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    server,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
