import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** The system Chromium (Debian package `chromium`); CHROMIUM_PATH overrides it. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const required = process.env.REQUIRE_BROWSER === '1';
const available = existsSync(CHROMIUM);

if (!available && !required) {
  console.log(
    `Browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH; REQUIRE_BROWSER=1 makes a missing browser a failure)`,
  );
}

/** `describe` when a browser is there or required (then a missing one fails), else `describe.skip`. */
export const describeInBrowser = available || required ? describe : describe.skip;

/** Launches the system Chromium, headless. */
export function launchBrowser(): Promise<Browser> {
  if (!available)
    return Promise.reject(new Error(`REQUIRE_BROWSER=1 but there is no Chromium at ${CHROMIUM}`));
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}
