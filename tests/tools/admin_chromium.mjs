// Headless Chromium for the dynamodb-admin steps (admin_browse.mjs,
// admin_edit.mjs): Debian's chromium (CHROMIUM) driven by playwright-core,
// profile in PROFILE_DIR. Run from the directory where playwright-core is
// installed.
import { chromium } from "playwright-core";

export function launch() {
  const { CHROMIUM = "/usr/bin/chromium", PROFILE_DIR } = process.env;
  return chromium.launchPersistentContext(PROFILE_DIR, {
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
           "--disable-sync", "--no-first-run"],
    viewport: { width: 1280, height: 800 },
  });
}
