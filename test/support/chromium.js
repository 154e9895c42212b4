// Headless Chromium (the Debian package `chromium`, which .ci/run installs) driven by
// playwright-core: no browser download, the system binary.
import fs from 'node:fs';
import { chromium } from 'playwright-core';

export const CHROMIUM_PATHS = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

/** @returns {string | undefined} */
export const findChromium = () => CHROMIUM_PATHS.find((p) => fs.existsSync(p));

/** @param {string} executablePath */
export function launchChromium(executablePath) {
  return chromium.launch({ executablePath, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
}
