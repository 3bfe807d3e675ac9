// `node dist/main.js`: the desk against a real environment or the emulator.
//   WFR_BASE_URL   the API base, ending in /api/v1 (required)
//   WFR_API_KEY    the workspace key (required; never sent to a browser)
//   DATABASE_URL   postgres://... (optional; PGlite in .wfr/invoice-desk otherwise)
//   PORT, HOST     where to listen (default 4100, 127.0.0.1)
//   WFR_CALLBACK_URL  the public URL the service POSTs callbacks to (optional; polling otherwise)
//   WFR_WEBHOOK_SECRET  verify the deliveries' Standard Webhooks signatures (optional)
//   DESK_OPERATOR, DESK_PASSWORD  the operator to create if missing
//   DESK_PUBLIC_URL   the URL browsers use (https://desk.example.com: Secure cookies, its host allowed)
//   DESK_ALLOWED_HOSTS  more host names (with port) to answer to, comma-separated (others: 421)
//   DESK_TRUST_PROXY  1 behind a proxy you run: believe X-Forwarded-Proto / X-Forwarded-For
import { startDesk } from "./desk.js";

const required = (name: string) => {
  const value = process.env[name];
  if (!value) {
    console.error(`invoice-desk: ${name} is not set`);
    process.exit(2);
  }
  return value;
};

const desk = await startDesk({
  baseUrl: required("WFR_BASE_URL"),
  apiKey: required("WFR_API_KEY"),
  databaseUrl: process.env.DATABASE_URL,
  port: Number(process.env.PORT ?? 4100),
  host: process.env.HOST ?? "127.0.0.1",
  callbackUrl: process.env.WFR_CALLBACK_URL,
  webhookSecret: process.env.WFR_WEBHOOK_SECRET,
  publicUrl: process.env.DESK_PUBLIC_URL,
  allowedHosts: (process.env.DESK_ALLOWED_HOSTS ?? "")
    .split(",")
    .map((h) => h.trim())
    .filter((h) => h !== ""),
  trustProxy: process.env.DESK_TRUST_PROXY === "1",
  operator: {
    username: process.env.DESK_OPERATOR ?? "operator",
    password: process.env.DESK_PASSWORD,
  },
});
console.log(`invoice desk: ${desk.url}`);
if (desk.operator.password && !process.env.DESK_PASSWORD) {
  console.log(`sign in as ${desk.operator.username} with password ${desk.operator.password}`);
}
const stop = async () => {
  await desk.close();
  process.exit(0);
};
process.once("SIGINT", stop);
process.once("SIGTERM", stop);
