// The app each generated client runs: the same flow written the way each client's README
// shows. It launches the invoice workflow, is answered `429` once (an API fault the test arms),
// reads the answer through the client's own types, waits the `Retry-After` and launches again,
// then reads the run, its result and its events. It prints what it saw as one JSON line; the
// proxy's `sl-violations` header (Prism in front of the emulator) is collected on every answer.

/** What every app declares for itself: no @types/node, as an edge or browser bundle would. */
const PRELUDE = `declare const process: { env: Record<string, string | undefined> };
const baseUrl = process.env.BASE_URL ?? "";
const authorization = \`Bearer \${process.env.API_KEY ?? ""}\`;
const steps: { op: string; status: number }[] = [];
const violations: string[] = [];
function note(op: string, response: Response): void {
  steps.push({ op, status: response.status });
  const reported = response.headers.get("sl-violations");
  if (reported) violations.push(\`\${op} \${response.status}: \${reported}\`);
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const idempotency = { "Idempotency-Key": "generic-client-" + (process.env.CLIENT ?? "") };
`;

/** The launch body, typed by each client's own launch-body type. */
export function launchBody(body: unknown): string {
  return JSON.stringify(body, null, 2);
}

export const APPS = {
  "openapi-fetch": (body: string) => `import createClient from "openapi-fetch";
import type { components, paths } from "./schema";
${PRELUDE}
type LaunchBody = components["schemas"]["Workflow_wf_P7Qd2Lx9_LaunchBody"];
const body: LaunchBody = ${body};
const client = createClient<paths>({ baseUrl, headers: { Authorization: authorization } });
const launch = () =>
  client.POST("/automations/wf_P7Qd2Lx9/runs", { body, headers: idempotency });
let launched = await launch();
note("launch", launched.response);
let rateLimited: { code: string; retryAfter: string | null } | undefined;
if (launched.response.status === 429 && launched.error) {
  const error: components["schemas"]["Error"] = launched.error;
  rateLimited = { code: error.code, retryAfter: launched.response.headers.get("retry-after") };
  await sleep(Number(rateLimited.retryAfter ?? "1") * 1000);
  launched = await launch();
  note("launch", launched.response);
}
if (!launched.data) throw new Error("launch failed: " + JSON.stringify(launched.error));
const runId: string = launched.data.run_id;
const metadata: Record<string, unknown> = launched.data.metadata;
const path = { params: { path: { runId } } };
const run = await client.GET("/runs/{runId}", path);
note("getRun", run.response);
const result = await client.GET("/runs/{runId}/result", path);
note("getRunResult", result.response);
const events = await client.GET("/runs/{runId}/events", path);
note("getRunEvents", events.response);
console.log(JSON.stringify({ steps, violations, rateLimited, runId, metadata, status: run.data?.status }));
`,
  "hey-api": (body: string) => `import { client } from "./hey/client.gen";
import { getRun, getRunEvents, getRunResult, launchWfP7Qd2Lx9 } from "./hey/sdk.gen";
import type { LaunchWfP7Qd2Lx9Errors, WorkflowWfP7Qd2Lx9LaunchBody } from "./hey/types.gen";
${PRELUDE}
const body: WorkflowWfP7Qd2Lx9LaunchBody = ${body};
client.setConfig({ baseUrl, headers: { Authorization: authorization } });
const launch = () => launchWfP7Qd2Lx9({ body, headers: idempotency });
let launched = await launch();
note("launch", launched.response);
let rateLimited: { code: string; retryAfter: string | null } | undefined;
if (launched.response.status === 429 && launched.error) {
  const error: LaunchWfP7Qd2Lx9Errors[429] = launched.error;
  rateLimited = { code: error.code, retryAfter: launched.response.headers.get("retry-after") };
  await sleep(Number(rateLimited.retryAfter ?? "1") * 1000);
  launched = await launch();
  note("launch", launched.response);
}
if (!launched.data) throw new Error("launch failed: " + JSON.stringify(launched.error));
const runId: string = launched.data.run_id;
const metadata: Record<string, unknown> = launched.data.metadata;
const run = await getRun({ path: { runId } });
note("getRun", run.response);
const result = await getRunResult({ path: { runId } });
note("getRunResult", result.response);
const events = await getRunEvents({ path: { runId } });
note("getRunEvents", events.response);
console.log(JSON.stringify({ steps, violations, rateLimited, runId, metadata, status: run.data?.status }));
`,
  orval: (body: string) => `import {
  getRun,
  getRunEvents,
  getRunResult,
  launchWfP7Qd2Lx9,
  type Error as ApiError,
  type WorkflowWfP7Qd2Lx9LaunchBody,
} from "./orval/api";
${PRELUDE}
const body: WorkflowWfP7Qd2Lx9LaunchBody = ${body};
const init = { headers: { Authorization: authorization } };
const launch = () =>
  launchWfP7Qd2Lx9(body, { headers: { ...init.headers, ...idempotency } });
/** orval's answers carry Headers but not the Response: the proxy's report is read from them. */
const asResponse = (answer: { status: number; headers: Headers }) =>
  ({ status: answer.status, headers: answer.headers }) as Response;
let launched = await launch();
note("launch", asResponse(launched));
let rateLimited: { code: string; retryAfter: string | null } | undefined;
if (launched.status === 429) {
  const error: ApiError = launched.data;
  rateLimited = { code: error.code, retryAfter: launched.headers.get("retry-after") };
  await sleep(Number(rateLimited.retryAfter ?? "1") * 1000);
  launched = await launch();
  note("launch", asResponse(launched));
}
if (launched.status !== 202) throw new Error("launch failed: " + JSON.stringify(launched.data));
const runId: string = launched.data.run_id;
const metadata: Record<string, unknown> = launched.data.metadata;
const run = await getRun(runId, init);
note("getRun", asResponse(run));
const result = await getRunResult(runId, init);
note("getRunResult", asResponse(result));
const events = await getRunEvents(runId, init);
note("getRunEvents", asResponse(events));
console.log(JSON.stringify({ steps, violations, rateLimited, runId, metadata, status: run.status === 200 ? run.data.status : undefined }));
`,
} as const satisfies Record<string, (body: string) => string>;

export type Generator = keyof typeof APPS;
