// The download policy of file outputs: only under the environment's root and the named storage
// origins, https (http only to the emulator on loopback), redirects only inside; a hostile
// download_url is refused before any request, and the error names the origin, never the query.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allowedPrefixes, downloadRefusal } from "../src/download-policy.js";
import { downloadFileOutput, FileOutputDownloadRefusedError } from "../src/index.js";

describe("downloadRefusal", () => {
  const real = {
    baseUrl: "https://api.example.com/api/v1",
    allowedOrigins: ["https://files.example.net"],
  };
  const emulator = { baseUrl: "http://127.0.0.1:4010/production/api/v1" };

  it("allows the environment's root and the storage origins", () => {
    expect(allowedPrefixes(real)).toEqual([
      "https://api.example.com/",
      "https://files.example.net/",
    ]);
    expect(allowedPrefixes(emulator)).toEqual(["http://127.0.0.1:4010/production/"]);
    expect(downloadRefusal("https://files.example.net/b/x.pdf?sig=1", real)).toBeNull();
    expect(downloadRefusal("https://api.example.com/files/x.pdf", real)).toBeNull();
    expect(
      downloadRefusal("http://127.0.0.1:4010/production/_files/run_1/1/x.pdf", emulator),
    ).toBeNull();
  });

  it.each([
    ["another host", "https://evil.example/x.pdf", real],
    ["a look-alike host", "https://files.example.net.evil.example/x.pdf", real],
    ["plain http to a real service", "http://files.example.net/x.pdf", real],
    ["a cloud metadata address", "http://169.254.169.254/latest/meta-data/", real],
    [
      "the emulator's admin API",
      "http://127.0.0.1:4010/_emulator/environments/production/runs",
      emulator,
    ],
    [
      "a dot-dot escape from the environment",
      "http://127.0.0.1:4010/production/../_emulator/keys",
      emulator,
    ],
    [
      "an encoded dot-dot escape",
      "http://127.0.0.1:4010/production/%2e%2e/_emulator/keys",
      emulator,
    ],
    ["another loopback port", "http://127.0.0.1:6379/production/x", emulator],
    ["a URL with credentials", "https://user:pw@files.example.net/x.pdf", real],
    ["a file: URL", "file:///etc/passwd", real],
    ["no URL", "not a url", real],
  ] as const)("refuses %s", (_what, url, policy) => {
    expect(downloadRefusal(url, policy)).not.toBeNull();
  });

  it("refuses everything when nothing is allowed", () => {
    expect(downloadRefusal("https://files.example.net/x.pdf", {})).toContain(
      "no allowed download origin",
    );
  });
});

describe("downloadFileOutput under the policy, against loopback servers", () => {
  let files: Server;
  let other: Server;
  let filesBase: string;
  let otherBase: string;
  const seen: string[] = [];
  beforeAll(async () => {
    other = createServer((req, res) => {
      seen.push(`other ${req.url}`);
      res.writeHead(200).end("secret internal page");
    });
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
    otherBase = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    files = createServer((req, res) => {
      seen.push(`files ${req.url}`);
      if (req.url === "/production/_files/ok.pdf") return res.writeHead(200).end("%PDF-ok");
      if (req.url === "/production/_files/moved.pdf")
        return res.writeHead(302, { location: "/production/_files/ok.pdf" }).end();
      if (req.url === "/production/_files/away.pdf")
        return res.writeHead(302, { location: `${otherBase}/admin` }).end();
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => files.listen(0, "127.0.0.1", resolve));
    filesBase = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => files.close(() => resolve()));
    await new Promise<void>((resolve) => other.close(() => resolve()));
  });

  const policy = () => ({ baseUrl: `${filesBase}/production/api/v1` });
  const ref = (url: string) => ({ download_url: url, filename: "x.pdf" });

  it("downloads under the environment and follows a redirect that stays inside", async () => {
    expect(
      await (
        await downloadFileOutput(ref(`${filesBase}/production/_files/ok.pdf`), policy())
      ).text(),
    ).toBe("%PDF-ok");
    expect(
      await (
        await downloadFileOutput(ref(`${filesBase}/production/_files/moved.pdf`), policy())
      ).text(),
    ).toBe("%PDF-ok");
  });

  it("refuses another loopback service before any request, and a redirect that leaves", async () => {
    seen.length = 0;
    const refused = await downloadFileOutput(
      ref(`${otherBase}/admin?token=s3cret`),
      policy(),
    ).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(FileOutputDownloadRefusedError);
    expect((refused as Error).message).toContain(otherBase);
    expect((refused as Error).message).not.toContain("s3cret");
    expect(seen).toEqual([]);
    const away = await downloadFileOutput(
      ref(`${filesBase}/production/_files/away.pdf`),
      policy(),
    ).catch((e: unknown) => e);
    expect(away).toBeInstanceOf(FileOutputDownloadRefusedError);
    expect(seen).toEqual(["files /production/_files/away.pdf"]);
  });
});
