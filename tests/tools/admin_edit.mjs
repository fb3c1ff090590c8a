// Edits through dynamodb-admin's web UI (already running at ADMIN_URL,
// talking to dynamopg at ENDPOINT) in headless Chromium, as a user would, on
// the AdminDemo fixture of e2e.sh (Artist/SongTitle keys; "Acme Band" with
// "Call Me Today", "Howdy", "Happy Day", Awards 3):
//   1. Create item: the "Create item" page, a new item typed into its JSON
//      editor (Ace), Save.
//   2. Edit: an item's View page, Awards 3 -> 4 and a new attribute, Save;
//      screenshot of the saved item to SHOT.
//   3. Delete: an item's View page, Delete.
// Each step is checked with the AWS CLI (get-item --consistent-read against
// ENDPOINT, a different client from dynamodb-admin's SDK) and then in the UI;
// the run ends with a Scan. Exits non-zero with the failing step's reason.
// Run from the directory where playwright-core is installed (with
// admin_chromium.mjs).
import { execFileSync } from "node:child_process";
import { launch } from "./admin_chromium.mjs";

const { ADMIN_URL, ENDPOINT, TABLE = "AdminDemo", SHOT } = process.env;
const ARTIST = "Acme Band";
const WAIT = { timeout: 15000 };

class StepError extends Error {}
const fail = (msg) => { throw new StepError(msg); };

// Canonical JSON (sorted object keys) for order-insensitive comparison.
const canon = (v) => JSON.stringify(v, (_k, x) =>
  x && typeof x === "object" && !Array.isArray(x)
    ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, x[k]])) : x);
const same = (a, b) => canon(a) === canon(b);

// The AWS CLI against dynamopg.
function aws(...args) {
  let out;
  try {
    out = execFileSync("aws", ["dynamodb", ...args, "--endpoint-url", ENDPOINT, "--output", "json"],
      { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 60000 });
  } catch (e) {
    fail(`aws dynamodb ${args[0]} failed: ${(e.stderr || e.message).trim()}`);
  }
  return out.trim() ? JSON.parse(out) : {};
}
const key = (title) => ({ Artist: { S: ARTIST }, SongTitle: { S: title } });
const getItem = (title) =>
  aws("get-item", "--table-name", TABLE, "--consistent-read", "--key", JSON.stringify(key(title))).Item;

function expectItem(what, title, want) {
  const got = getItem(title);
  if (!same(got, want)) fail(`${what}: AWS CLI get-item (${ARTIST}, ${title}) = ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
  console.log(`  ${what}: AWS CLI get-item shows ${JSON.stringify(got)}`);
}

// The item page's JSON editor (Ace in #documentTextarea).
const editor = (page) => page.locator("#documentTextarea");
async function editorJSON(page, what) {
  await editor(page).locator(".ace_content").waitFor(WAIT);
  const text = await editor(page).evaluate((el) => el.env.editor.getValue());
  try { return JSON.parse(text); } catch { fail(`${what}: the JSON editor holds no JSON: ${text}`); }
}
// Click into the editor, select all, type the new document.
async function typeJSON(page, what, obj) {
  await editor(page).locator(".ace_content").click();
  await page.keyboard.press("ControlOrMeta+A");
  await page.keyboard.insertText(JSON.stringify(obj, null, 2));
  const got = await editorJSON(page, what);
  if (!same(got, obj)) fail(`${what}: typed ${JSON.stringify(obj)} but the editor holds ${JSON.stringify(got)}`);
}
// Click a button that fetch()es METHOD to dynamodb-admin; fail on an error answer.
async function clickFor(page, what, button, method) {
  const [resp] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === method && r.url().startsWith(ADMIN_URL), WAIT),
    button.click(),
  ]);
  if (!resp.ok()) {
    const alert = await page.locator("#error-wrapper").innerText().catch(() => "");
    fail(`${what}: dynamodb-admin answered ${method} with ${resp.status()}: ${(await resp.text()).replace(/\s+/g, " ").slice(0, 300)} ${alert}`);
  }
  return resp;
}
const tableURL = new RegExp(`/tables/${encodeURIComponent(TABLE)}(\\?.*)?$`);
const itemURL = new RegExp(`/tables/${encodeURIComponent(TABLE)}/items/`);
const rows = (page, title) => page.locator("#items-container tr", { hasText: title });
async function openTable(page) {
  await page.goto(`${ADMIN_URL}/tables/${encodeURIComponent(TABLE)}`, { waitUntil: "load", ...WAIT });
  await rows(page, "Call Me Today").first().waitFor(WAIT); // items are fetched after load
}
async function openItem(page, what, title) {
  await openTable(page);
  const view = rows(page, title).getByRole("link", { name: "View" });
  if (await view.count() !== 1) fail(`${what}: the table page has ${await view.count()} rows for ${title}, want 1`);
  await view.click();
  await page.waitForURL(itemURL, WAIT);
  const shown = await editorJSON(page, what);
  if (shown.SongTitle !== title) fail(`${what}: the item page shows ${JSON.stringify(shown)}, want ${title}`);
  return shown;
}

const ctx = await launch();
const page = await ctx.newPage();
const pageErrors = [];
page.on("pageerror", (e) => pageErrors.push(e.message));
page.on("dialog", (d) => d.accept()); // a confirm() on Delete, if a version asks
let step = "start";
try {
  // 1. Create item.
  step = "create";
  await openTable(page);
  await page.getByRole("link", { name: "Create item" }).click();
  await page.waitForURL(new RegExp(`/tables/${encodeURIComponent(TABLE)}/add-item$`), WAIT);
  const blank = await editorJSON(page, step);
  if (!same(blank, { Artist: "", SongTitle: "" })) fail(`create: the Create item page starts with ${JSON.stringify(blank)}, want the key attributes`);
  const created = { Artist: ARTIST, SongTitle: "Made In Admin", Awards: 7, Live: true, Note: null,
                    Tags: ["demo", "admin"], Chart: { Peak: 2, Country: "NZ" } };
  await typeJSON(page, step, created);
  await clickFor(page, step, page.locator("#saveButton"), "PUT");
  await page.waitForURL(itemURL, WAIT); // Save on add-item goes to the new item's page
  if (!same(await editorJSON(page, step), created)) fail(`create: the new item's page shows ${JSON.stringify(await editorJSON(page, step))}`);
  console.log(`  create: saved ${created.SongTitle} on the Create item page, now at ${new URL(page.url()).pathname}`);
  expectItem(step, created.SongTitle, {
    ...key(created.SongTitle), Awards: { N: "7" }, Live: { BOOL: true }, Note: { NULL: true },
    Tags: { L: [{ S: "demo" }, { S: "admin" }] }, Chart: { M: { Peak: { N: "2" }, Country: { S: "NZ" } } },
  });

  // 2. Edit an existing item.
  step = "edit";
  const before = await openItem(page, step, "Howdy");
  if (before.Awards !== 3) fail(`edit: Howdy shows Awards ${before.Awards}, want 3 (the fixture)`);
  await typeJSON(page, step, { ...before, Awards: 4, Genre: "Country" });
  const resp = await clickFor(page, step, page.locator("#saveButton"), "PUT");
  // The page puts the saved item, as read back, into the editor.
  const saved = JSON.stringify(await resp.json(), null, 2);
  await page.waitForFunction((want) => document.getElementById("documentTextarea").env.editor.getValue() === want, saved, WAIT);
  console.log(`  edit: Howdy Awards 3 -> 4, Genre added, saved`);
  expectItem(step, "Howdy", { ...key("Howdy"), Awards: { N: "4" }, Genre: { S: "Country" } });
  await page.screenshot({ path: SHOT, fullPage: true });
  console.log(`  screenshot: ${SHOT}`);

  // 3. Delete an item.
  step = "delete";
  await openItem(page, step, "Happy Day");
  await clickFor(page, step, page.getByRole("button", { name: "Delete" }), "DELETE");
  await page.waitForURL(tableURL, WAIT); // Delete goes back to the table page
  const gone = getItem("Happy Day");
  if (gone) fail(`delete: AWS CLI get-item still finds ${JSON.stringify(gone)}`);
  console.log(`  delete: Happy Day deleted; AWS CLI get-item finds nothing`);

  // The table page and a Scan agree.
  step = "table";
  await openTable(page);
  for (const [title, n] of [["Happy Day", 0], ["Made In Admin", 1], ["Howdy", 1]]) {
    const c = await rows(page, title).count();
    if (c !== n) fail(`table: the table page has ${c} rows for ${title}, want ${n}`);
  }
  const scan = aws("scan", "--table-name", TABLE, "--consistent-read");
  const titles = scan.Items.map((i) => i.SongTitle.S).sort();
  if (!same(titles, ["Call Me Today", "Howdy", "Made In Admin"])) fail(`table: AWS CLI scan has ${JSON.stringify(titles)}`);
  console.log(`  table page and AWS CLI scan agree: ${titles.join(", ")}`);
} catch (e) {
  console.log(`  FAIL: ${e instanceof StepError ? e.message : `${step}: ${e.stack || e}`}`);
  console.log(`  at ${page.url()}`);
  if (pageErrors.length) console.log(`  page errors: ${pageErrors.join("; ")}`);
  process.exitCode = 1;
} finally {
  await ctx.close();
}
