// What the run engine calls back into: synthesized outputs (file outputs become /_files links)
// and callback notifications (with the delivery faults armed from the admin API or the web app).
import type { PendingCallback } from "../engine/callbacks.js";
import { iso } from "../engine/clock.js";
import {
  collectFileMarkers,
  type FileMarker,
  markerBytes,
  replaceFileMarkers,
} from "../engine/file-markers.js";
import type { NotifyType } from "../engine/run-engine.js";
import { envelope, resultView } from "../engine/run-views.js";
import { synthesizeOutputs } from "../engine/synthesize-outputs.js";
import { newId } from "../model/ids.js";
import type { RunRecord } from "../model/types.js";
import { type EngineHookState, useDeliveryFault } from "../state/emulator-state.js";

/** Deterministic bytes of a synthesized file output (a tiny PDF). */
export function fileBytes(runId: string, n: number, filename: string): Buffer {
  return Buffer.from(
    `%PDF-1.4\n% ${filename} (output ${n} of run ${runId}), synthesized by wfr-emulator\n%%EOF\n`,
  );
}

/** A file name safe in a URL path segment and a Content-Disposition header. */
function safeFilename(name: string, fallback: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, "_").replace(/^\.+/, "") || fallback;
}

/** The scenario's `$file` markers in `outputs` as download references served under /_files/. */
export function fileOutputs(
  st: Pick<EngineHookState, "clock" | "links">,
  run: RunRecord,
  outputs: Record<string, unknown>,
): Record<string, unknown> {
  const base = st.links(run.environment).envBase;
  return replaceFileMarkers(outputs, (marker, n) => {
    const filename = safeFilename(marker.filename, "file");
    return {
      download_url: `${base}/_files/${encodeURIComponent(run.run_id)}/${n}/${filename}`,
      filename: marker.filename,
      mime_type: marker.mime_type,
      size_bytes: markerBytes(marker).length,
      expires_at: iso(st.clock.now() + 3_600_000),
    };
  }) as Record<string, unknown>;
}

/**
 * The n-th `$file` marker (from 1) of the run's succeed step, when the served name is that
 * marker's (outputs synthesized instead, after a fault, are numbered the same way).
 */
export function scenarioFile(
  run: RunRecord,
  n: number,
  servedName: string,
): FileMarker | undefined {
  const step = run.scenario.steps.find((s) => "succeed" in s && s.succeed.outputs);
  if (!step || !("succeed" in step)) return undefined;
  const marker = collectFileMarkers(step.succeed.outputs)[n - 1];
  return marker && safeFilename(marker.filename, "file") === servedName ? marker : undefined;
}

export function synthesize(st: EngineHookState, run: RunRecord): Record<string, unknown> {
  const wf = st.envs.get(run.environment)?.def.workflows.get(run.workflow_id);
  let n = 0;
  const base = st.links(run.environment).envBase;
  return synthesizeOutputs(wf?.outputs ?? {}, run.run_id, {
    file: (field) => {
      n += 1;
      const filename = `${(field.split(".").pop() ?? "file").replace(/[^A-Za-z0-9_-]/g, "_") || "file"}.pdf`;
      return {
        download_url: `${base}/_files/${encodeURIComponent(run.run_id)}/${n}/${filename}`,
        filename,
        mime_type: "application/pdf",
        size_bytes: fileBytes(run.run_id, n, filename).length,
        expires_at: iso(st.clock.now() + 3_600_000),
      };
    },
  });
}

export function notify(st: EngineHookState, run: RunRecord, type: NotifyType): void {
  if (!run.callback_url) return;
  const payload: Record<string, unknown> = {
    event_id: newId("evt"),
    type,
    run: envelope(run, st.links(run.environment)),
  };
  if (type === "workflow.run.completed") payload.result = resultView(run);
  const cb: PendingCallback = {
    event_id: payload.event_id as string,
    environment: run.environment,
    run_id: run.run_id,
    type,
    url: run.callback_url,
    body: JSON.stringify(payload),
  };
  st.holdCallback(cb, payload);
  // Delivery faults armed from the admin API (delivery-faults.ts): late, and/or twice.
  const fault = useDeliveryFault(st, run.run_id, st.deliveryFaults.forCallback(run.run_id));
  if (fault === null) {
    st.dispatcher.send(cb);
    return;
  }
  const late = fault.delayMs > 0 ? { delayMs: fault.delayMs, injected: "late" as const } : {};
  st.dispatcher.send(cb, 1, undefined, late);
  if (fault.twice) st.dispatcher.send(cb, 1, undefined, { ...late, injected: "twice" });
}
