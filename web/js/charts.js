// Thin wrapper over Chart.js (the vendored UMD build): line/scatter plots with optional log axes and
// reference lines. Widgets pass plain arrays; this module owns every Chart.js detail.
// The axis numbers follow the page's language (decimal comma in ru and vi); an axis title may be
// a function giving the text (t(KEY)), written again after a language switch. Series and line
// labels come with each set(): a widget calls set() again after a switch.
//
// A chart is made when its canvas comes near the screen, and Chart.js (200 KB) is loaded for the
// first one, not with the page: every chart lives far below the first screen, and making the
// three at load cost a phone a third of a second of blocked main thread (Lighthouse's 4x
// slowdown). A chart handle takes set() and configure() at once; until the chart is made, it
// keeps the latest set() and every configure(), and applies them when the chart is made.
import { currentLang, onLang } from "./i18n.js";
import { loadVendorScript, nextTask, whenNear } from "./ui.js";
import { colour, onTheme } from "./theme.js";

// Labels on the lines instead of a legend (the design review: legends make the reader match swatches).
// Each series' label is written beside its last point, in its colour; a reference line's at its
// right (or top) end. A label that would overlap another moves a line away; all stay inside the plot.
const LABEL_GAP = 14;
const LINE_H = 14; // one line of a label, its ground included

// a label's words in lines no wider than max (a single word wider than max keeps its own line)
function wrapWords(ctx, text, max) {
  const lines = [];
  let line = "";
  for (const word of text.split(" ")) {
    const next = line ? `${line} ${word}` : word;
    if (line && ctx.measureText(next).width > max) { lines.push(line); line = word; } else line = next;
  }
  return line ? [...lines, line] : lines;
}
const directLabels = {
  id: "decodelabDirectLabels",
  afterDatasetsDraw(chart) {
    const { ctx, chartArea: area } = chart;
    const labels = [];
    chart.data.datasets.forEach((d, i) => {
      const meta = chart.getDatasetMeta(i);
      if (!d.label || !meta.data.length || meta.hidden) return;
      const end = d.isLine === "x" ? meta.data[meta.data.length - 1] : meta.data.reduce((a, b) => (b.x >= a.x ? b : a));
      labels.push({ text: d.label, color: d.borderColor, x: end.x, y: end.y, point: d.data.length < 3 && !d.isLine });
    });
    ctx.save();
    ctx.font = `600 ${area.right - area.left < 320 ? 10 : 11.5}px system-ui, sans-serif`; // smaller on a phone
    ctx.textBaseline = "middle";
    // where each label wants to be: beside its dot, to the right where it fits; a line's label ends
    // at the line's end, just above it; never cut off at either side (a phone). A label wider than
    // the plot (a long name on a 360 px screen) is set on as many lines as it needs.
    const plotW = area.right - area.left - 4;
    for (const l of labels) {
      l.lines = wrapWords(ctx, l.text, plotW);
      l.w = Math.max(...l.lines.map((x) => ctx.measureText(x).width));
      l.h = l.lines.length * LINE_H;
      const right = l.point && l.x + 8 + l.w <= area.right;
      const want = l.point ? (right ? l.x + 8 : l.x - 8 - l.w) : Math.min(l.x, area.right) - 2 - l.w;
      l.x = Math.max(area.left + 2, Math.min(want, area.right - l.w));
      l.y = Math.max(area.top + l.h / 2 - 1, l.point ? l.y : l.y - 8);
    }
    // only labels that would overlap move, a line at a time (down, or up at the plot's foot), so a
    // dot's label stays beside its dot unless another label is really in the way
    labels.sort((a, b) => a.y - b.y);
    const placed = [...(chart.$bandLabels || [])]; // the shaded bands' names, already drawn
    const hits = (l) => placed.some((p) => l.x < p.x + p.w + 4 && p.x < l.x + l.w + 4 && Math.abs(l.y - p.y) < (l.h + p.h) / 2 + 2);
    // the nearest free place, below first then above, in half-line steps within the plot (a
    // crowded phone plot holds ten labels, some on two lines)
    const top = (l) => area.top + l.h / 2 - 1, bottom = (l) => area.bottom - l.h / 2;
    for (const l of labels) {
      const start = l.y;
      for (let k = 1; hits(l) && k * LABEL_GAP / 2 < area.bottom - area.top; k++) {
        const down = start + k * LABEL_GAP / 2, up = start - k * LABEL_GAP / 2;
        if (down <= bottom(l)) { l.y = down; if (!hits(l)) break; }
        if (up >= top(l)) { l.y = up; if (!hits(l)) break; }
        l.y = start;
      }
      placed.push(l);
    }
    // each label on a ground of the card's colour: a rounded box, mostly opaque, so a line under
    // it still shows faintly as it passes (an opaque box cut the roofline's lines short), with a
    // halo round the letters themselves. A halo alone left the line in the gaps between words,
    // striking the label through (design re-review N2).
    ctx.textAlign = "left";
    ctx.lineJoin = "round";
    ctx.lineWidth = 4;
    const ground = colour("surface");
    ctx.strokeStyle = ground;
    for (const l of labels) {
      l.lines.forEach((line, i) => {
        const y = l.y + (i - (l.lines.length - 1) / 2) * LINE_H;
        const w = ctx.measureText(line).width;
        ctx.globalAlpha = 0.82;
        ctx.fillStyle = ground;
        ctx.beginPath();
        if (ctx.roundRect) ctx.roundRect(l.x - 3, y - LINE_H / 2, w + 6, LINE_H, 3);
        else ctx.rect(l.x - 3, y - LINE_H / 2, w + 6, LINE_H);
        ctx.fill();
        ctx.globalAlpha = 1;
        ctx.fillStyle = l.color;
        ctx.strokeText(line, l.x, y);
        ctx.fillText(line, l.x, y);
      });
    }
    // where the labels went (css px: x, middle y, width, height), for the tests
    chart.canvas.dataset.labels = JSON.stringify(labels.map((l) => [Math.round(l.x), Math.round(l.y), Math.round(l.w), l.h]));
    ctx.restore();
  },
};

// Stretches of the x axis shaded behind the lines, each named in its colour up along its right
// edge: the roofline's memory-bound sides (design re-review: which regime a dot sits in was a thing
// to work out from the ridge's dashed line). set()'s third argument: [{from, to, label, color}],
// from or to null for the axis's own end; the fill is the colour's band ground ("ours" ->
// --ours-band: its pale ground in the light theme, a fainter one in the dark, where the
// ground flooded the plot), the wider band first so a narrower one inside it shows. A name runs up the band's
// edge (a narrow band has room for it there) on a ground of the card's colour, as the lines' are.
const bandsPlugin = {
  id: "decodelabBands",
  beforeDatasetsDraw(chart) {
    const { ctx, chartArea: area } = chart;
    ctx.save();
    for (const b of bandBoxes(chart).sort((a, c) => (c.x1 - c.x0) - (a.x1 - a.x0))) {
      ctx.fillStyle = colour(`${b.color}-band`);
      ctx.fillRect(b.x0, area.top, b.x1 - b.x0, area.bottom - area.top);
    }
    ctx.restore();
  },
  afterDatasetsDraw(chart) {
    const { ctx, chartArea: area } = chart;
    const ground = colour("surface");
    ctx.save();
    ctx.font = `600 ${area.right - area.left < 320 ? 10 : 11}px system-ui, sans-serif`;
    ctx.textBaseline = "bottom";
    ctx.textAlign = "left";
    chart.$bandLabels = []; // where the names went, for the lines' labels to keep clear of (directLabels)
    // a phone's plot has no room left for them beside the lines' own labels: the shading only there
    if (area.right - area.left < 480) { ctx.restore(); return; }
    for (const b of bandBoxes(chart)) {
      const w = ctx.measureText(b.label || "").width;
      if (!b.label || b.x1 - b.x0 < LINE_H + 4 || w > area.bottom - area.top - 8) continue;
      chart.$bandLabels.push({ x: b.x1 - 4 - LINE_H, w: LINE_H, y: area.bottom - 4 - w / 2, h: w + 4 });
      ctx.save();
      ctx.translate(b.x1 - 4, area.bottom - 4);
      ctx.rotate(-Math.PI / 2);
      ctx.globalAlpha = 0.82;
      ctx.fillStyle = ground;
      ctx.fillRect(-2, -LINE_H + 1, w + 4, LINE_H);
      ctx.globalAlpha = 1;
      ctx.fillStyle = paint(b.color);
      ctx.fillText(b.label, 0, 0);
      ctx.restore();
    }
    ctx.restore();
  },
};
// each band's left and right edge in the canvas, clipped to the plot; empty ones left out
function bandBoxes(chart) {
  const { chartArea: area, scales: { x } } = chart;
  return (chart.$bands || []).map((b) => ({ ...b,
    x0: Math.max(area.left, b.from == null ? area.left : x.getPixelForValue(b.from)),
    x1: Math.min(area.right, b.to == null ? area.right : x.getPixelForValue(b.to)) })).filter((b) => b.x1 > b.x0);
}

// a series' colour is a palette name (style.css: "ours", "big", "neutral"…), drawn in the theme's value
const paint = (name) => colour(name || "big");
// the axes, ticks and grid in the theme's muted ink and rules (set one by one: Chart.js's options
// are proxies that do not survive being copied)
function themeChart(chart) {
  const text = colour("muted"), grid = colour("line"), rule = colour("line-strong");
  for (const axis of Object.values(chart.options.scales)) {
    axis.ticks.color = text;
    axis.grid.color = grid;
    axis.border.color = rule;
    axis.title.color = text;
  }
}

const charts = []; // [chart, xTitle, yTitle, redraw]
const titleText = (x) => (typeof x === "function" ? x() : x);
onLang((lang) => {
  for (const [chart, xTitle, yTitle] of charts) {
    chart.options.locale = lang;
    chart.options.scales.x.title.text = titleText(xTitle);
    chart.options.scales.y.title.text = titleText(yTitle);
    chart.update("none");
  }
});
onTheme(() => { for (const [chart, , , redraw] of charts) { themeChart(chart); redraw(); } });

// Chart.js as a promise of window.Chart (null if the file cannot be loaded: charts stay empty)
export const loadChartJs = () => loadVendorScript("vendor/chart.umd.min.js", "Chart");

export function lineChart(canvas, options = {}) {
  let made = null; // makeChart's handle, once Chart.js is in
  let lastSet = null;
  const configures = [];
  const handle = { // returned at once; the chart itself is made when Chart.js is in
    chart: null,
    // fn(chart) adjusts Chart.js options (ticks, limits) before the next draw
    configure(fn) {
      if (made) fn(made.chart);
      else configures.push(fn);
    },
    set(...args) {
      if (made) made.set(...args);
      else lastSet = args;
    },
  };
  whenNear(canvas).then(loadChartJs).then(async (Chart) => {
    if (!Chart) return;
    await nextTask(); // each chart in its own task: the page's charts all wait for the one Chart.js
    made = makeChart(Chart, canvas, options);
    handle.chart = made.chart;
    for (const fn of configures.splice(0)) fn(made.chart);
    if (lastSet) made.set(...lastSet);
  });
  return handle;
}

function makeChart(Chart, canvas, { logX = false, logY = false, xTitle = "", yTitle = "", xMin, yMin }) {
  const chart = new Chart(canvas.getContext("2d"), {
    type: "scatter",
    plugins: [bandsPlugin, directLabels],
    data: { datasets: [] },
    options: {
      locale: currentLang(),
      animation: false, responsive: true, maintainAspectRatio: false, parsing: false, normalized: true,
      // room past the plot for the last x label's second half (a phone's roofline cut "1,000")
      layout: { padding: { right: 16, top: 4 } },
      plugins: { legend: { display: false }, tooltip: { enabled: true } },
      scales: {
        // a linear x axis ends at the data's end without its own label there (32 crowded the 30 tick)
        x: { type: logX ? "logarithmic" : "linear", title: { display: !!xTitle, text: titleText(xTitle) }, min: xMin, grid: { display: false },
          ...(logX ? {} : { ticks: { includeBounds: false } }) },
        // head-room over the highest point (the cost model's curve touched the plot's top: N10)
        y: { type: logY ? "logarithmic" : "linear", title: { display: !!yTitle, text: titleText(yTitle) }, min: yMin, grace: logY ? 0 : "8%",
          ticks: logY ? { callback: (v) => (Number.isInteger(Math.log10(v)) ? `1e${Math.log10(v)}` : "") } : {} },
      },
    },
  });
  themeChart(chart);
  let last = null; // the latest set(): drawn again in the new theme's colours
  const made = {
    chart,
    // series: [{label, data (y values, x = 1..n) or points [{x,y}], color (a palette name), x0}],
    // lines: [{x}|{y}, label, color]; bands: [{from, to, label, color}] (bandsPlugin)
    set(series, lines = [], bands = []) {
      last = [series, lines, bands];
      chart.$bands = bands;
      const ds = series.map((s) => ({
        label: s.label, showLine: true, pointRadius: s.points && s.points.length < 3 ? 3 : 0, borderWidth: s.width || 1.5,
        borderColor: paint(s.color), backgroundColor: paint(s.color),
        data: (s.points || s.data.map((y, i) => ({ x: i + (s.x0 ?? 1), y }))).filter((p) => !logY || p.y > 0),
      }));
      const xs = ds.flatMap((d) => d.data.map((p) => p.x)), ys = ds.flatMap((d) => d.data.map((p) => p.y));
      const [x0, x1] = [Math.min(...xs), Math.max(...xs)], [y0, y1] = [Math.min(...ys), Math.max(...ys)];
      for (const l of lines) {
        const data = l.y != null ? [{ x: x0, y: l.y }, { x: x1, y: l.y }] : [{ x: l.x, y: y0 }, { x: l.x, y: y1 }];
        ds.push({ label: l.label, data, isLine: l.y != null ? "x" : "y", showLine: true, pointRadius: 0, borderDash: [5, 4], borderWidth: 1.5,
          borderColor: paint(l.color), backgroundColor: paint(l.color) });
      }
      chart.data.datasets = ds;
      // the x axis ends where the data ends (Chart.js rounds it up to a tick: data to 32 drawn to 35)
      if (!logX && Number.isFinite(x1)) chart.options.scales.x.max = x1;
      chart.update("none");
    },
  };
  charts.push([chart, xTitle, yTitle, () => { if (last) made.set(...last); else chart.update("none"); }]);
  return made;
}
