// The person's browser in a connector's sign-in, played with plain HTTP: a one-time sign-in link
// to the web application, the consent page, the "allow" form; where the browser is sent then.
import { http, type Json } from "../conformance/support.js";

/** The page's attribute values as a browser reads them (the web app writes `&#38;` for `&`). */
const attributeValue = (s: string) =>
  s.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));

/** Approves the consent page at `authorizationUrl` for production; the connector's redirect URL. */
export async function approveAsPerson(base: string, authorizationUrl: string): Promise<URL> {
  const link = await http("POST", `${base}/_emulator/sign-in-links`, {});
  const signedIn = await fetch((link.body as Json).url, { redirect: "manual" });
  const cookie = signedIn.headers.get("set-cookie")?.split(";")[0];
  if (!cookie) throw new Error(`no session cookie from the sign-in link (${signedIn.status})`);
  const page = await (await fetch(authorizationUrl, { headers: { cookie } })).text();
  const field = (name: string) =>
    attributeValue(new RegExp(`name="${name}" value="([^"]*)"`).exec(page)?.[1] ?? "");
  const answer = await fetch(`${base}/_app/oauth/authorize`, {
    method: "POST",
    redirect: "manual",
    headers: { cookie, origin: base, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      csrf: field("csrf"),
      request: field("request"),
      environment: "production",
      decision: "approve",
    }).toString(),
  });
  const location = answer.headers.get("location");
  if (answer.status !== 303 || !location)
    throw new Error(`the consent form answered ${answer.status}: ${await answer.text()}`);
  return new URL(location);
}
