// The web application's view of the emulator: the host object (web-app/host.ts) it is given.

import { CODE, SCOPES, type Scope } from "@wfr/protocol";
import { livePortalSession } from "../access/portal-sessions.js";
import { parseFault } from "../admin/admin-routes.js";
import { consentFor, decide } from "../agent/oauth/consent.js";
import {
  createPersonalAccessToken,
  listPersonalAccessTokens,
  revokePersonalAccessToken,
} from "../agent/personal-access-tokens.js";
import { recordingBytes, recordingState } from "../engine/recording.js";
import { faultLabel } from "../faults/api-faults.js";
import { HttpError } from "../http/http-kit.js";
import type { RunListing } from "../model/types.js";
import {
  adminEnv,
  armApiFault,
  armDeliveryFault,
  createKey,
  removeApiFault,
  setWorkflowState,
  type WebAppState,
} from "../state/emulator-state.js";
import type { WebAppHost } from "../web-app/host.js";

export function webAppHost(st: WebAppState): WebAppHost {
  return {
    signIn: st.signIn,
    scopes: SCOPES,
    now: () => st.clock.now(),
    environments: () => [...st.envs.values()],
    links: (env) => st.links(env),
    runs: () => {
      if (!st.clock.virtual) st.engine.tick();
      const runs: RunListing[] = [...st.engine.runs.values()];
      for (const r of st.engine.runs.values()) st.engine.process(r);
      if (st.archive) runs.push(...st.archive.listings());
      return runs;
    },
    run: (env, runId) => {
      const run = st.engine.find(runId);
      if (!run || run.environment !== env) return undefined;
      st.engine.process(run);
      return run;
    },
    openDeveloperSession: () =>
      st.openPortalSession({ environment: "*", workspace: "*", everywhere: true }),
    developerSession: (req) => {
      const m = /(?:^|;\s*)wfr_portal_session=([^;\s]+)/.exec(req.headers.cookie ?? "");
      return m?.[1] && livePortalSession(st.portalSessions, m[1])?.everywhere ? m[1] : null;
    },
    closeDeveloperSession: (id) => st.closePortalSession(id),
    sameOrigins: () => st.sameOrigins(),
    relaunch: async (run, inputs) => {
      // Through the public API with the web app's in-memory key of the run's workspace: the same
      // checks, idempotency and journal as any launch, and the run is marked as started in the app.
      const referenced = JSON.stringify(inputs);
      const attachments = run.attachments
        .filter((a) => referenced.includes(JSON.stringify(a.id)))
        .map((a) => ({
          id: a.id,
          filename: a.filename,
          mimeType: a.mimeType,
          base64: Buffer.from(
            `${a.filename}: the emulator keeps no attachment bytes; recorded ${a.size_bytes} bytes\n`,
          ).toString("base64"),
        }));
      const exposesModel =
        st.envs.get(run.environment)?.def.workflows.get(run.workflow_id)?.model === true;
      const body = {
        inputs,
        metadata: run.metadata,
        ...(exposesModel && run.model !== null ? { model: run.model } : {}),
        ...(attachments.length > 0 ? { input_context: { attachments } } : {}),
      };
      const answer = await fetch(
        `${st.links(run.environment).apiBase}/automations/${encodeURIComponent(run.workflow_id)}/runs`,
        {
          method: "POST",
          headers: {
            authorization: `Bearer ${st.agents.appKey(run.environment, run.workspace)}`,
            "content-type": "application/json",
          },
          body: JSON.stringify(body),
        },
      );
      const json = (await answer.json()) as {
        run_id?: string;
        code?: string;
        error?: string;
        details?: { field: string; reason: string }[];
      };
      if (answer.status === 202 && typeof json.run_id === "string")
        return { ok: true, runId: json.run_id };
      const details = (json.details ?? []).map((d) => `${d.field}: ${d.reason}`).join(", ");
      return {
        ok: false,
        message:
          `not launched: ${json.code ?? answer.status} ${json.error ?? ""}${details ? ` (${details})` : ""}`.trim(),
      };
    },
    answer: (run, checkpointId, response) => {
      // The same engine path and conflict rules as POST /runs/{runId}/human-input.
      const out = st.engine.answer(run, checkpointId === "" ? undefined : checkpointId, response);
      switch (out.kind) {
        case "accepted":
          return { ok: true, message: "Answer accepted: the run resumes." };
        case "idempotent":
          return { ok: true, message: "This answer was already accepted; nothing changed." };
        case "conflict":
          return { ok: false, message: `Not stored: ${out.message}.` };
        case "not_waiting":
          return { ok: false, message: "Not stored: the run is not waiting for a person." };
        case "expired":
          return { ok: false, message: "Not stored: the wait expired." };
      }
    },
    inject: (run, kind, body) => {
      const refused = st.engine.inject(run, parseFault(kind, body));
      return refused;
    },
    // The same function as the admin API's callback-* fault rows (admin-routes.ts).
    armDeliveryFault: (run, kind, body) => {
      try {
        armDeliveryFault(st, run, kind, body);
        return null;
      } catch (e) {
        if (e instanceof HttpError) return e.message;
        throw e;
      }
    },
    listApiFaults: () =>
      st.apiFaults.list().map((f) => ({
        id: f.id,
        route: f.route,
        environment: f.environment,
        workspace: f.workspace,
        what: faultLabel(f.action),
        remaining: f.remaining,
        probability: f.probability,
        hits: f.hits,
      })),
    armApiFault: (body) => {
      try {
        armApiFault(st, body);
        return null;
      } catch (e) {
        if (e instanceof HttpError) return e.message;
        throw e;
      }
    },
    removeApiFault: (id) => removeApiFault(st, id),
    resendCallback: (env, eventId) => {
      const e = st.envs.get(env);
      return e ? st.resendCallback(e, eventId) : false;
    },
    listKeys: () =>
      [...st.keys.values()].map((k) => ({
        id: k.token_sha256.slice(0, 16),
        environment: k.environment,
        workspace: k.workspace,
        scopes: k.scopes,
      })),
    createKey: (env, scopes) => {
      const e = adminEnv(st, env);
      return createKey(st, e, e.def.workspace, scopes as Scope[]).token;
    },
    revokeKey: (id) => {
      const key = [...st.keys.values()].find((k) => k.token_sha256.slice(0, 16) === id);
      if (!key) return false;
      st.commit({ t: "key_revoked", token_sha256: key.token_sha256 });
      return true;
    },
    oauthConsent: (params) => consentFor(st.agents.oauth, params, st.origin),
    oauthDecide: (params, decision) => {
      if (!decision.approve) return decide(st.agents.oauth, params, decision, st.origin);
      const e = adminEnv(st, decision.environment);
      return decide(
        st.agents.oauth,
        params,
        { approve: true, environment: e.def.name, workspace: e.def.workspace },
        st.origin,
      );
    },
    listTokens: () => listPersonalAccessTokens(st.agents.personalAccessTokens),
    createToken: (env) => {
      const e = adminEnv(st, env);
      return createPersonalAccessToken(st.agents.personalAccessTokens, {
        environment: e.def.name,
        workspace: e.def.workspace,
      }).token;
    },
    revokeToken: (id) => revokePersonalAccessToken(st.agents.personalAccessTokens, id),
    resetEnvironment: (env) => {
      const e = adminEnv(st, env);
      st.commit({ t: "reset", env: e.def.name });
    },
    setWorkflowState: (env, workflowId, state) => {
      const e = adminEnv(st, env);
      const wf = e.def.workflows.get(workflowId);
      if (!wf) throw new HttpError(404, CODE.WORKFLOW_NOT_FOUND, "workflow not found");
      setWorkflowState(st, e, wf, state);
    },
    // The web application's recording downloads do not count against the API budget.
    recording: (run) => {
      const rs = recordingState(run, st.clock.now());
      return { state: rs.kind, bytes: rs.kind === "ready" ? recordingBytes() : null };
    },
  };
}
