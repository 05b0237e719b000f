#!/usr/bin/env node
// Browser test of `gpuplan report`: writes a report of each kind, renders it in headless Chromium
// (playwright-core driving Debian's /usr/bin/chromium) and checks that
//   - every chart drew: its canvas is marked drawn and a screenshot of it is not blank;
//   - the page logs no console error, throws nothing and requests nothing from the network;
//   - the numbers equal the commands': each source's command is run again with --json and must give
//     the embedded document; every table cell and chart value that names a source path equals the
//     number there, and the charts drew exactly those numbers (error bands too, each holding its value);
//   - the tables are there with JavaScript off, and the page prints (PDF).
// Usage: node report_check.cjs --gpuplan BIN --chromium BIN --modules DIR --work DIR [--shots DIR]
'use strict';
const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');

const opt = {};
for (let i = 2; i < process.argv.length; i += 2) opt[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
for (const k of ['gpuplan', 'chromium', 'modules', 'work'])
  if (!opt[k]) { console.error(`usage: missing --${k}`); process.exit(2); }
const { chromium } = require(path.resolve(opt.modules, 'playwright-core'));

const KINDS = {
  train: ['train', '--model', 'llama3.1-70b', '--system', 'hgx-h100', '--gpus', '64', '--global-batch', '128',
          '--seq', '8192', '--precision', 'fp8', '--plan', 'tp=4,pp=4,vp=5,cp=2', '--top', '4'],
  infer: ['infer', '--model', 'llama3.1-70b', '--system', 'hgx-h200', '--tp', '2', '--gpus', '8',
          '--ttft-ms', '2000', '--tpot-ms', '40'],
  'infer-sweep': ['infer', '--model', 'deepseek-v3', '--system', 'gb200-nvl72', '--precision', 'fp4', '--sweep',
                  '--gpus', '72', '--ttft-ms', '3000'],
  schedule: ['schedule', '--cluster', 'examples/clusters/gb300-h200-mixed.yaml', '--jobs', '400', '--seed', '3'],
  compare: ['compare'],
  site: ['site', '--cluster', 'examples/clusters/gb300-h200-mixed.yaml', '--site', 'examples/sites/hall-air-liquid.yaml'],
  size: ['size', '--model', 'llama3.1-70b', '--requests-per-s', '20', '--isl', '2048', '--osl', '256',
         '--tokens-per-user-per-s', '20', '--systems', 'hgx-h100', '--systems', 'hgx-b200', '--draws', '200'],
};

let passed = 0, failed = 0;
function check(ok, what) {
  if (ok) passed++;
  else { failed++; console.error(`FAIL ${what}`); }
  return ok;
}

// A minimal PNG decoder (8-bit RGB or RGBA, not interlaced: what Chromium writes) -> {width, height, rgba}.
function decodePng(buf) {
  let pos = 8, width = 0, height = 0, colorType = 0;
  const idat = [];
  while (pos < buf.length) {
    const len = buf.readUInt32BE(pos), type = buf.toString('ascii', pos + 4, pos + 8);
    const data = buf.subarray(pos + 8, pos + 8 + len);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0); height = data.readUInt32BE(4); colorType = data[9];
      if (data[8] !== 8 || data[12] !== 0 || (colorType !== 2 && colorType !== 6)) throw new Error('unsupported PNG');
    } else if (type === 'IDAT') idat.push(data);
    pos += 12 + len;
  }
  const bpp = colorType === 6 ? 4 : 3, stride = width * bpp;
  const raw = zlib.inflateSync(Buffer.concat(idat));
  const out = Buffer.alloc(width * height * 4);
  let prev = Buffer.alloc(stride);
  for (let y = 0; y < height; y++) {
    const f = raw[y * (stride + 1)], line = Buffer.from(raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1)));
    for (let x = 0; x < stride; x++) {
      const a = x >= bpp ? line[x - bpp] : 0, b = prev[x], c = x >= bpp ? prev[x - bpp] : 0;
      let p = 0;
      if (f === 1) p = a; else if (f === 2) p = b; else if (f === 3) p = (a + b) >> 1;
      else if (f === 4) { const q = a + b - c, pa = Math.abs(q - a), pb = Math.abs(q - b), pc = Math.abs(q - c);
                          p = pa <= pb && pa <= pc ? a : pb <= pc ? b : c; }
      line[x] = (line[x] + p) & 255;
    }
    for (let x = 0; x < width; x++) {
      for (let k = 0; k < 3; k++) out[(y * width + x) * 4 + k] = line[x * bpp + k];
      out[(y * width + x) * 4 + 3] = bpp === 4 ? line[x * bpp + 3] : 255;
    }
    prev = line;
  }
  return { width, height, rgba: out };
}

// Share of pixels that are not the white background, and how many distinct strong colours there are.
function inkOf(png) {
  let ink = 0;
  const colours = new Set();
  for (let i = 0; i < png.rgba.length; i += 4) {
    const r = png.rgba[i], g = png.rgba[i + 1], b = png.rgba[i + 2];
    if (r < 245 || g < 245 || b < 245) ink++;
    if (Math.max(r, g, b) - Math.min(r, g, b) > 60) colours.add((r >> 4) << 8 | (g >> 4) << 4 | (b >> 4));
  }
  return { share: ink / (png.width * png.height), colours: colours.size };
}

function pointer(doc, p) {
  let v = doc;
  for (const part of p.split('/').slice(1)) {
    if (v === undefined || v === null) return undefined;
    v = v[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return v;
}

function deepEqual(a, b) {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a), kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => deepEqual(a[k], b[k]));
}

// The number shown in a cell's text agrees with value * scale to the digits shown.
function textAgrees(text, expected) {
  const m = text.replace(/,/g, '').match(/-?\d+(\.\d+)?/);
  if (!m) return false;
  const decimals = m[1] ? m[1].length - 1 : 0;
  return Math.abs(Number(m[0]) - expected) <= 0.5 * Math.pow(10, -decimals) * (1 + 1e-9) + 1e-12 * Math.abs(expected);
}

const freshCache = new Map();
// Runs `gpuplan ARGS` (they end with --json) once per distinct command line.
function runJson(args) {
  const key = JSON.stringify(args);
  if (!freshCache.has(key))
    freshCache.set(key, JSON.parse(execFileSync(opt.gpuplan, args, { encoding: 'utf8', maxBuffer: 64 << 20 })));
  return freshCache.get(key);
}

// Every check of one report page; returns the failures (empty when the page is right).
async function inspect(browser, kind, file, shots, quick = false) {
  const fails = [];
  const expect = (ok, what) => { if (!ok) fails.push(what); return ok; };
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 }, deviceScaleFactor: 1 });
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('file:')) return route.continue();
    problems.push(`network request: ${url}`);
    return route.abort();
  });
  await page.goto('file://' + file);
  await page.waitForSelector('body[data-charts-drawn]', { timeout: 10000 }).catch(() => expect(false, 'the page script never finished'));

  // Every chart drew.
  const charts = await page.$$eval('figure.chart', (figs) => figs.map((f) => ({
    id: f.id, drawn: f.querySelector('canvas')?.getAttribute('data-drawn') === 'true',
    hasData: !!f.querySelector('script.gpuplan-chart-data'), caption: f.querySelector('figcaption')?.textContent || '',
    label: f.querySelector('canvas')?.getAttribute('aria-label') || '', title: f.querySelector('h3')?.textContent || '' })));
  expect(charts.length >= 2, `has charts (${charts.length})`);
  const drawnCount = Number(await page.getAttribute('body', 'data-charts-drawn'));
  expect(drawnCount === charts.length, `${drawnCount} of ${charts.length} charts drawn`);
  for (const c of charts) {
    expect(c.drawn, `${c.id}: canvas drawn`);
    expect(c.hasData, `${c.id}: has its JSON data block`);
    expect(c.caption.length > 30 && c.label.length > 30 && c.title.length > 3, `${c.id}: title, caption and text alternative`);
    const shot = await page.locator(`#${c.id} canvas`).screenshot();
    if (shots) fs.writeFileSync(path.join(shots, `${kind}-${c.id}.png`), shot);
    const png = decodePng(shot);
    const ink = inkOf(png);
    expect(png.width > 300 && png.height > 200 && ink.share > 0.02 && ink.colours >= 2,
           `${c.id}: screenshot not blank (${(100 * ink.share).toFixed(1)}% ink, ${ink.colours} colours, ${png.width}x${png.height})`);
  }
  if (shots) await page.screenshot({ path: path.join(shots, `${kind}.png`), fullPage: true });

  // The numbers equal the commands'.
  const sources = JSON.parse(await page.textContent('#gpuplan-sources'));
  const fresh = {};
  for (const s of sources) {
    fresh[s.id] = runJson(s.args);
    expect(deepEqual(fresh[s.id], s.doc), `embedded ${s.id} equals \`gpuplan ${s.args.join(' ')}\``);
  }
  const cells = await page.$$eval('[data-path]', (els) => els.map((e) => ({
    source: e.dataset.source, path: e.dataset.path, value: Number(e.dataset.value), scale: Number(e.dataset.scale), text: e.textContent })));
  const badCells = [];
  for (const c of cells) {
    const v = pointer(fresh[c.source], c.path);
    if (!(typeof v === 'number' && v === c.value && textAgrees(c.text, v * c.scale)))
      badCells.push(`${c.source}${c.path}: page ${c.value} ('${c.text}', x${c.scale}), command ${v}`);
  }
  expect(cells.length >= 10 && badCells.length === 0,
         `${cells.length} table numbers equal the commands' (${badCells.length} differ: ${badCells.slice(0, 3).join('; ')})`);
  const specs = await page.$$eval('script.gpuplan-chart-data', (bs) => bs.map((b) => JSON.parse(b.textContent)));
  let refs = 0, bands = 0;
  const badRefs = [];
  for (const spec of specs) {
    const all = [];
    spec.series.forEach((s) => all.push(...s.x, ...s.y));
    spec.series.forEach((s) => (s.band || []).forEach((p) => p.low && all.push(p.low, p.high)));
    spec.limits.forEach((l) => l.from && all.push(l.from));
    for (const r of all) {
      refs++;
      if (pointer(fresh[r.source], r.path) !== r.value) badRefs.push(`${spec.id}: ${r.source}${r.path}`);
    }
    // What the chart drew is those numbers, scaled.
    const drawn = await page.evaluate((id) => {
      const ch = typeof Chart === 'undefined' ? undefined : Chart.getChart(document.getElementById(`chart-${id}-canvas`));
      return ch ? ch.data.datasets.map((d) => d.data) : [];
    }, spec.id);
    // Error bands drew the JSON's low/high (or those multipliers of each value) around each value.
    const drawnBands = await page.evaluate((id) => {
      const ch = typeof Chart === 'undefined' ? undefined : Chart.getChart(document.getElementById(`chart-${id}-canvas`));
      return ch ? ch.data.datasets.map((d) => (d.bandLow ? { low: d.bandLow, high: d.bandHigh } : null)) : [];
    }, spec.id);
    spec.series.forEach((s, i) => {
      if (!s.band) return;
      bands++;
      const y = s.y.map((r) => r.value * spec.y_scale);
      const edge = (w) => s.band.map((p, k) => (p[w] ? (p.relative ? y[k] * p[w].value : p[w].value * spec.y_scale) : null));
      const want = { low: edge('low'), high: edge('high') };
      expect(deepEqual(drawnBands[i], want), `${spec.id}: series '${s.name}' drew its error band`);
      const holds = want.low.every((lo, k) => lo === null || (lo <= y[k] * (1 + 1e-12) && want.high[k] >= y[k] * (1 - 1e-12)));
      expect(holds, `${spec.id}: series '${s.name}': each band holds its value`);
    });
    spec.series.forEach((s, i) => {
      const want = spec.type === 'line'
        ? s.x.map((r, k) => ({ x: r.value * spec.x_scale, y: s.y[k].value * spec.y_scale }))
        : s.y.map((r) => r.value * spec.y_scale);
      expect(deepEqual(drawn[i], want), `${spec.id}: series '${s.name}' drew the data block's numbers`);
    });
    // Axes as the spec and caption say: a log axis drawn log (a bar chart too), a y maximum held (a share
    // of GPUs never above 100%); a vertical limit named for what binds (KV cache or the batch cap).
    const axes = await page.evaluate((id) => {
      const ch = typeof Chart === 'undefined' ? undefined : Chart.getChart(document.getElementById(`chart-${id}-canvas`));
      return ch ? { ytype: ch.scales.y.type, ymax: ch.scales.y.max } : null;
    }, spec.id);
    if (axes && spec.y_log) expect(axes.ytype === 'logarithmic', `${spec.id}: y axis drawn on a log scale (${axes.ytype})`);
    if (axes && spec.y_max > 0) expect(axes.ymax <= spec.y_max + 1e-9, `${spec.id}: y axis stops at ${spec.y_max} (${axes.ymax})`);
    if (axes && spec.id === 'utilisation') expect(axes.ymax <= 100 + 1e-9, `utilisation axis at most 100% (${axes.ymax})`);
    for (const l of spec.limits) {
      if (!l.from || !/sequences/.test(l.label)) continue;
      const doc = fresh[l.from.source] || {};
      const cap = (doc.max_batch_size || 0) * (doc.instances || 1);
      const capped = cap > 0 && l.from.value >= cap;
      expect(capped ? /^batch cap/.test(l.label) : /^KV cache full/.test(l.label),
             `${spec.id}: '${l.label}' names what binds (batch cap ${cap}, limit ${l.from.value})`);
    }
  }
  if (['infer', 'infer-sweep', 'compare'].includes(kind)) expect(bands >= 1, `error bands drawn (${bands} series)`);
  expect(refs >= 5 && badRefs.length === 0, `${refs} chart numbers equal the commands' (${badRefs.length} differ: ${badRefs.slice(0, 3).join('; ')})`);
  // Tables (catalog figures and their source URLs too) fit the page: none scrolls or clips sideways.
  const wide = await page.$$eval('.table-wrap', (ws) => ws.filter((w) => w.scrollWidth > w.clientWidth + 1).length);
  expect(wide === 0, `${wide} tables wider than the page`);
  expect(problems.length === 0, `no console errors, page errors or network requests${problems.length ? ': ' + problems.join('; ') : ''}`);

  if (quick) { await context.close(); return { fails }; }  // a tampered copy: the checks above suffice

  // Readable without JavaScript: the tables are plain HTML.
  const plain = await browser.newContext({ javaScriptEnabled: false });
  const p2 = await plain.newPage();
  await p2.goto('file://' + file);
  const rows = await p2.$$eval('main table tbody tr', (trs) => trs.length);
  const noscript = await p2.$$eval('figure.chart noscript', (n) => n.length);
  expect(rows >= 5 && noscript === charts.length, `${rows} table rows readable without JavaScript`);
  await plain.close();
  if (kind === 'train') {
    const pdf = await page.pdf({ format: 'A4', printBackground: false });
    expect(pdf.length > 20000, `prints to PDF (${pdf.length} bytes)`);
  }
  await context.close();
  return { fails, charts: charts.length, cells: cells.length, refs, bands, sources: sources.length };
}

// Copies of a good page with one thing broken: each must fail the checks (so they can fail).
const TAMPERS = {
  'a table number changed': (h) => h.replace(/(<td class="num"[^>]*data-value=")([-0-9.e+]+)(")/, (m, a, v, b) => a + String(Number(v) * 1.01 + 1) + b),
  'a chart value changed': (h) => h.replace(/(class="gpuplan-chart-data"[^>]*>\{.*?"value":)([-0-9.e+]+)/, (m, a, v) => a + String(Number(v) * 1.5 + 1)),
  'the charting library missing': (h) => h.replace(/<script>\/\* chart\.js[\s\S]*?<\/script>/, '<script></script>'),
  'a network request': (h) => h.replace('</main>', '<img src="http://127.0.0.1:9/pixel.png" alt=""></main>'),
};

async function checkKind(browser, kind, args) {
  const file = path.resolve(opt.work, `${kind}.html`);
  const started = Date.now();
  execFileSync(opt.gpuplan, ['report', ...args, '--out', file], { stdio: ['ignore', 'pipe', 'inherit'] });
  const html = fs.readFileSync(file, 'utf8');
  check(html.length > 100000, `${kind}: report written with the charting library inlined`);
  const r = await inspect(browser, kind, file, opt.shots);
  for (const f of r.fails) check(false, `${kind}: ${f}`);
  check(r.fails.length === 0, `${kind}: all checks`);
  if (kind === 'train') {
    for (const [what, tamper] of Object.entries(TAMPERS)) {
      const bad = tamper(html);
      const copy = path.resolve(opt.work, `${kind}-tampered.html`);
      fs.writeFileSync(copy, bad);
      const t = await inspect(browser, kind, copy, undefined, true);
      if (check(bad !== html && t.fails.length > 0, `${kind}: the checks catch ${what}`))
        console.log(`${kind}: caught ${what}: ${t.fails.join(' | ').slice(0, 300)}`);
    }
  }
  console.log(`${kind}: ${r.charts} charts, ${r.cells} table numbers, ${r.refs} chart numbers, ${r.bands} banded series, ${r.sources} sources checked in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

(async () => {
  fs.mkdirSync(opt.work, { recursive: true });
  if (opt.shots) fs.mkdirSync(opt.shots, { recursive: true });
  const browser = await chromium.launch({ executablePath: opt.chromium, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    for (const [kind, args] of Object.entries(KINDS)) {
      try { await checkKind(browser, kind, args); } catch (e) { check(false, `${kind}: ${e.stack || e}`); }
    }
  } finally {
    await browser.close();
  }
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
})();
