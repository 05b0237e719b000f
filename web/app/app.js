// gpuplan serve: the pages. Each page is a form whose inputs become the options of one or two calls
// of the JSON API (/api/v1/<command>); the tables and charts show the documents those calls return,
// unchanged (no number here is computed by the page), and the page shows the CLI command that
// reproduces each document (the server's X-Gpuplan-Command header) and links the report download.
'use strict';

// Okabe-Ito, as the reports.
const PALETTE = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#F0E442', '#000000'];

// ---------- small helpers ----------

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'text') e.textContent = v;
    else if (k.startsWith('data-')) e.setAttribute(k, String(v));
    else if (k in e && typeof v !== 'string') e[k] = v;
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) e.append(c);
  return e;
}

// Four significant digits with thousands separators: what a cell shows of its data-value.
function fmt(v) {
  if (typeof v !== 'number') return String(v);
  if (!Number.isFinite(v)) return String(v);
  if (v === 0) return '0';
  return v.toLocaleString('en-US', { maximumSignificantDigits: 4 });
}

// The value at a dotted path ("top.0.plan.text") of a document.
function at(doc, path) {
  return path.split('.').reduce((o, k) => (o === undefined || o === null ? undefined : o[k]), doc);
}

// A table cell showing the number (or text) at `path` of the document fetched from `src`.
function cell(doc, src, path, scale) {
  const v = at(doc, path);
  const td = el('td', { 'data-src': src, 'data-path': path });
  if (typeof v === 'number') {
    td.dataset.value = String(v);
    if (scale && scale !== 1) td.dataset.scale = String(scale);
    td.textContent = fmt(scale ? v * scale : v);
    td.className = 'num';
  } else {
    td.textContent = v === undefined || v === null ? '-' : String(v);
  }
  return td;
}

function table(caption, headers, rows) {
  return el('table', {},
    el('caption', { text: caption }),
    el('thead', {}, el('tr', {}, headers.map((h) => el('th', { scope: 'col', text: h })))),
    el('tbody', {}, rows));
}

// Fetches the API; returns {doc, url, command} or throws an Error carrying the error document.
async function api(command, options) {
  const url = '/api/v1/' + command + query(options);
  const res = await fetch(url);
  const text = await res.text();
  let doc;
  try { doc = JSON.parse(text); } catch (e) { doc = { message: text }; }
  if (!res.ok) {
    const err = new Error(doc.message || ('HTTP ' + res.status));
    err.field = doc.field;
    err.status = res.status;
    throw err;
  }
  return { doc, url, command: res.headers.get('X-Gpuplan-Command') || '' };
}

function query(options) {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(options)) {
    if (v === undefined || v === null || v === '' || v === false) continue;
    if (Array.isArray(v)) v.forEach((x) => p.append(k, x));
    else if (v === true) p.append(k, '');
    else p.append(k, v);
  }
  const s = p.toString();
  return s ? '?' + s : '';
}

function list(text) {
  return String(text || '').split(',').map((s) => s.trim()).filter(Boolean);
}

// ---------- charts ----------

const charts = new Map();
let renders = 0;

function chart(id, label, config, heightPx) {
  const canvas = el('canvas', { id, role: 'img', 'aria-label': label });
  const box = el('div', { class: 'chart' }, canvas);
  if (heightPx) box.style.height = heightPx + 'px';  // a bar per row: tall enough for every label
  const fig = el('figure', {}, box, el('figcaption', { text: label }));
  queueMicrotask(() => {
    if (charts.has(id)) charts.get(id).destroy();
    config.options = Object.assign({ animation: false, responsive: true, maintainAspectRatio: false }, config.options);
    config.plugins = [{
      id: 'drawn',
      afterRender: (c) => { c.canvas.dataset.drawn = String(renders); },
    }];
    charts.set(id, new Chart(canvas, config));
  });
  return fig;
}

// No plan of a training search fits (or none divides the GPUs and batch): what came closest and the
// GPU count that would fit (more GPUs where memory is short, fewer where the batch cannot spread).
function noPlanFits(d) {
  const text = (p) => (typeof p === 'string' ? p : p.text);
  const more = Boolean(d.closest);
  return [el('ul', {},
    el('li', { text: d.status ? d.status.message : `No plan fits on ${d.num_gpus || d.gpus} GPUs.` }),
    d.closest ? el('li', { text: 'Closest: ' + text(d.closest.plan) }) : null,
    el('li', { text: d.fits_from
      ? `It ${more ? 'fits from' : 'runs on'} ${d.fits_from.gpus} GPUs (the same global batch): ${text(d.fits_from.plan)}`
      : `No ${more ? 'larger' : 'smaller'} job fits either.` }))];
}

function axis(title, type) {
  return { type: type || 'linear', title: { display: true, text: title } };
}

function frontierSeries(points, label, colour) {
  return {
    label, borderColor: colour, backgroundColor: colour, showLine: true, pointRadius: 2,
    data: points.map((p) => ({ x: p.tokens_per_s_per_user, y: p.tokens_per_s_per_gpu })),
  };
}

// ---------- the pages ----------

const SYSTEM = { name: 'system', label: 'System', list: 'systems' };
const MODEL = { name: 'model', label: 'Model', list: 'models' };

const PAGES = {
  compare: {
    title: 'Compare two systems',
    lead: 'Is one system really N times the other, and for what? Every yardstick per GPU, per system, per $ and per watt, and both serving frontiers.',
    report: 'compare',
    fields: [
      { name: 'a', label: 'System A', value: 'gb300-nvl72', list: 'systems' },
      { name: 'b', label: 'System B', value: 'hgx-h200', list: 'systems' },
      { name: 'model', label: 'Models (comma-separated)', value: 'llama3.1-70b', list: 'models' },
      { name: 'task', label: 'Task', value: 'both', choices: ['both', 'train', 'infer'] },
      { name: 'per', label: 'Values per', value: 'gpu', choices: ['gpu', 'system', 'usd', 'watt'] },
      { name: 'isl', label: 'Serving input tokens (ISL)', value: '1024', type: 'number' },
      { name: 'osl', label: 'Serving output tokens (OSL)', value: '1024', type: 'number' },
      { name: 'precision', label: 'Serving precision (common)', value: 'fp8', choices: ['fp8', 'fp4', 'bf16', 'w4a16'] },
      { name: 'tokens-per-user-per-s', label: 'Serving tokens/s per user', value: '50', type: 'number' },
      { name: 'ttft-ms', label: 'Serving TTFT limit (ms; empty: MLPerf Server limit by ISL, 0: none)', value: '', type: 'number' },
    ],
    calls: (v) => {
      const o = { positional: [v.a, v.b], model: list(v.model), task: v.task, per: v.per };
      if (v.task !== 'train')
        Object.assign(o, { isl: v.isl, osl: v.osl, precision: v.precision,
                           'tokens-per-user-per-s': v['tokens-per-user-per-s'], 'ttft-ms': v['ttft-ms'] });
      return [['compare', o]];
    },
    render: ([c], v) => {
      const d = c.doc, per = v.per;
      const rows = d.yardsticks.map((y, i) => el('tr', {},
        el('th', { scope: 'row', text: y.name }),
        el('td', { text: y.unit || '' }),
        cell(d, c.url, `yardsticks.${i}.per.${per}.a`),
        cell(d, c.url, `yardsticks.${i}.per.${per}.b`),
        cell(d, c.url, `yardsticks.${i}.per.${per}.ratio`),
        el('td', { text: y.headline || '' })));
      const usable = d.yardsticks.map((y, i) => [y, i]).filter(([y]) => y.per && y.per[per] && Number.isFinite(y.per[per].ratio) && y.per[per].ratio > 0);
      const out = [
        chart('ratios', `A over B by yardstick, per ${per} (log scale; 1 = equal)`, {
          type: 'bar',
          data: {
            labels: usable.map(([y]) => y.name),
            datasets: [{ label: `${d.a.display_name} / ${d.b.display_name}`, backgroundColor: PALETTE[0],
                         data: usable.map(([y]) => y.per[per].ratio) }],
          },
          options: { indexAxis: 'y', scales: { x: axis('ratio A / B', 'logarithmic'), y: { ticks: { autoSkip: false } } } },
        }, 60 + 18 * usable.length),
        table(`Yardsticks: A = ${d.a.display_name}, B = ${d.b.display_name}, per ${per}`,
              ['yardstick', 'unit', 'A', 'B', 'A / B', 'headline that uses it'], rows),
      ];
      (d.models || []).forEach((m, k) => {
        const inf = m.inference;
        if (!inf || !inf.frontier_a) return;
        const chosen = ['a', 'b'].map((side) => {
          const base = `models.${k}.inference.at_interactivity_${side}`;
          return el('tr', {}, el('th', { scope: 'row', text: side === 'a' ? d.a.display_name : d.b.display_name }),
            cell(d, c.url, `${base}.point.tokens_per_s_per_gpu`), cell(d, c.url, `${base}.point.ttft_s`),
            cell(d, c.url, `${base}.gpus`), cell(d, c.url, `${base}.kind`), cell(d, c.url, `${base}.plan_text`),
            cell(d, c.url, `${base}.why_not`));
        });
        out.push(table(`${m.model} at ${inf.tokens_per_s_per_user} tokens/s per user, ISL/OSL ${inf.isl}/${inf.osl}, TTFT limit ${inf.ttft_limit_s} s (the chooser of infer, cost, recommend)`,
                       ['system', 'tokens/s per GPU', 'TTFT (s)', 'GPUs', 'deployment', 'plan', 'why none'], chosen));
        const rows = (inf.curve || []).map((r, i) => el('tr', {},
          cell(d, c.url, `models.${k}.inference.curve.${i}.tokens_per_s_per_user`),
          cell(d, c.url, `models.${k}.inference.curve.${i}.a`), cell(d, c.url, `models.${k}.inference.curve.${i}.ttft_a_s`),
          cell(d, c.url, `models.${k}.inference.curve.${i}.gpus_a`),
          cell(d, c.url, `models.${k}.inference.curve.${i}.b`), cell(d, c.url, `models.${k}.inference.curve.${i}.ttft_b_s`),
          cell(d, c.url, `models.${k}.inference.curve.${i}.gpus_b`),
          cell(d, c.url, `models.${k}.inference.curve.${i}.ratio`)));
        out.push(table(`${m.model}: the chooser's answer at each interactivity (tokens/s per GPU, with its TTFT)`,
                       ['tokens/s per user', 'A', 'A TTFT (s)', 'A GPUs', 'B', 'B TTFT (s)', 'B GPUs', 'A / B'], rows));
        out.push(chart(`frontier-${k}`, `${m.model}: serving frontiers, tokens/s per GPU against tokens/s per user`, {
          type: 'scatter',
          data: { datasets: [frontierSeries(inf.frontier_a, d.a.display_name, PALETTE[0]),
                             frontierSeries(inf.frontier_b, d.b.display_name, PALETTE[1])] },
          options: { scales: { x: axis('tokens/s per user'), y: axis('tokens/s per GPU') } },
        }));
      });
      return out;
    },
  },

  infer: {
    title: 'Serving what-if',
    lead: 'Change any input: the frontier (throughput per GPU against interactivity) and your operating point redraw.',
    report: 'infer',
    fields: [
      MODEL, SYSTEM,
      { name: 'isl', label: 'Input tokens (ISL)', value: '1024', type: 'number' },
      { name: 'osl', label: 'Output tokens (OSL)', value: '1024', type: 'number' },
      { name: 'precision', label: 'Precision', value: 'fp8', choices: ['fp8', 'fp4', 'bf16'] },
      { name: 'gpus', label: 'GPUs (empty: whole units, as many as the best deployment needs)', value: '', type: 'number' },
      { name: 'target', label: 'Operating point', value: 'interactivity', choices: ['interactivity', 'concurrency'] },
      { name: 'target_value', label: 'tokens/s per user, or sequences in flight', value: '50', type: 'number' },
      { name: 'ttft-ms', label: 'TTFT limit (ms; empty: MLPerf Server limit by ISL, 0: none)', value: '', type: 'number' },
      { name: 'deployment', label: 'Deployment', value: 'any', choices: ['any', 'aggregated', 'disaggregated'] },
    ],
    defaults: { model: 'llama3.1-70b', system: 'hgx-h200' },
    options: (v) => {
      const o = { model: v.model, system: v.system, isl: v.isl, osl: v.osl, precision: v.precision, gpus: v.gpus };
      if (v.target === 'concurrency') o.concurrency = v.target_value;
      else Object.assign(o, { 'tokens-per-user-per-s': v.target_value, 'ttft-ms': v['ttft-ms'] });
      if (v.deployment === 'disaggregated') o.disagg = true;
      if (v.deployment === 'aggregated' && v.target !== 'concurrency') o['aggregated-only'] = true;
      return o;
    },
    calls: (v) => {
      const sweep = { model: v.model, system: v.system, isl: v.isl, osl: v.osl, precision: v.precision, gpus: v.gpus,
                      'ttft-ms': v['ttft-ms'], sweep: true };
      if (v.deployment === 'aggregated') sweep['aggregated-only'] = true;
      return [['infer', PAGES.infer.options(v)], ['infer', sweep]];
    },
    render: ([p, s]) => {
      const d = p.doc, f = s.doc.frontier || [];
      const point = [
        ['tokens/s per GPU', 'tokens_per_s_per_gpu'], ['tokens/s per user', 'tokens_per_s_per_user'],
        ['TTFT (ms)', 'ttft_s', 1000], ['TPOT (ms)', 'tpot_s', 1000], ['concurrency', 'concurrency'],
        ['GPUs', 'gpus'], ['units', 'units'], ['deployment', 'plan'], ['TTFT limit (s)', 'ttft_limit_s'],
        ['memory per GPU (GB)', 'memory.total_bytes', 1e-9], ['fits and meets the limits', 'valid'],
      ].map(([name, path, scale]) => el('tr', {}, el('th', { scope: 'row', text: name }), cell(d, p.url, path, scale)));
      const frows = f.map((q, i) => el('tr', {},
        cell(s.doc, s.url, `frontier.${i}.tokens_per_s_per_user`), cell(s.doc, s.url, `frontier.${i}.tokens_per_s_per_gpu`),
        cell(s.doc, s.url, `frontier.${i}.concurrency`), cell(s.doc, s.url, `frontier.${i}.plan`),
        cell(s.doc, s.url, `frontier.${i}.ttft_s`, 1000), cell(s.doc, s.url, `frontier.${i}.tpot_s`, 1000)));
      return [
        chart('frontier', `${d.model} on ${d.system}: tokens/s per GPU against tokens/s per user (frontier, and your point)`, {
          type: 'scatter',
          data: { datasets: [
            frontierSeries(f, 'frontier (--sweep)', PALETTE[0]),
            { label: 'your point', backgroundColor: PALETTE[1], borderColor: PALETTE[1], pointRadius: 7, pointStyle: 'rectRot',
              data: [{ x: d.tokens_per_s_per_user, y: d.tokens_per_s_per_gpu }] },
          ] },
          options: { scales: { x: axis('tokens/s per user'), y: axis('tokens/s per GPU') } },
        }),
        table('Your operating point', ['', 'value'], point),
        el('details', {}, el('summary', { text: `The frontier: ${f.length} points` }),
          table('Pareto frontier', ['tokens/s per user', 'tokens/s per GPU', 'concurrency', 'plan', 'TTFT (ms)', 'TPOT (ms)'], frows)),
      ];
    },
  },

  recipes: {
    title: 'Deployment recipes',
    lead: 'A published deployment (model, system, engine, pools, MTP, batch caps, with its source) evaluated as infer evaluates typed options.',
    fields: [
      { name: 'recipe', label: 'Recipe (gpuplan recipe list --kind deployment)', value: 'trtllm/b200-fp4/1k1k/mtp/ctx1_gen2_dep8_batch64_eplb0_mtp2', list: 'recipes' },
      { name: 'as-of', label: 'As of (YYYY-MM-DD; empty: the recipe\'s first day)', value: '' },
      { name: 'concurrency', label: 'Concurrency (empty: the benchmark\'s largest)', value: '', type: 'number' },
    ],
    calls: (v) => [['recipe', { positional: ['show', v.recipe] }],
                   ['infer', { recipe: v.recipe, 'as-of': v['as-of'], concurrency: v.concurrency }]],
    render: ([r, p]) => {
      const d = p.doc;
      const fields = [['kind', 'recipe.kind'], ['model', 'recipe.model'], ['system', 'recipe.system'],
        ['engine', 'recipe.engine'], ['weights', 'recipe.weights'], ['ISL', 'recipe.isl'], ['OSL', 'recipe.osl'],
        ['prefill workers', 'recipe.prefill.workers'], ['prefill GPUs a worker', 'recipe.prefill.gpus_per_worker'],
        ['decode workers', 'recipe.decode.workers'], ['decode GPUs a worker', 'recipe.decode.gpus_per_worker'],
        ['decode attention-DP', 'recipe.decode.attention_dp'], ['decode max batch', 'recipe.decode.max_batch'],
        ['MTP draft tokens', 'recipe.mtp_draft_tokens'], ['dates from', 'recipe.valid_from'], ['dates to', 'recipe.valid_to'],
        ['source', 'recipe.source'], ['commit', 'recipe.commit'], ['recipe', 'recipe.recipe'],
      ].map(([name, path]) => el('tr', {}, el('th', { scope: 'row', text: name }), cell(r.doc, r.url, path)));
      const point = [
        ['tokens/s per GPU', 'tokens_per_s_per_gpu'], ['tokens/s per user', 'tokens_per_s_per_user'],
        ['TTFT (ms)', 'ttft_s', 1000], ['TPOT (ms)', 'tpot_s', 1000], ['concurrency', 'concurrency'], ['GPUs', 'gpus'],
      ].map(([name, path, scale]) => el('tr', {}, el('th', { scope: 'row', text: name }), cell(d, p.url, path, scale)));
      const notes = [...(d.recipe.overridden || []).map((o) => 'overridden: ' + o), ...(d.recipe.notes || [])];
      const parts = [['front end', 'request_overhead_s'], ['queue', 'queue_wait_s'], ['prefill', 'prefill_s'],
        ['KV transfer', 'kv_transfer_s']].filter(([, k]) => typeof d[k] === 'number');
      return [
        chart('ttft', 'Where the TTFT goes (ms)', {
          type: 'bar',
          data: { labels: ['TTFT'], datasets: parts.map(([label, k], i) => ({ label, data: [d[k] * 1000], backgroundColor: PALETTE[i % PALETTE.length] })) },
          options: { indexAxis: 'y', scales: { x: Object.assign(axis('ms'), { stacked: true }), y: { stacked: true } } },
        }),
        table('The recipe', ['', 'value'], fields), table('Its deployment, evaluated', ['', 'value'], point),
        el('ul', {}, notes.map((n) => el('li', { text: n })))];
    },
  },

  train: {
    title: 'Training step',
    lead: 'One training step under a plan (leave the plan empty for the best plan the search finds): time, throughput, MFU and where the time goes.',
    report: 'train',
    fields: [
      { name: 'model', label: 'Model', value: 'llama3.1-70b', list: 'models' },
      { name: 'system', label: 'System', value: 'hgx-h100', list: 'systems' },
      { name: 'gpus', label: 'GPUs', value: '64', type: 'number' },
      { name: 'global-batch', label: 'Global batch (sequences)', value: '128', type: 'number' },
      { name: 'seq', label: 'Sequence length', value: '8192', type: 'number' },
      { name: 'precision', label: 'Precision', value: 'fp8', choices: ['bf16', 'fp8', 'mxfp8', 'nvfp4'] },
      { name: 'plan', label: 'Plan (tp=..,pp=..; empty: searched)', value: 'tp=4,pp=4,vp=5,cp=2' },
    ],
    calls: (v) => [['train', v]],
    render: ([t]) => {
      const d = t.doc;
      if (d.status && /^(memory\.no_plan_fits|plan\.no_plan_divides)$/.test(d.status.code)) return noPlanFits(d);
      const parts = Object.entries(d.breakdown || {}).filter(([k, x]) => k.endsWith('_s') && k !== 'total_s' && k !== 'step_time_s' && typeof x === 'number' && x > 0);
      const rows = [
        ['step time (s)', 'step_time_s'], ['tokens/s per GPU', 'tokens_per_s_per_gpu'], ['tokens/s', 'tokens_per_s'],
        ['MFU (6N, %)', 'mfu.6n', 100], ['MFU with attention (%)', 'mfu.with_attention', 100],
        ['model TFLOP/s per GPU', 'model_tflops_per_gpu'], ['memory per GPU (GB)', 'memory.total_bytes', 1e-9],
        ['fits', 'fits'], ['plan', 'plan.text'], ['plan from', 'plan_source'],
      ].map(([name, path, scale]) => el('tr', {}, el('th', { scope: 'row', text: name }), cell(d, t.url, path, scale)));
      return [
        chart('breakdown', 'Where the step time goes (s)', {
          type: 'bar',
          data: { labels: ['step'], datasets: parts.map(([k, x], i) => ({ label: k.replace(/_s$/, ''), data: [x], backgroundColor: PALETTE[i % PALETTE.length] })) },
          options: { indexAxis: 'y', scales: { x: Object.assign(axis('seconds'), { stacked: true }), y: { stacked: true } } },
        }),
        table('The step', ['', 'value'], rows),
        table('Breakdown (s)', ['part', 'seconds'], parts.map(([k]) => el('tr', {}, el('th', { scope: 'row', text: k }), cell(d, t.url, `breakdown.${k}`)))),
      ];
    },
  },

  search: {
    title: 'Plan search',
    lead: 'The fastest TP/PP/VP/CP/EP/DP, micro-batch, recompute and ZeRO plans that fit.',
    report: 'train',
    fields: [
      { name: 'model', label: 'Model', value: 'llama3.1-70b', list: 'models' },
      { name: 'system', label: 'System', value: 'hgx-h100', list: 'systems' },
      { name: 'gpus', label: 'GPUs', value: '64', type: 'number' },
      { name: 'global-batch', label: 'Global batch (sequences)', value: '128', type: 'number' },
      { name: 'seq', label: 'Sequence length', value: '8192', type: 'number' },
      { name: 'precision', label: 'Precision', value: 'bf16', choices: ['bf16', 'fp8', 'mxfp8', 'nvfp4'] },
      { name: 'top', label: 'Plans shown', value: '5', type: 'number' },
    ],
    calls: (v) => [['search', v]],
    render: ([r]) => {
      const d = r.doc, top = d.top || [];
      if (!top.length && 'fits_from' in d) return noPlanFits(d);
      const rows = top.map((p, i) => el('tr', {},
        cell(d, r.url, `top.${i}.rank`), cell(d, r.url, `top.${i}.plan.text`), cell(d, r.url, `top.${i}.tokens_per_s_per_gpu`),
        cell(d, r.url, `top.${i}.mfu_6n`, 100), cell(d, r.url, `top.${i}.step_time_s`), cell(d, r.url, `top.${i}.memory.total_bytes`, 1e-9)));
      return [
        chart('plans', 'Tokens/s per GPU of the best plans', {
          type: 'bar',
          data: { labels: top.map((p) => '#' + p.rank), datasets: [{ label: 'tokens/s per GPU', backgroundColor: PALETTE[2], data: top.map((p) => p.tokens_per_s_per_gpu) }] },
          options: { scales: { y: axis('tokens/s per GPU') } },
        }),
        table(`Best plans of ${d.evaluated} evaluated (${d.enumerated} enumerated)`, ['rank', 'plan', 'tokens/s per GPU', 'MFU (6N, %)', 'step (s)', 'memory per GPU (GB)'], rows),
      ];
    },
  },

  recommend: {
    title: 'Recommend',
    lead: 'The catalog ranked for one workload: fit, GPUs, throughput, cost and energy.',
    report: null,
    fields: [
      { name: 'model', label: 'Model', value: 'llama3.1-70b', list: 'models' },
      { name: 'task', label: 'Task', value: 'infer', choices: ['infer', 'train', 'finetune'] },
      { name: 'isl', label: 'Input tokens (ISL, infer)', value: '1024', type: 'number' },
      { name: 'osl', label: 'Output tokens (OSL, infer)', value: '1024', type: 'number' },
      { name: 'users', label: 'Concurrent users (infer)', value: '64', type: 'number' },
      { name: 'tokens-per-user-per-s', label: 'Tokens/s per user (infer; 0: none)', value: '50', type: 'number' },
      { name: 'tpot-ms', label: 'TPOT limit (ms, infer; instead of tokens/s per user)', value: '', type: 'number' },
      { name: 'ttft-ms', label: 'TTFT limit (ms, infer; empty: MLPerf Server limit by ISL, 0: none)', value: '', type: 'number' },
      { name: 'precision', label: 'Precision (empty: train bf16, infer fp8)', value: '', choices: ['', 'bf16', 'fp8', 'mxfp8', 'nvfp4', 'fp4'] },
      { name: 'tokens', label: 'Tokens to train on (train/finetune; empty: 20 x parameters, finetune 1e9)', value: '', type: 'number' },
      { name: 'seq', label: 'Sequence length (train/finetune; empty: 8192, finetune 4096)', value: '', type: 'number' },
      { name: 'global-batch', label: 'Global batch (sequences, train/finetune; empty: the model\'s)', value: '', type: 'number' },
      { name: 'deadline-days', label: 'Deadline (days, train/finetune; empty: 90, finetune 2)', value: '', type: 'number' },
      { name: 'method', label: 'Fine-tuning method (finetune)', value: 'full', choices: ['full', 'lora', 'qlora'] },
      { name: 'lora-rank', label: 'LoRA/QLoRA rank (finetune)', value: '16', type: 'number' },
      { name: 'budget-usd', label: 'Budget (USD; train: the run, infer: a year of TCO; empty: none)', value: '', type: 'number' },
      { name: 'gpus-available', label: 'At most this many GPUs (empty: no limit)', value: '', type: 'number' },
    ],
    // Each task gets the options the CLI has for it.
    calls: (v) => {
      const pick = (names) => Object.fromEntries(names.map((n) => [n, v[n]]));
      const common = pick(['model', 'task', 'precision', 'budget-usd', 'gpus-available']);
      if (v.task === 'infer')
        return [['recommend', Object.assign(common, pick(['isl', 'osl', 'users', 'tokens-per-user-per-s', 'tpot-ms', 'ttft-ms']))]];
      const o = Object.assign(common, pick(['tokens', 'seq', 'global-batch', 'deadline-days']));
      if (v.task === 'finetune') Object.assign(o, pick(['method']), v.method === 'full' ? {} : pick(['lora-rank']));
      return [['recommend', o]];
    },
    render: ([r]) => {
      const d = r.doc, ranked = (d.ranked || []).slice(0, 15);
      const rows = ranked.map((x, i) => el('tr', {},
        cell(d, r.url, `ranked.${i}.rank`), cell(d, r.url, `ranked.${i}.name`), cell(d, r.url, `ranked.${i}.feasible`),
        cell(d, r.url, `ranked.${i}.gpus`), cell(d, r.url, `ranked.${i}.tokens_per_s`),
        cell(d, r.url, `ranked.${i}.tokens_per_s_per_user`), cell(d, r.url, `ranked.${i}.ttft_s`),
        cell(d, r.url, `ranked.${i}.usd_per_million_tokens`), cell(d, r.url, `ranked.${i}.joules_per_token`)));
      const priced = ranked.filter((x) => typeof x.usd_per_million_tokens === 'number' && x.usd_per_million_tokens > 0);
      return [
        chart('cost', '$ per million tokens, best-ranked first', {
          type: 'bar',
          data: { labels: priced.map((x) => x.name), datasets: [{ label: '$ per million tokens', backgroundColor: PALETTE[0], data: priced.map((x) => x.usd_per_million_tokens) }] },
          options: { indexAxis: 'y', scales: { x: axis('$ per million tokens') } },
        }),
        table('Ranked (first 15)', ['rank', 'system', 'fits', 'GPUs', 'tokens/s', 'tokens/s per user', 'TTFT (s)', '$ / M tokens', 'J / token'], rows),
      ];
    },
  },

  site: {
    title: 'What a power budget buys',
    lead: 'GPUs and training and serving tokens/s per MW of each system under one facility power budget.',
    report: null,
    fields: [
      { name: 'power-mw', label: 'Facility power (MW)', value: '10', type: 'number' },
      { name: 'systems', label: 'Systems (comma-separated)', value: 'hgx-h200,gb200-nvl72,gb300-nvl72', list: 'systems' },
      { name: 'model', label: 'Training model', value: 'llama3.1-70b', list: 'models' },
      { name: 'seq', label: 'Training sequence length', value: '8192', type: 'number' },
      { name: 'global-batch', label: 'Training global batch (sequences; empty: the model\'s)', value: '', type: 'number' },
      { name: 'precision', label: 'Training precision', value: 'bf16', choices: ['bf16', 'fp8', 'mxfp8', 'nvfp4'] },
      { name: 'infer-model', label: 'Serving model', value: 'llama3.1-70b', list: 'models' },
      { name: 'infer-precision', label: 'Serving precision', value: 'fp8', choices: ['fp8', 'fp4', 'bf16', 'w4a16'] },
      { name: 'isl', label: 'Serving input tokens (ISL)', value: '1024', type: 'number' },
      { name: 'osl', label: 'Serving output tokens (OSL)', value: '1024', type: 'number' },
      { name: 'tokens-per-user-per-s', label: 'Serving tokens/s per user (empty: no limit)', value: '', type: 'number' },
      { name: 'tpot-ms', label: 'Serving TPOT limit (ms; empty: none)', value: '', type: 'number' },
      { name: 'ttft-ms', label: 'Serving TTFT limit (ms; empty: MLPerf Server limit by ISL)', value: '', type: 'number' },
      { name: 'pue', label: 'PUE (empty: 1.3)', value: '', type: 'number' },
    ],
    calls: (v) => [['site', v]],
    render: ([r]) => {
      const d = r.doc, sys = (d.budget && d.budget.systems) || [];
      const rows = sys.map((s, i) => el('tr', {},
        cell(d, r.url, `budget.systems.${i}.system`), cell(d, r.url, `budget.systems.${i}.units`), cell(d, r.url, `budget.systems.${i}.gpus`),
        cell(d, r.url, `budget.systems.${i}.training_tokens_per_s_per_mw`), cell(d, r.url, `budget.systems.${i}.serving.output_tokens_per_s_per_mw`),
        cell(d, r.url, `budget.systems.${i}.serving.tokens_per_s_per_user`), cell(d, r.url, `budget.systems.${i}.serving.ttft_s`)));
      return [
        chart('per-mw', 'Tokens/s per MW of facility power', {
          type: 'bar',
          data: { labels: sys.map((s) => s.system), datasets: [
            { label: 'training tokens/s per MW', backgroundColor: PALETTE[0], data: sys.map((s) => s.training_tokens_per_s_per_mw) },
            { label: 'serving output tokens/s per MW', backgroundColor: PALETTE[1], data: sys.map((s) => s.serving && s.serving.output_tokens_per_s_per_mw) },
          ] },
          options: { scales: { y: axis('tokens/s per MW') } },
        }),
        table('Per system', ['system', 'units', 'GPUs', 'training tokens/s per MW', 'serving tokens/s per MW', 'serving tokens/s per user', 'serving TTFT (s)'], rows),
      ];
    },
  },
};

// ---------- the page shell ----------

function home(main) {
  main.append(el('h1', { text: 'gpuplan' }),
    el('p', { text: 'Which accelerators, how many, wired how, at what cost, and what will we really get? The pages below answer with the same calibrated model as the command line; every number comes from this server\'s JSON API.' }),
    el('ul', {}, Object.entries(PAGES).map(([name, p]) => el('li', {}, el('a', { href: '/' + name, text: p.title }), ' — ' + p.lead))),
    el('p', {}, 'JSON API: ', el('a', { href: '/api/v1', text: '/api/v1' }), ' lists the commands; ', el('code', { text: 'GET /api/v1/<command>?option=value' }), ' or POST a JSON object.'));
  document.body.dataset.renders = '0';
}

async function fillLists() {
  const lists = { systems: ['catalog', { positional: ['list'] }, 'systems'], models: ['model', { positional: ['list'] }, 'models'],
    recipes: ['recipe', { positional: ['list'], kind: 'deployment' }, 'recipes'] };
  for (const [id, [command, options, key]] of Object.entries(lists)) {
    const dl = el('datalist', { id });
    document.body.append(dl);
    try {
      const { doc } = await api(command, options);
      for (const x of doc[key] || []) if (x.name) dl.append(el('option', { value: x.name }));
    } catch (e) { /* the lists only help typing; the inputs take any name */ }
  }
}

function page(main, name, spec) {
  document.title = `gpuplan: ${spec.title}`;
  const params = new URLSearchParams(location.search);
  const form = el('form', { id: 'inputs', 'aria-label': 'Inputs' });
  for (const f of spec.fields) {
    const id = 'in-' + f.name;
    const value = params.has(f.name) ? params.get(f.name) : (spec.defaults && spec.defaults[f.name]) || f.value || '';
    const input = f.choices
      ? el('select', { id, name: f.name }, f.choices.map((c) => el('option', { value: c, text: c, selected: c === value })))
      : el('input', { id, name: f.name, type: f.type || 'text', value, list: f.list, step: f.type === 'number' ? 'any' : undefined });
    form.append(el('label', { for: id }, el('span', { text: f.label }), input));
  }
  const status = el('p', { id: 'status', role: 'status', 'aria-live': 'polite' });
  const cli = el('div', { id: 'cli', class: 'cli' });
  const actions = el('div', { class: 'actions' });
  const result = el('div', { id: 'result' });
  main.append(el('h1', { text: spec.title }), el('p', { class: 'lead', text: spec.lead }), form, status, cli, actions, result);

  let seq = 0, timer = null;
  const values = () => Object.fromEntries(spec.fields.map((f) => [f.name, form.elements[f.name].value.trim()]));
  async function run() {
    const mine = ++seq;
    const v = values();
    status.textContent = 'Computing…';
    status.className = '';
    form.querySelectorAll('[aria-invalid]').forEach((x) => x.removeAttribute('aria-invalid'));
    try {
      const answers = await Promise.all(spec.calls(v).map(([c, o]) => api(c, clean(o))));
      if (mine !== seq) return;  // a newer input won
      renders++;
      history.replaceState(null, '', '/' + name + '?' + new URLSearchParams(v).toString());
      cli.replaceChildren(el('h2', { text: 'Reproduce it' }), ...answers.map((a) => el('p', {},
        el('code', { class: 'command', text: a.command }), ' ', el('a', { class: 'api-link', href: a.url, text: 'JSON' }))));
      const first = answers[0];
      const reportOptions = spec.report === 'infer' ? clean(PAGES.infer.options(v)) : clean(spec.calls(v)[0][1]);
      actions.replaceChildren(spec.report
        ? el('a', { id: 'download', class: 'button', href: '/report/' + spec.report + query(reportOptions), download: `gpuplan-${spec.report}.html`, text: 'Download the report' })
        : el('a', { id: 'download', class: 'button', href: first.url, download: `gpuplan-${name}.json`, text: 'Download the JSON' }));
      result.replaceChildren(...spec.render(answers, v));
      status.textContent = '';
      document.body.dataset.renders = String(renders);
    } catch (e) {
      if (mine !== seq) return;
      status.textContent = 'Error: ' + e.message;
      status.className = 'error';
      const bad = e.field && form.elements[String(e.field).replace(/^-+/, '')];
      if (bad) bad.setAttribute('aria-invalid', 'true');
      document.body.dataset.errors = String((Number(document.body.dataset.errors) || 0) + 1);
    }
  }
  const later = () => { clearTimeout(timer); timer = setTimeout(run, 250); };
  form.addEventListener('input', later);
  form.addEventListener('change', later);
  form.addEventListener('submit', (e) => { e.preventDefault(); run(); });
  run();
}

// Drops empty options (an empty input means the command's default).
function clean(o) {
  const out = {};
  for (const [k, v] of Object.entries(o)) {
    if (v === '' || v === undefined || v === null || v === false) continue;
    if (Array.isArray(v) && v.length === 0) continue;
    out[k] = v;
  }
  return out;
}

document.addEventListener('DOMContentLoaded', () => {
  const main = document.getElementById('main');
  const name = location.pathname.replace(/^\/+|\/+$/g, '');
  for (const a of document.querySelectorAll('nav a')) if (a.getAttribute('href') === '/' + name) a.setAttribute('aria-current', 'page');
  if (PAGES[name]) page(main, name, PAGES[name]);
  else home(main);
  fillLists();
});
