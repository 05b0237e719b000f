// gpuplan serve: the size page (a demand sized on every system, with the odds and the money). Loaded
// after app.js, whose helpers (el, cell, table, chart, axis, list, PALETTE) and page table it uses; it
// asks what `gpuplan size` asks and shows its document unchanged (docs/sizing.md).
'use strict';

PAGES.size = {
  title: 'Size a demand',
  lead: 'A serving demand and its SLA sized on every system: the units to buy for the confidence asked, what they cost, their power, the chance each meets the SLA and is the cheapest.',
  report: 'size',
  fields: [
    { name: 'model', label: 'Model', value: 'llama3.1-70b', list: 'models' },
    { name: 'demand', label: 'Demand is', value: 'requests-per-s', choices: ['requests-per-s', 'users', 'tokens-per-day'] },
    { name: 'amount', label: 'Demand (requests/s, concurrent users or tokens/day)', value: '10', type: 'number' },
    { name: 'peak-factor', label: 'Peak over average demand', value: '1', type: 'number' },
    { name: 'isl', label: 'Input tokens (ISL)', value: '1024', type: 'number' },
    { name: 'osl', label: 'Output tokens (OSL)', value: '1024', type: 'number' },
    { name: 'isl-max', label: 'Longest prompt (tokens; lengths vary as a dataset\'s about ISL/OSL; 0: every request exactly ISL/OSL)', value: '0', type: 'number' },
    { name: 'length-low', label: 'Or a benchmark client\'s lengths: uniform in [this, 1] x the longest (InferenceX: 0.8; 1: every request exactly ISL/OSL)', value: '1', type: 'number' },
    { name: 'precision', label: 'Weights format', value: 'fp8', choices: ['fp8', 'bf16', 'mxfp8', 'nvfp4', 'fp4', 'w4a16'] },
    { name: 'engine', label: 'Serving engine (empty: none stated; systems it does not run on say so)', value: '', choices: ['', 'vllm', 'sglang', 'tensorrt-llm', 'tensorrt-llm-pytorch', 'atom', 'dynamo+sglang', 'dynamo+tensorrt-llm', 'sglang+mori'] },
    { name: 'ttft-p99-ms', label: 'SLA: TTFT p99 (ms; empty: MLPerf Server limit by ISL, 0: none)', value: '', type: 'number' },
    { name: 'tokens-per-user-per-s', label: 'SLA: tokens/s per user (median request; empty: none)', value: '20', type: 'number' },
    { name: 'tpot-p99-ms', label: 'SLA: TPOT p99 (ms; empty: none)', value: '', type: 'number' },
    { name: 'confidence', label: 'Confidence: P(meets SLA) to buy for', value: '0.9', type: 'number' },
    { name: 'draws', label: 'Monte Carlo draws', value: '1000', type: 'number' },
    { name: 'price-mode', label: 'Price', value: 'own', choices: ['own', 'rent'] },
    { name: 'systems', label: 'Systems (comma-separated; empty: every catalog system)', value: '', list: 'systems' },
  ],
  // One call of size with the CLI's options; the tornado needs --sensitivity.
  calls: (v) => {
    const o = { model: v.model, isl: v.isl, osl: v.osl, 'isl-max': v['isl-max'], 'length-low': v['length-low'], precision: v.precision, engine: v.engine, 'peak-factor': v['peak-factor'],
      'ttft-p99-ms': v['ttft-p99-ms'], 'tokens-per-user-per-s': v['tokens-per-user-per-s'], 'tpot-p99-ms': v['tpot-p99-ms'],
      confidence: v.confidence, draws: v.draws, 'price-mode': v['price-mode'], systems: list(v.systems), sensitivity: true };
    o[v.demand] = v.amount;
    return [['size', o]];
  },
  render: ([r]) => {
    const d = r.doc, opts = d.options || [];
    // Systems that can be bought for the SLA; the others say why not, below the table. An unpriced
    // system's money cells read n/p (not published), as the CLI's table does.
    const sized = opts.filter((o) => typeof o.units === 'number' && o.units > 0);
    const money = (o, i, path) => (o.priced ? cell(d, r.url, `options.${i}.${path}`) : el('td', { text: 'n/p' }));
    const rows = opts.map((o, i) => [o, i]).filter(([o]) => sized.includes(o)).map(([o, i]) => el('tr', {},
      cell(d, r.url, `options.${i}.system`), cell(d, r.url, `options.${i}.deployment`), cell(d, r.url, `options.${i}.units`),
      cell(d, r.url, `options.${i}.gpus`), money(o, i, 'capex_usd'), money(o, i, 'usd_per_year'),
      money(o, i, 'usd_per_million_tokens'), cell(d, r.url, `options.${i}.it_kw`),
      cell(d, r.url, `options.${i}.facility_mw`), cell(d, r.url, `options.${i}.liquid_cooled_positions`),
      cell(d, r.url, `options.${i}.ttft_p99_s`), cell(d, r.url, `options.${i}.tokens_per_s_per_user`),
      cell(d, r.url, `options.${i}.p_meets_sla`), cell(d, r.url, `options.${i}.p_cheapest`)));
    const unsized = opts.map((o, i) => [o, i]).filter(([o]) => !sized.includes(o)).map(([o, i]) =>
      el('li', {}, el('strong', { text: o.system + ': ' }), el('span', { 'data-src': r.url, 'data-path': `options.${i}.why_not`, text: o.why_not || '-' })));
    const out = [
      chart('odds', 'P(meets the SLA) with the units bought, and P(cheapest), per system', {
        type: 'bar',
        data: { labels: sized.map((o) => o.system), datasets: [
          { label: 'P(meets SLA)', backgroundColor: PALETTE[0], data: sized.map((o) => o.p_meets_sla) },
          { label: 'P(cheapest)', backgroundColor: PALETTE[1], data: sized.map((o) => o.p_cheapest) },
        ] },
        options: { indexAxis: 'y', scales: { x: Object.assign(axis('probability'), { min: 0, max: 1 }) } },
      }, 40 + 28 * sized.length),
      table(`Options: ${d.model}, ${d.demand ? d.demand.peak_requests_per_s : '-'} requests/s at peak, ISL/OSL ${d.isl}/${d.osl}, confidence ${d.confidence}, ${d.price_mode} prices`,
        ['system', 'deployment', 'units', 'GPUs', 'capex ($)', '$ / year', '$ / M tokens', 'IT kW', 'facility MW', 'liquid-cooled positions', 'TTFT p99 (s)', 'tokens/s per user', 'P(meets SLA)', 'P(cheapest)'], rows),
    ];
    if (unsized.length) out.push(el('h2', { text: 'Not sized' }), el('ul', { class: 'why-not' }, unsized));
    // The tornado of the cheapest sized system: $ per million tokens at each parameter's low and high.
    const best = sized.filter((o) => o.priced && Array.isArray(o.sensitivity) && o.sensitivity.length)
      .sort((a, b) => a.usd_per_million_tokens - b.usd_per_million_tokens)[0];
    if (best) {
      const s = best.sensitivity;
      out.push(chart('tornado', `$ per million tokens of ${best.system} (owned) at each parameter's low and high; base ${fmt(best.usd_per_million_tokens)}`, {
        type: 'bar',
        data: { labels: s.map((x) => `${x.parameter} (${fmt(x.low)} / ${fmt(x.high)} ${x.unit})`), datasets: [
          { label: 'at the low value', backgroundColor: PALETTE[2], data: s.map((x) => x.usd_per_million_tokens_low) },
          { label: 'at the high value', backgroundColor: PALETTE[5], data: s.map((x) => x.usd_per_million_tokens_high) },
        ] },
        options: { indexAxis: 'y', scales: { x: axis('$ per million tokens') } },
      }, 60 + 36 * s.length));
    }
    // The crossover of the two cheapest priced purchases (units as bought): the price at which each costs
    // what the other does a year.
    if (d.crossover) {
      const x = d.crossover;
      out.push(table(`Crossover of the two cheapest purchases, units as bought (${x.price_unit})`,
        ['', 'system', 'price now', 'price at which the two cost the same a year'], [
          el('tr', {}, el('td', { text: 'the runner-up overtakes below' }), cell(d, r.url, 'crossover.runner_up'),
            cell(d, r.url, 'crossover.runner_up_price_usd'), cell(d, r.url, 'crossover.runner_up_overtakes_below_usd')),
          el('tr', {}, el('td', { text: 'the first loses its place above' }), cell(d, r.url, 'crossover.first'),
            cell(d, r.url, 'crossover.first_price_usd'), cell(d, r.url, 'crossover.first_loses_above_usd')),
        ]));
    }
    return out;
  },
};
