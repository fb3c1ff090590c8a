// Drives dynamodb-admin (already running at ADMIN_URL, talking to dynamopg)
// in headless Chromium: the table list shows TABLE, the table's page shows
// its items (ITEM_TEXT), a screenshot of it goes to SHOT. Run from the
// directory where playwright-core is installed (with admin_chromium.mjs).
import { launch } from "./admin_chromium.mjs";

const { ADMIN_URL, TABLE, ITEM_TEXT, SHOT } = process.env;
const ctx = await launch();
try {
  const page = await ctx.newPage();
  await page.goto(ADMIN_URL + "/", { waitUntil: "load", timeout: 30000 });
  const link = page.locator(`a[href*="/tables/${TABLE}"]`).first();
  await link.waitFor({ timeout: 15000 });
  console.log(`  table list shows ${TABLE}`);
  await link.click();
  await page.waitForURL(new RegExp(`/tables/${TABLE}`), { timeout: 15000 });
  await page.getByText(ITEM_TEXT).first().waitFor({ timeout: 15000 });
  console.log(`  table page shows an item (${ITEM_TEXT})`);
  await page.screenshot({ path: SHOT, fullPage: true });
  console.log(`  screenshot: ${SHOT}`);
} finally {
  await ctx.close();
}
