// The base URL and callback URL checks (src/url-checks.ts).
import { describe, expect, it } from "vitest";
import { checkPublicCallbackUrl, createClient, InvalidOptionError } from "../src/index.js";
import { checkBaseUrl } from "../src/url-checks.js";

const API_KEY = "wfr_live_SECRET123";

describe("base URL", () => {
  it("the API base is {base_url} (it ends in the version prefix /api/v1): https, http only on loopback", () => {
    expect(checkBaseUrl("https://api.example.com/api/v1/")).toEqual({
      ok: true,
      baseUrl: "https://api.example.com/api/v1",
    });
    expect(checkBaseUrl("http://127.0.0.1:8080/api/v1").ok).toBe(true);
    expect(checkBaseUrl("http://127.9.9.9/api/v1").ok).toBe(true);
    expect(checkBaseUrl("http://[::1]:3000/api/v1").ok).toBe(true);
    expect(checkBaseUrl("http://localhost:3000/api/v1").ok).toBe(true);
    expect(checkBaseUrl("http://api.example.com/api/v1").ok).toBe(false);
    expect(checkBaseUrl("http://10.0.0.1/api/v1").ok).toBe(false);
    expect(checkBaseUrl("https://api.example.com/api/v2").ok).toBe(false);
    expect(checkBaseUrl("https://api.example.com/api/v1?key=x").ok).toBe(false);
    expect(() =>
      createClient({ baseUrl: "http://api.example.com/api/v1", apiKey: API_KEY }),
    ).toThrow(InvalidOptionError);
    expect(
      createClient({
        environment: { name: "p", workspace: "w", baseUrl: "https://x.test/api/v1" },
        apiKey: "k",
      }).baseUrl,
    ).toBe("https://x.test/api/v1");
  });
});

describe("checkPublicCallbackUrl", () => {
  it("A private or localhost address is not a public receiver", () => {
    const rejected = [
      "http://hooks.example.com/cb",
      "https://localhost/cb",
      "https://LOCALHOST./cb",
      "https://app.localhost/cb",
      "https://metadata.google.internal/computeMetadata",
      "https://127.0.0.1/cb",
      "https://127.1/cb",
      "https://2130706433/cb",
      "https://0x7f000001/cb",
      "https://0.0.0.0/cb",
      "https://10.1.2.3/cb",
      "https://172.16.0.1/cb",
      "https://172.31.255.255/cb",
      "https://192.168.1.1/cb",
      "https://169.254.169.254/latest/meta-data",
      "https://100.64.0.1/cb",
      "https://100.127.255.255/cb",
      "https://[::1]/cb",
      "https://[::]/cb",
      "https://[fc00::1]/cb",
      "https://[fd12:3456::1]/cb",
      "https://[fe80::1]/cb",
      "https://[::ffff:127.0.0.1]/cb",
      "https://[::ffff:a9fe:a9fe]/cb",
      "https://[::ffff:10.0.0.1]/cb",
      "https://[64:ff9b::192.168.0.1]/cb",
      "https://user:pass@hooks.example.com/cb",
      "not a url",
    ];
    for (const url of rejected) expect(checkPublicCallbackUrl(url).ok, url).toBe(false);
    const accepted = [
      "https://hooks.example.com/wfr",
      "https://8.8.8.8/cb",
      "https://172.32.0.1/cb",
      "https://100.128.0.1/cb",
      "https://[2606:4700::1111]/cb",
      "https://[::ffff:8.8.8.8]/cb",
    ];
    for (const url of accepted) expect(checkPublicCallbackUrl(url).ok, url).toBe(true);
  });
});
