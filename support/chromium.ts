import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/** Debian's chromium package; the tests never download a browser. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];

const INSTALL = 'install it (Debian/Ubuntu: apt-get install -y chromium)';

const isCi = (): boolean => process.env.CI === 'true' || process.env.CI === '1';

/**
 * Whether the browser suites can run. Without chromium they are skipped with a warning, except under
 * CI=true, where a missing browser throws: CI must never pass by skipping them.
 */
export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM_PATH)) return true;
  if (isCi()) throw new Error(`${CHROMIUM_PATH} is missing and CI=true needs the browser suites: ${INSTALL}`);
  console.warn(`Browser suites skipped: ${CHROMIUM_PATH} is missing; ${INSTALL}.`);
  return false;
}

/** Starts headless chromium; close it after the tests. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: FLAGS });
}
