/**
 * The HTML page of a load report: per corpus, latency (p50, p99) against offered rate,
 * achieved against offered throughput, and the peak throughput of each endpoint, with one
 * colour per endpoint so endpoints compare side by side; then the full tables. Self-contained:
 * inline SVG and CSS only, no script, no external resource, so it opens anywhere offline.
 */
import {
  calibrationTable,
  describeChecks,
  failureTable,
  fmtMs,
  fmtRate,
  GENERATOR_BOUND,
  generatorLines,
  peakTable,
  stepTable,
  wrkLines,
  type Table,
} from "./table.js";
import type { CorpusResult, LoadReport } from "./types.js";

/** Endpoint colours (Okabe–Ito palette: distinguishable with colour-vision deficiencies), reused cyclically. */
const PALETTE = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"];
/** Chart size in SVG user units (the page scales it down on narrow screens). */
const CHART_WIDTH = 560;
const CHART_HEIGHT = 320;
/** Margins around the plot area: room for tick labels (left, bottom), the title (top). */
const MARGIN = { left: 64, right: 16, top: 30, bottom: 48 };
/** Most decades of a log axis that still get 2× and 5× ticks (more would crowd the labels). */
const MAX_DECADES_WITH_MINOR_TICKS = 2;
/** Linear axis: number of intervals aimed at. */
const LINEAR_TICKS = 5;

/** Escapes text for HTML/SVG content and attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] as string);
}

/** An axis: value → position along the plot area (0..length), and its ticks. */
interface Axis {
  pos: (v: number) => number;
  ticks: { v: number; label: string }[];
  valid: (v: number) => boolean;
}

/** Tick label: 0.5, 2, 250, 1k, 2.5k, 1M. */
function tickLabel(v: number): string {
  if (v >= 1e6) return `${+(v / 1e6).toPrecision(3)}M`;
  if (v >= 1e3) return `${+(v / 1e3).toPrecision(3)}k`;
  return String(+v.toPrecision(3));
}

function logAxis(values: number[], length: number): Axis {
  const positive = values.filter((v) => v > 0 && Number.isFinite(v));
  const lo = positive.length === 0 ? 0 : Math.floor(Math.log10(Math.min(...positive)));
  let hi = positive.length === 0 ? 1 : Math.ceil(Math.log10(Math.max(...positive)));
  if (hi <= lo) hi = lo + 1;
  const ticks: { v: number; label: string }[] = [];
  for (let d = lo; d <= hi; d++) {
    const multiples = hi - lo <= MAX_DECADES_WITH_MINOR_TICKS && d < hi ? [1, 2, 5] : [1];
    for (const m of multiples) {
      const v = m * 10 ** d;
      ticks.push({ v, label: tickLabel(v) });
    }
  }
  return { pos: (v) => ((Math.log10(v) - lo) / (hi - lo)) * length, ticks, valid: (v) => v > 0 && Number.isFinite(v) };
}

function linearAxis(values: number[], length: number): Axis {
  const max = Math.max(0, ...values.filter(Number.isFinite));
  const raw = max === 0 ? 1 : max / LINEAR_TICKS;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 5, 10].find((m) => m * mag >= raw) ?? 10) * mag;
  const top = Math.max(step, Math.ceil(max / step) * step);
  const ticks: { v: number; label: string }[] = [];
  for (let v = 0; v <= top + step / 2; v += step) ticks.push({ v, label: tickLabel(v) });
  return { pos: (v) => (v / top) * length, ticks, valid: (v) => Number.isFinite(v) };
}

/** A line of a chart. */
interface Series {
  label: string;
  color: string;
  dashed?: boolean;
  points: { x: number; y: number }[];
}

const PLOT_W = CHART_WIDTH - MARGIN.left - MARGIN.right;
const PLOT_H = CHART_HEIGHT - MARGIN.top - MARGIN.bottom;

function r1(n: number): string {
  return n.toFixed(1);
}

/** Frame, grid, tick labels, axis titles and chart title. */
function frame(title: string, x: Axis | undefined, y: Axis, xTitle: string, yTitle: string): string[] {
  const out: string[] = [];
  const bottom = MARGIN.top + PLOT_H;
  out.push(`<text class="title" x="${CHART_WIDTH / 2}" y="18" text-anchor="middle">${escapeHtml(title)}</text>`);
  for (const t of y.ticks) {
    const py = r1(bottom - y.pos(t.v));
    out.push(`<line class="grid" x1="${MARGIN.left}" x2="${MARGIN.left + PLOT_W}" y1="${py}" y2="${py}"/>`);
    out.push(`<text class="tick" x="${MARGIN.left - 6}" y="${py}" text-anchor="end" dominant-baseline="middle">${t.label}</text>`);
  }
  for (const t of x?.ticks ?? []) {
    const px = r1(MARGIN.left + x!.pos(t.v));
    out.push(`<line class="grid" x1="${px}" x2="${px}" y1="${MARGIN.top}" y2="${bottom}"/>`);
    out.push(`<text class="tick" x="${px}" y="${bottom + 16}" text-anchor="middle">${t.label}</text>`);
  }
  out.push(`<rect class="frame" x="${MARGIN.left}" y="${MARGIN.top}" width="${PLOT_W}" height="${PLOT_H}"/>`);
  out.push(`<text class="axis" x="${MARGIN.left + PLOT_W / 2}" y="${CHART_HEIGHT - 8}" text-anchor="middle">${escapeHtml(xTitle)}</text>`);
  const cy = MARGIN.top + PLOT_H / 2;
  out.push(`<text class="axis" x="14" y="${cy}" text-anchor="middle" transform="rotate(-90 14 ${cy})">${escapeHtml(yTitle)}</text>`);
  return out;
}

function svg(body: string[], label: string): string {
  const size = `viewBox="0 0 ${CHART_WIDTH} ${CHART_HEIGHT}" width="${CHART_WIDTH}" height="${CHART_HEIGHT}"`;
  return `<svg ${size} role="img" aria-label="${escapeHtml(label)}">${body.join("")}</svg>`;
}

/** A line chart with a log x axis; `yLog` picks the y scale; `diagonal` draws the y = x reference. */
function lineChart(title: string, xTitle: string, yTitle: string, series: Series[], yLog: boolean, diagonal = false): string {
  const xs = series.flatMap((s) => s.points.map((p) => p.x));
  const ys = series.flatMap((s) => s.points.map((p) => p.y));
  if (diagonal) ys.push(...xs);
  const x = logAxis(xs, PLOT_W);
  const y = yLog ? logAxis(ys, PLOT_H) : linearAxis(ys, PLOT_H);
  const bottom = MARGIN.top + PLOT_H;
  const px = (v: number): string => r1(MARGIN.left + x.pos(v));
  const py = (v: number): string => r1(bottom - y.pos(v));
  const out = frame(title, x, y, xTitle, yTitle);
  if (diagonal && xs.length > 0) {
    const lo = Math.min(...xs);
    const hi = Math.max(...xs);
    out.push(`<line class="ideal" x1="${px(lo)}" y1="${py(lo)}" x2="${px(hi)}" y2="${py(hi)}"><title>offered = achieved</title></line>`);
  }
  for (const s of series) {
    const pts = s.points.filter((p) => x.valid(p.x) && y.valid(p.y));
    if (pts.length === 0) continue;
    const dash = s.dashed === true ? ` stroke-dasharray="6 4"` : "";
    out.push(`<polyline fill="none" stroke="${s.color}" stroke-width="2"${dash} points="${pts.map((p) => `${px(p.x)},${py(p.y)}`).join(" ")}"/>`);
    for (const p of pts) {
      const tip = escapeHtml(`${s.label}: ${tickLabel(p.x)} req/s → ${+p.y.toPrecision(4)}`);
      out.push(`<circle cx="${px(p.x)}" cy="${py(p.y)}" r="3" fill="${s.color}"><title>${tip}</title></circle>`);
    }
  }
  return svg(out, title);
}

/** A bar chart of the peak throughput of each endpoint, with p50/p99 under the name. */
function peakChart(title: string, bars: { label: string; color: string; value: number; note: string }[]): string {
  const y = linearAxis(bars.map((b) => b.value), PLOT_H);
  const bottom = MARGIN.top + PLOT_H;
  const out = frame(title, undefined, y, "", "ok req/s");
  const slot = PLOT_W / Math.max(1, bars.length);
  const width = Math.min(80, slot * 0.6);
  bars.forEach((b, i) => {
    const h = y.pos(b.value);
    const cx = MARGIN.left + slot * (i + 0.5);
    const tip = escapeHtml(`${b.label}: ${fmtRate(b.value)} req/s, ${b.note}`);
    const box = `x="${r1(cx - width / 2)}" y="${r1(bottom - h)}" width="${r1(width)}" height="${r1(h)}"`;
    out.push(`<rect ${box} fill="${b.color}"><title>${tip}</title></rect>`);
    out.push(`<text class="value" x="${r1(cx)}" y="${r1(bottom - h - 4)}" text-anchor="middle">${fmtRate(b.value)}</text>`);
    out.push(`<text class="tick" x="${r1(cx)}" y="${bottom + 16}" text-anchor="middle">${escapeHtml(b.label)}</text>`);
    out.push(`<text class="note" x="${r1(cx)}" y="${bottom + 30}" text-anchor="middle">${escapeHtml(b.note)}</text>`);
  });
  return svg(out, title);
}

function htmlTable(t: Table): string {
  const head = `<tr>${t.header.map((h) => `<th>${escapeHtml(h)}</th>`).join("")}</tr>`;
  const rows = t.rows.map((r) => `<tr>${r.map((c) => `<td>${escapeHtml(c)}</td>`).join("")}</tr>`).join("\n");
  return `<table>\n<thead>${head}</thead>\n<tbody>\n${rows}\n</tbody>\n</table>`;
}

function legend(entries: { label: string; color: string }[]): string {
  const items = entries.map((e) => `<span class="key"><span class="swatch" style="background:${e.color}"></span>${escapeHtml(e.label)}</span>`);
  return `<div class="legend">${items.join("")}<span class="key">solid: p50, dashed: p99</span></div>`;
}

function corpusSection(corpus: string, results: CorpusResult[], colorOf: (endpoint: string) => string): string {
  const latency: Series[] = [];
  const throughput: Series[] = [];
  for (const r of results) {
    const color = colorOf(r.endpoint);
    latency.push({ label: `${r.endpoint} p50`, color, points: r.steps.map((s) => ({ x: s.rate, y: s.p50 })) });
    latency.push({ label: `${r.endpoint} p99`, color, dashed: true, points: r.steps.map((s) => ({ x: s.rate, y: s.p99 })) });
    throughput.push({ label: r.endpoint, color, points: r.steps.map((s) => ({ x: s.rate, y: s.achievedRps })) });
  }
  const charts = [
    lineChart(`${corpus}: latency`, "offered req/s (log)", "ms (log)", latency, true),
    lineChart(`${corpus}: throughput`, "offered req/s (log)", "ok req/s (log)", throughput, true, true),
  ];
  const peaks = results.filter((r) => r.peak !== undefined);
  if (peaks.length > 0) {
    charts.push(
      peakChart(
        `${corpus}: peak (closed loop)`,
        peaks.map((r) => {
          const p = r.peak!;
          const bound = p.generatorBound === true ? ` ${GENERATOR_BOUND}` : "";
          const note = `×${p.concurrency}, p50 ${fmtMs(p.p50)} / p99 ${fmtMs(p.p99)} ms${bound}`;
          return { label: r.endpoint, color: colorOf(r.endpoint), value: p.rps, note };
        }),
      ),
    );
  }
  const keys = results.map((r) => ({ label: r.endpoint, color: colorOf(r.endpoint) }));
  return `<section>\n<h2>${escapeHtml(corpus)}</h2>\n${legend(keys)}\n<div class="charts">\n${charts.join("\n")}\n</div>\n</section>`;
}

const CSS = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; }
h1 { font-size: 20px; } h2 { font-size: 16px; margin-top: 32px; }
.meta { color: #555; }
.charts { display: flex; flex-wrap: wrap; gap: 16px; }
.charts svg { max-width: 100%; height: auto; background: #fff; border: 1px solid #ddd; }
.legend { margin: 4px 0 8px; } .key { margin-right: 16px; white-space: nowrap; }
.swatch { display: inline-block; width: 12px; height: 12px; margin-right: 4px; vertical-align: -1px; }
svg text { font: 11px system-ui, sans-serif; fill: #333; } svg .title { font-size: 13px; font-weight: 600; }
svg .axis { font-size: 12px; } svg .note { font-size: 10px; fill: #666; } svg .value { font-size: 11px; font-weight: 600; }
svg .grid { stroke: #eee; } svg .frame { fill: none; stroke: #999; } svg .ideal { stroke: #aaa; stroke-dasharray: 2 3; }
table { border-collapse: collapse; margin: 8px 0 24px; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #ddd; padding: 2px 8px; text-align: right; } th { background: #f4f4f4; }
td:nth-child(-n+2), th:nth-child(-n+2) { text-align: left; }
`;

/**
 * The report as a self-contained HTML page: per corpus, a latency-vs-offered-rate chart (p50
 * solid, p99 dashed, log-scale axes), an achieved-throughput chart (with the offered = achieved
 * diagonal) and a peak-throughput bar chart, one colour per endpoint; then the step, peak and
 * failure tables. Inline SVG + CSS only.
 */
export function renderHtml(report: LoadReport): string {
  const endpoints = [...new Set(report.results.map((r) => r.endpoint))];
  const colorOf = (e: string): string => PALETTE[endpoints.indexOf(e) % PALETTE.length] as string;
  const corpora = [...new Set(report.results.map((r) => r.corpus))];
  const m = report.machine;
  const machine = `${m.cpus} × ${escapeHtml(m.cpuModel)}, ${m.memGiB} GiB, node ${escapeHtml(m.node)}`;
  const plan = report.plan;
  const peak = plan.peak === undefined ? "no peak run" : `peak: ${plan.peak.concurrency} clients for ${plan.peak.seconds} s`;
  const sections = corpora.map((c) =>
    corpusSection(
      c,
      report.results.filter((r) => r.corpus === c),
      colorOf,
    ),
  );
  const failures = failureTable(report);
  const peaks = peakTable(report);
  const calibration = calibrationTable(report);
  const generator = [...generatorLines(report), ...wrkLines(report)].map(escapeHtml).join("<br>\n");
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>basalt load test ${escapeHtml(report.startedAt)}</title>
<style>${CSS}</style>
</head>
<body>
<h1>JSON-RPC load test</h1>
<p class="meta">Started ${escapeHtml(report.startedAt)} · load generator: ${machine}<br>
Open loop: ${plan.steps.map(String).join(", ")} req/s, ${plan.stepSeconds} s each (latency from the scheduled send time) · ${escapeHtml(peak)}<br>
Endpoints: ${endpoints.map(escapeHtml).join(", ")}<br>
Checks: ${escapeHtml(describeChecks(report))}</p>
${sections.join("\n")}
<h2>Open-loop steps</h2>
${htmlTable(stepTable(report))}
${peaks.rows.length > 0 ? `<h2>Peak</h2>\n${htmlTable(peaks)}` : ""}
${failures.rows.length > 0 ? `<h2>Failures</h2>\n${htmlTable(failures)}` : ""}
${generator !== "" ? `<h2>Generator</h2>\n<p class="meta">${generator}</p>` : ""}
${calibration.rows.length > 0 ? `<h2>Generator calibration</h2>\n${htmlTable(calibration)}` : ""}
</body>
</html>
`;
}
