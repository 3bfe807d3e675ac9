// The web application's pages of a connector's sign-in (OAuth, agent/oauth/ in the emulator):
// the person's consent for one environment, and a refusal that sends nothing back.
import { html, type SafeHtml } from "./html.js";

/** A connector's sign-in: the person chooses the environment the agent may use, or declines. */
export function oauthConsentPage(o: {
  clientName: string;
  redirectUri: string;
  request: string;
  environments: { name: string; workspace: string }[];
  csrf: string;
}): SafeHtml {
  return html`<h1>Connect an agent</h1>
<p><strong>${o.clientName}</strong> asks to use the agent (MCP) endpoint as you. With the access it gets, it can list and describe workflows, author drafts, launch and watch runs and explain human waits in the environment you choose; a person still answers checkpoints and enables drafts. The REST API refuses its token.</p>
<p>After your answer the browser goes back to <code>${o.redirectUri}</code>.</p>
<form method="post" action="/_app/oauth/authorize" class="card"><input type="hidden" name="csrf" value="${o.csrf}"><input type="hidden" name="request" value="${o.request}">
<label>Environment <select name="environment">${o.environments.map((e) => html`<option value="${e.name}">${e.name} (workspace ${e.workspace})</option>`)}</select></label>
<button type="submit" name="decision" value="approve">Allow</button> <button type="submit" name="decision" value="deny">Decline</button></form>`;
}

/** A sign-in request that cannot be trusted enough to send anything back to the connector. */
export function oauthRefusedPage(message: string): SafeHtml {
  return html`<h1>Sign-in refused</h1><p>${message}</p><p>Nothing was sent back to the agent. Start the connection again from the agent.</p>`;
}
