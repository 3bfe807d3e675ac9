// Stands in for `@wfr/store-postgres` when the runtime README's journal
// example runs in tests: the runtime cannot depend on a store package (stores
// depend on the runtime), so the same two interfaces come from the runtime's
// memory implementations; the store packages run the same conformance checks.
import { createMemoryEventStore, createMemoryLaunchJournal } from "../../src/index.js";

const launchJournal = createMemoryLaunchJournal();
const callbackEvents = createMemoryEventStore();

export async function openPostgresStores(_options: { databaseUrl?: string | undefined }) {
  return { launchJournal, callbackEvents };
}
