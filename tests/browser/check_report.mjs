// Opens ptxvm's HTML reports (--report-html DIR) in headless Chromium and checks what a person
// would look for: the launches, every diagnostic with its source lines, the deadlock's wait-for
// graph drawn, the CFG page behind its link, the timeline's file, the expand/collapse controls,
// and that the page still reads with JavaScript off. Screenshots go to the artifacts directory.
//
//   node check_report.mjs ARTIFACTS NAME=DIR[:cuda] ...
//
// ":cuda" marks a report of a CUDA program built with -lineinfo (its diagnostics show CUDA lines).
// Chromium: $PTXVM_CHROMIUM or /usr/bin/chromium (Debian's package). Exit 0 when every check
// passes, 1 otherwise (each failed check is printed), 77 when no browser can be started.
import { chromium } from 'playwright-core';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [artifacts, ...reports] = process.argv.slice(2);
if (!artifacts || reports.length === 0) {
  console.error('usage: node check_report.mjs ARTIFACTS NAME=DIR[:cuda] ...');
  process.exit(2);
}
fs.mkdirSync(artifacts, { recursive: true });

let failures = 0, passes = 0;
function check(what, ok, detail = '') {
  if (ok) {
    ++passes;
    console.log(`ok    ${what}`);
  } else {
    ++failures;
    console.log(`FAIL  ${what}${detail ? ': ' + detail : ''}`);
  }
}

const executablePath = process.env.PTXVM_CHROMIUM || '/usr/bin/chromium';
let browser;
try {
  browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu'] });
} catch (e) {
  console.log(`SKIP: cannot start Chromium at ${executablePath}: ${e.message.split('\n')[0]}`);
  process.exit(77);
}

async function checkReport(name, dir, cuda) {
  const index = path.join(dir, 'index.html');
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  // No request may leave the page's own files (the report is self-contained).
  const external = [];
  page.on('request', (r) => { if (!r.url().startsWith('file://')) external.push(r.url()); });
  await page.goto(pathToFileURL(index).href);
  check(`${name}: title`, (await page.title()).startsWith('ptxvm report'));
  check(`${name}: no script errors`, errors.length === 0, errors.join('; '));
  check(`${name}: no network requests`, external.length === 0, external.join(', '));

  // Launches and statistics.
  const kernels = await page.locator('#kernels tr').count();
  check(`${name}: per-kernel statistics`, kernels >= 2, `${kernels - 1} kernel rows`);
  check(`${name}: a failed launch is marked`, (await page.locator('#kernels tr.failed').count()) >= 1);

  // Diagnostics with their source lines.
  const deadlock = page.locator('details.diagnostic', { hasText: 'barrier-deadlock' }).first();
  check(`${name}: the deadlock is listed`, (await deadlock.count()) === 1);
  check(`${name}: it is open and visible`, await deadlock.locator('pre.message').isVisible());
  const ptxLine = deadlock.locator('figure.source', { hasText: 'PTX' }).locator('mark');
  check(`${name}: its PTX line is shown`, (await ptxLine.count()) === 1 && /bar\.sync/.test(await ptxLine.innerText()));
  if (cuda) {
    const cudaLines = deadlock.locator('figure.source', { hasText: 'CUDA' }).locator('mark');
    const texts = await cudaLines.allInnerTexts();
    check(`${name}: its CUDA lines are shown`, texts.some((t) => /barSync\(1, 64\)/.test(t)), texts.join(' | '));
  }

  // The deadlock's function in its CFG page, one click away.
  const toCfg = deadlock.locator('a.cfg-link');
  check(`${name}: the deadlock links its function's CFG`, (await toCfg.count()) === 1);
  if (await toCfg.count()) {
    const href = await toCfg.evaluate((a) => a.href);
    const target = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await target.goto(href);
    const id = decodeURIComponent(new URL(href).hash.slice(1));
    const section = target.locator(`section[id="${id}"]`);
    check(`${name}: that CFG section draws the function`,
          (await section.count()) === 1 && (await section.locator('svg g.node').count()) >= 2, id);
    await target.close();
  }

  // The wait-for graph, laid out and drawn.
  const graph = deadlock.locator('.waitfor svg');
  check(`${name}: the wait-for graph is drawn`, (await graph.count()) === 1);
  const box = (await graph.count()) ? await graph.boundingBox() : null;
  check(`${name}: the graph has a size on screen`, box && box.width > 100 && box.height > 50, JSON.stringify(box));
  const nodes = await graph.locator('g.node').allTextContents();
  check(`${name}: warps and the barrier are nodes`,
        nodes.some((t) => /barrier 1/.test(t)) && nodes.filter((t) => /warp \d/.test(t)).length >= 2,
        nodes.join(' | '));
  const edges = await graph.locator('g.edge').allTextContents();
  check(`${name}: the barrier needs an exited warp`, edges.some((t) => /needs \(exited\)/.test(t)), edges.join(' | '));
  await deadlock.locator('.waitfor').screenshot({ path: path.join(artifacts, `${name}-waitfor.png`) });

  // The controls (JavaScript) fold and unfold every section.
  check(`${name}: controls shown`, await page.locator('#controls').isVisible());
  await page.click('#collapse');
  check(`${name}: collapse all`, !(await deadlock.locator('pre.message').isVisible()));
  await page.click('#expand');
  check(`${name}: expand all`, await deadlock.locator('pre.message').isVisible());
  await page.screenshot({ path: path.join(artifacts, `${name}-report.png`), fullPage: true });

  // The timeline's file is there; the CFG page opens and draws the kernels.
  const trace = await page.locator('a', { hasText: 'trace.json' }).first().getAttribute('href');
  check(`${name}: the timeline is linked and written`, trace && fs.existsSync(path.resolve(dir, trace)), trace);
  const cfgLinks = await page.locator('a', { hasText: 'CFG by uniformity' }).evaluateAll((as) => as.map((a) => a.href));
  check(`${name}: a CFG page is linked`, cfgLinks.length >= 1);
  if (cfgLinks.length) {
    const cfg = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await cfg.goto(cfgLinks[0]);
    const blocks = await cfg.locator('.cfg svg g.node').count();
    check(`${name}: the CFG page draws blocks`, blocks >= 4, `${blocks} nodes`);
    const divergent = await cfg.locator('tr.divergent, tr.warp-uniform, tr.cta-uniform').count();
    check(`${name}: the CFG page lists branches by uniformity`, divergent >= 1);
    await cfg.screenshot({ path: path.join(artifacts, `${name}-cfg.png`), fullPage: true });
    await cfg.close();
  }
  await page.close();

  // Without JavaScript: no controls, everything still there and open.
  const plain = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1400, height: 1000 } });
  const still = await plain.newPage();
  await still.goto(pathToFileURL(index).href);
  check(`${name}: without JavaScript the controls stay hidden`, !(await still.locator('#controls').isVisible()));
  check(`${name}: without JavaScript the deadlock reads`,
        await still.locator('details.diagnostic pre.message').first().isVisible());
  await plain.close();
}

for (const spec of reports) {
  const eq = spec.indexOf('=');
  let [dir, flag] = [spec.slice(eq + 1), ''];
  if (dir.endsWith(':cuda')) [dir, flag] = [dir.slice(0, -5), 'cuda'];
  await checkReport(spec.slice(0, eq), dir, flag === 'cuda');
}
await browser.close();
console.log(`${passes} passed, ${failures} failed`);
process.exit(failures ? 1 : 0);
