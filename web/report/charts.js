(function () {
  'use strict';
  var marks = ['circle', 'triangle', 'rect', 'rectRot', 'crossRot', 'star', 'rectRounded', 'cross', 'line', 'dash'];
  var charts = [];
  function val(r, s) { return r.value * s; }
  // A series' error band (the JSON's low/high, or multipliers of each value when relative; null: no
  // band at that point), kept on
  // its dataset as bandLow/bandHigh and drawn by bandPlugin: error bars on bars, a shaded area on lines.
  function banded(ds, s, spec) {
    if (!s.band) return ds;
    var y = s.y.map(function (r) { return val(r, spec.y_scale); });
    var edge = function (which) {
      return s.band.map(function (p, k) {
        var r = p[which];
        return r ? (p.relative ? y[k] * r.value : val(r, spec.y_scale)) : null;
      });
    };
    ds.bandLow = edge('low');
    ds.bandHigh = edge('high');
    return ds;
  }
  function shade(hex) {
    var n = parseInt(hex.slice(1), 16);
    return 'rgba(' + (n >> 16 & 255) + ',' + (n >> 8 & 255) + ',' + (n & 255) + ',0.18)';
  }
  // The y axis reaches the bands' edges (chart.js scales to the data alone).
  function fitBands(datasets, y) {
    var lo = Infinity, hi = -Infinity;
    datasets.forEach(function (ds) {
      if (!ds.bandLow) return;
      ds.bandLow.forEach(function (v) { if (v !== null) lo = Math.min(lo, v); });
      ds.bandHigh.forEach(function (v) { if (v !== null) hi = Math.max(hi, v); });
    });
    if (!(hi > -Infinity)) return;
    if (!(y.max > 0)) y.suggestedMax = hi;
    if (y.type === 'logarithmic' && lo > 0) y.suggestedMin = lo;
  }
  var bandPlugin = {
    id: 'gpuplanBands',
    beforeDatasetsDraw: function (chart) {
      var ctx = chart.ctx, ys = chart.scales.y;
      chart.data.datasets.forEach(function (ds, i) {
        if (!ds.bandLow || ds.type === 'bar' || !chart.isDatasetVisible(i)) return;
        var pts = chart.getDatasetMeta(i).data;
        if (!pts.length || ds.bandLow.indexOf(null) >= 0) return;
        ctx.save();
        ctx.beginPath();
        ctx.rect(chart.chartArea.left, chart.chartArea.top, chart.chartArea.right - chart.chartArea.left,
                 chart.chartArea.bottom - chart.chartArea.top);
        ctx.clip();
        ctx.fillStyle = shade(ds.borderColor);
        ctx.beginPath();
        pts.forEach(function (p, k) { var yy = ys.getPixelForValue(ds.bandHigh[k]); if (k) ctx.lineTo(p.x, yy); else ctx.moveTo(p.x, yy); });
        for (var k = pts.length - 1; k >= 0; --k) ctx.lineTo(pts[k].x, ys.getPixelForValue(ds.bandLow[k]));
        ctx.closePath();
        ctx.fill();
        if (pts.length === 1) {  // a single point: an error bar
          ctx.strokeStyle = ds.borderColor;
          ctx.lineWidth = 1.5;
          ctx.beginPath();
          ctx.moveTo(pts[0].x, ys.getPixelForValue(ds.bandLow[0]));
          ctx.lineTo(pts[0].x, ys.getPixelForValue(ds.bandHigh[0]));
          ctx.stroke();
        }
        ctx.restore();
      });
    },
    afterDatasetsDraw: function (chart) {
      var ctx = chart.ctx, ys = chart.scales.y;
      chart.data.datasets.forEach(function (ds, i) {
        if (!ds.bandLow || ds.type !== 'bar' || !chart.isDatasetVisible(i)) return;
        ctx.save();
        ctx.strokeStyle = '#000';
        ctx.lineWidth = 1.5;
        chart.getDatasetMeta(i).data.forEach(function (bar, k) {
          if (ds.bandLow[k] === null) return;
          var lo = ys.getPixelForValue(ds.bandLow[k]), hi = ys.getPixelForValue(ds.bandHigh[k]), w = 5;
          ctx.beginPath();
          ctx.moveTo(bar.x, lo); ctx.lineTo(bar.x, hi);
          ctx.moveTo(bar.x - w, lo); ctx.lineTo(bar.x + w, lo);
          ctx.moveTo(bar.x - w, hi); ctx.lineTo(bar.x + w, hi);
          ctx.stroke();
        });
        ctx.restore();
      });
    }
  };
  function build(spec) {
    var datasets = [];
    var axisTitle = function (t) { return { display: true, text: t, font: { weight: 'bold' } }; };
    var options = {
      animation: false, responsive: true, maintainAspectRatio: false,
      interaction: { mode: 'nearest', intersect: false },
      plugins: { title: { display: true, text: spec.title, font: { size: 14 } }, legend: { position: 'bottom', labels: { usePointStyle: true } } },
      scales: {}
    };
    if (spec.type === 'stacked_bar' || spec.type === 'bar') {
      var stacked = spec.type === 'stacked_bar';
      spec.series.forEach(function (s, i) {
        datasets.push(banded({ type: 'bar', label: s.name, stack: stacked ? 'parts' : 'bar' + i, backgroundColor: s.color, borderColor: '#000', pointStyle: 'rect',
                        borderWidth: 0.5, data: s.y.map(function (r) { return val(r, spec.y_scale); }) }, s, spec));
      });
      spec.limits.forEach(function (l, i) {
        datasets.push({ type: 'line', label: l.label, stack: 'limit' + i, borderColor: l.color, borderDash: [6, 4], pointStyle: 'line',
                        borderWidth: 2, pointRadius: 0, fill: false, order: -1,
                        data: spec.categories.map(function () { return l.value * spec.y_scale; }) });
      });
      options.scales.x = { stacked: stacked, title: axisTitle(spec.x_label) };
      options.scales.y = spec.y_log ? { type: 'logarithmic', title: axisTitle(spec.y_label) }
                                    : { stacked: stacked, beginAtZero: true, title: axisTitle(spec.y_label) };
      if (spec.y_max > 0) options.scales.y.max = spec.y_max;
      fitBands(datasets, options.scales.y);
      return { type: 'bar', data: { labels: spec.categories, datasets: datasets }, options: options, plugins: [bandPlugin] };
    }
    var xs = [], ys = [];
    spec.series.forEach(function (s, i) {
      var pts = s.x.map(function (r, k) { return { x: val(r, spec.x_scale), y: val(s.y[k], spec.y_scale) }; });
      pts.forEach(function (p) { xs.push(p.x); ys.push(p.y); });
      datasets.push(banded({ label: s.name, data: pts, showLine: !s.points_only, borderColor: s.color, backgroundColor: s.color,
                      borderDash: s.dashed ? [6, 4] : [], borderWidth: 2, pointStyle: marks[i % marks.length],
                      pointRadius: s.points_only ? 6 : 3.5 }, s, spec));
      if (s.band) ys.push.apply(ys, datasets[datasets.length - 1].bandHigh.filter(function (v) { return v !== null; }));
    });
    var xmin = Math.min.apply(null, xs), xmax = Math.max.apply(null, xs);
    var ymax = Math.max.apply(null, ys.concat([0]));
    var ylow = spec.y_log ? Math.min.apply(null, ys.filter(function (y) { return y > 0; })) : 0;
    spec.limits.forEach(function (l) {
      if (l.axis === 'y') ymax = Math.max(ymax, l.value * spec.y_scale);
      else { xmin = Math.min(xmin, l.value * spec.x_scale); xmax = Math.max(xmax, l.value * spec.x_scale); }
    });
    spec.limits.forEach(function (l) {
      var v = l.value * (l.axis === 'y' ? spec.y_scale : spec.x_scale);
      datasets.push({ label: l.label, showLine: true, borderColor: l.color, backgroundColor: l.color, borderDash: [6, 4],
                      borderWidth: 2, pointRadius: 0, pointStyle: 'line',
                      data: l.axis === 'y' ? [{ x: xmin, y: v }, { x: xmax, y: v }] : [{ x: v, y: ylow }, { x: v, y: ymax * 1.05 }] });
    });
    options.scales.x = { type: spec.x_log ? 'logarithmic' : 'linear', title: axisTitle(spec.x_label) };
    if (spec.x_log) {  // tick at the data's x values (GPU counts), not at 10, 20, 50
      var ticks = xs.filter(function (x, k) { return x > 0 && xs.indexOf(x) === k; });
      options.scales.x.afterBuildTicks = function (axis) { axis.ticks = ticks.map(function (x) { return { value: x }; }); };
      options.scales.x.ticks = { callback: function (v) { return Number(v).toLocaleString('en-US'); } };
    }
    options.scales.y = spec.y_log ? { type: 'logarithmic', title: axisTitle(spec.y_label) }
                                  : { beginAtZero: true, title: axisTitle(spec.y_label) };
    if (spec.y_max > 0) options.scales.y.max = spec.y_max;
    fitBands(datasets, options.scales.y);
    return { type: 'scatter', data: { datasets: datasets }, options: options, plugins: [bandPlugin] };
  }
  var blocks = document.querySelectorAll('script.gpuplan-chart-data');
  Array.prototype.forEach.call(blocks, function (block) {
    var id = block.getAttribute('data-chart');
    var canvas = document.getElementById('chart-' + id + '-canvas');
    try {
      if (typeof Chart === 'undefined') throw new Error('the charting library did not load');
      var chart = new Chart(canvas, build(JSON.parse(block.textContent)));
      charts.push(chart);
      canvas.setAttribute('data-drawn', 'true');
    } catch (e) {
      var p = document.createElement('p');
      p.className = 'chart-error';
      p.textContent = 'This chart could not be drawn (' + e.message + '); its numbers are in the data table.';
      canvas.parentNode.parentNode.insertBefore(p, canvas.parentNode);
      console.error('gpuplan report: chart ' + id + ': ' + e.message);
    }
  });
  document.body.setAttribute('data-charts-drawn', String(charts.length));
  window.addEventListener('beforeprint', function () { charts.forEach(function (c) { c.resize(); }); });
  window.addEventListener('afterprint', function () { charts.forEach(function (c) { c.resize(); }); });
})();
