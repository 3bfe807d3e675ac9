// Debian's Chromium driven by playwright-core (no browser download here); playwright-core gives
// every launch a fresh, temporary profile directory.
import { type Browser, chromium } from "playwright-core";

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}
