// Claims per second of the in-memory CallbackEventStore with 1,000,000 ids
// stored: 1M distinct claims (each then completed), then 200k claims of
// already-stored ids (duplicates, answered "done"), then 200k fresh claims
// on top of the 1M. Needs the runtime built:
//   npx --yes pnpm@10.34.8 --filter @wfr/runtime build && node bench/callback-store.mjs
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { createMemoryEventStore } = await import(join(root, "packages/runtime/dist/index.js"));

const store = createMemoryEventStore();
const rate = (count, ms) => `${Math.round((count / ms) * 1000).toLocaleString("en-US")} /s`;

let started = performance.now();
const N = 1_000_000;
for (let index = 0; index < N; index += 1) {
  const claim = await store.claim(`evt_${index}`, 300_000);
  await store.complete(`evt_${index}`, claim.token);
}
const fillMs = performance.now() - started;
console.log(
  `fill: ${N.toLocaleString("en-US")} claim+complete in ${Math.round(fillMs)} ms (${rate(N, fillMs)})`,
);

const M = 200_000;
started = performance.now();
let done = 0;
for (let index = 0; index < M; index += 1) {
  if ((await store.claim(`evt_${(index * 7919) % N}`, 300_000)).outcome === "done") done += 1;
}
const dupMs = performance.now() - started;
console.log(`duplicate claims at 1M ids: ${rate(M, dupMs)} (${done} answered done)`);

started = performance.now();
for (let index = 0; index < M; index += 1) await store.claim(`new_${index}`, 300_000);
const freshMs = performance.now() - started;
console.log(`fresh claims at 1M+ ids: ${rate(M, freshMs)}`);
