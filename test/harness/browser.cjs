// Headless Debian chromium driven by playwright-core, and helpers for the VS Code web workbench.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { chromium } = require('playwright-core');
const { chromiumPath, ROOT } = require('./runtime.cjs');

const SCREENSHOT_DIR = path.join(ROOT, 'test-output', 'screenshots');
const EXTENSION_ID = 'repo-wiki.repo-wiki';
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** @returns {Promise<import('playwright-core').Browser>} */
async function launchBrowser({ headless = true } = {}) {
  const executablePath = chromiumPath();
  if (!fs.existsSync(executablePath)) throw new Error(`${executablePath} not found: call ensureRuntime() first`);
  return chromium.launch({ executablePath, headless, args: CHROMIUM_ARGS });
}

/** Opens url in a new page and resolves once the workbench DOM exists. */
async function openWorkbench(browser, url, { viewport = { width: 1400, height: 900 }, timeout = 60000 } = {}) {
  const page = await browser.newPage({ viewport });
  if (process.env.DEBUG) page.on('console', (m) => console.log('[browser]', m.type(), m.text().slice(0, 300)));
  page.on('pageerror', (e) => console.error('[pageerror]', e.message));
  await page.goto(url);
  await page.waitForSelector('.monaco-workbench', { timeout });
  return page;
}

/** Runs a command by its palette title, e.g. "Repo Wiki: Lint Wiki". Returns the attempt that worked. */
async function runCommand(page, title, { attempts = 10 } = {}) {
  const input = page.locator('.quick-input-widget .quick-input-box input');
  const exact = new RegExp(`^\\s*${title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`, 'i');
  for (let attempt = 1; attempt <= attempts; attempt++) {
    // Focus can be swallowed just after load: click a neutral spot, then retry the shortcut.
    await page.locator('.monaco-workbench .part.statusbar').click({ position: { x: 600, y: 5 } }).catch(() => {});
    await page.keyboard.press('Control+Shift+P');
    try {
      await input.waitFor({ state: 'visible', timeout: 2000 });
    } catch {
      continue;
    }
    try {
      // The palette can close again before the fill (a notification or a view taking focus): open it again then.
      await input.fill('>' + title, { timeout: 3000 });
    } catch {
      continue;
    }
    // Whole-label match (case-insensitive like hasText), so "Repo Wiki: Lint" never picks "Repo Wiki: Lint wiki".
    const row = page.locator('.quick-input-list .monaco-list-row')
      .filter({ has: page.locator('.label-name', { hasText: exact }) }).first();
    try {
      await row.waitFor({ timeout: 3000 }); // the command may not be registered yet
    } catch {
      await page.keyboard.press('Escape');
      continue;
    }
    await row.click();
    return attempt;
  }
  throw new Error(`could not run command "${title}" from the palette`);
}

/** Writes test-output/screenshots/<name>.png and returns its path. */
async function screenshot(page, name) {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${String(name).replace(/[^\w.-]+/g, '-')}.png`);
  await page.screenshot({ path: file });
  return file;
}

/** Frame locator for the content of a webview view contributed by the extension. */
function webviewFrame(page, extensionId = EXTENSION_ID) {
  return page.frameLocator(`iframe.webview.ready[src*="extensionId=${extensionId}"]`).frameLocator('#active-frame');
}

module.exports = { launchBrowser, openWorkbench, runCommand, screenshot, webviewFrame, SCREENSHOT_DIR, EXTENSION_ID };
