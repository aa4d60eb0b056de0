import BacktestCore
/// The script and style of the interactive charts (`InteractiveChart`), put
/// once into each page that has charts: plain JavaScript, no library, nothing
/// fetched.
///
/// It decodes the packed columns (`ChartData`) and draws each chart on
/// canvases: every pixel column shows the true lowest and highest value of
/// the bars it covers (a min/max pyramid answers any range in O(log n)),
/// candles once there is room for them. Wheel, pinch or shift-drag zoom, drag
/// or the arrow keys pan, + and − zoom, 0 or a double-click resets. A legend
/// entry toggles its series. `window.backtestCharts` lists the charts for
/// automation (`setRange`, `xOf`, `panels[k].markerPoint`, `stats`).
enum ChartScript {
  static let css = """
    .ichart{position:relative;overflow:visible}.ic-ready>.ic-static{display:none}.ic-failed .ic-live{display:none}
    .ic-live{position:relative;outline:none}.ic-live:focus-visible{outline:2px solid #0071E3;outline-offset:6px;border-radius:4px}
    .ic-bar{display:flex;gap:6px;align-items:center;flex-wrap:wrap;margin-bottom:4px}
    .ic-button{font:inherit;font-size:12px;padding:2px 10px;border-radius:8px;border:1px solid var(--line);background:var(--card);color:var(--fg);cursor:pointer}
    .ic-button:hover{border-color:#0071E3}.ic-hint{color:var(--muted);font-size:12px;margin-left:auto}
    .ic-head{display:flex;gap:4px 12px;align-items:center;flex-wrap:wrap;font-size:12px;margin:8px 0 2px}.ic-title{font-weight:600;font-size:13px;margin-right:4px}
    .ic-key{font:inherit;background:none;border:0;color:var(--fg);cursor:pointer;padding:0;display:inline-flex;align-items:center;gap:4px}
    .ic-key[aria-pressed=false]{opacity:.4;text-decoration:line-through}.ic-key i{display:inline-block;width:14px;height:3px;border-radius:2px}.ic-shapes{color:var(--muted)}.ic-scales{display:inline-flex;gap:2px;margin-left:auto}.ic-scales .ic-button{padding:1px 8px}.ic-button[aria-pressed=true]{background:#0071E3;border-color:#0071E3;color:#fff}
    .ic-box{position:relative;touch-action:pan-y;cursor:crosshair;user-select:none;-webkit-user-select:none}.ic-box canvas{position:absolute;left:0;top:0}
    .ic-tip{position:absolute;z-index:2;pointer-events:none;background:var(--card);color:var(--fg);border:1px solid var(--line);border-radius:8px;padding:4px 6px;font-size:12px;box-shadow:0 4px 14px rgba(0,0,0,.18)}
    .ic-tip table{width:auto}.ic-tip th,.ic-tip td{padding:1px 6px;border:0;text-align:left}.ic-tip th{color:var(--muted);font-weight:400}.ic-tip td{text-align:right;font-variant-numeric:tabular-nums}
    .ic-detail h3{font-size:14px;margin:12px 0 6px}rect.ic-picked{stroke:#0071E3;stroke-width:3}[data-chart] rect[data-value]{cursor:pointer}[data-chart] svg text{pointer-events:none}
    .ic-trades tr.win td:nth-child(7),.ic-trades tr.win td:nth-child(8){color:#16A34A}.ic-trades tr.loss td:nth-child(7),.ic-trades tr.loss td:nth-child(8){color:#DC2626}
    .ic-table-bar{display:flex;gap:8px;align-items:center;flex-wrap:wrap;margin:6px 0}.ic-table-bar input,.ic-table-bar select{font:inherit;font-size:13px;padding:3px 6px;border-radius:8px;border:1px solid var(--line);background:var(--card);color:var(--fg)}
    .ic-live-trades tbody tr{cursor:pointer}.ic-live-trades tbody tr:hover,.ic-live-trades tbody tr:focus{background:rgba(0,113,227,.08);outline:none}.ic-live-trades tr.ic-picked{background:rgba(0,113,227,.16)}
    .ic-live-trades th button,.ic-sortable th button{font:inherit;font-weight:600;background:none;border:0;color:inherit;cursor:pointer;padding:0}
    :is(.ic-live-trades,.ic-sortable) th[aria-sort=ascending] button::after{content:" ▲"}:is(.ic-live-trades,.ic-sortable) th[aria-sort=descending] button::after{content:" ▼"}
    @media print{.ic-live,.ic-tip,.ic-detail{display:none!important}.ic-ready>.ic-static{display:block!important}.card{break-inside:avoid}}
    """

  static let script = #"""
(() => {
"use strict";
const scriptStart = performance.now();
// Interactive charts of a backtest report: see InteractiveChart.swift for the
// page's structure and ChartData.swift for the packed columns.
const P10 = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22];
const LEFT = 70, RIGHT = 16, AXIS = 22, PAD = 8, BLOCK = 16;
// Candles in teal and blue-grey, trades green when they made money and red when they lost it: no colour means two things.
const COLORS = { up: "#26A69A", down: "#90A4AE", win: "#16A34A", loss: "#DC2626" };

// The packed bytes from their text (ChartData.text): 7 bits a character, most significant first; a character from
// U+0080 is two groups, the unsafe one it stands for (UNSAFE[(c - 128) >> 7]) and the next ((c - 128) & 127).
const UNSAFE = [0, 10, 13, 34, 92, 60];
function bytesFromText(text) {
  const n = text.length, out = new Uint8Array(Math.ceil(n * 7 / 4) + 1);
  let acc = 0, bits = 0, o = 0;
  for (let i = 0; i < n; i++) {
    let c = text.charCodeAt(i);
    if (c >= 128) {
      c -= 128;
      acc = (acc << 7) | UNSAFE[c >> 7]; bits += 7;
      if (bits >= 8) { bits -= 8; out[o++] = acc >>> bits; acc &= (1 << bits) - 1; }
      c &= 127;
    }
    acc = (acc << 7) | c; bits += 7;
    if (bits >= 8) { bits -= 8; out[o++] = acc >>> bits; acc &= (1 << bits) - 1; }
  }
  return out.subarray(0, o);
}

// One column, as ChartData writes it: its values, and with `keepSteps` also its step counts
// (integers), which predictions of other columns use; `steps(k)` gives column k's.
function decodeColumn(u, c, steps, keepSteps) {
  const n = c.n, out = new Float64Array(n);
  if (c.f64) {
    const view = new DataView(u.buffer, u.byteOffset + c.at, n * 8);
    for (let i = 0; i < n; i++) out[i] = view.getFloat64(i * 8, true);
    return { values: out, steps: null };
  }
  let p = c.at;
  const varint = () => { let v = 0, f = 1, b; do { b = u[p++]; v += (b & 127) * f; f *= 128; } while (b & 128); return v; };
  const runs = [];
  for (let k = varint(), end = 0; k > 0; k--) { const start = end + varint(), length = varint(); runs.push(start, length); end = start + length; }
  const order = u[p++], div = c.dec >= 0 ? P10[c.dec] : 0, mul = c.dec < 0 ? P10[-c.dec] : 0;
  const z = new Float64Array(BLOCK);
  let q = 0, d = 0, i = 0;
  while (i < n) {
    const h = u[p++], w = h & 63, m = Math.min(BLOCK, n - i);
    const g = h & 64 ? varint() : 1;
    let mask = 0;
    if (h & 128) { mask = u[p] | (u[p + 1] << 8); p += 2; }
    let acc = 0, nb = 0;
    if (!mask && w <= 24 && g === 1 && order === 1) {
      // The commonest block: first differences of at most 24 bits, no factor, no exceptions.
      const bits = (1 << w) - 1;
      for (let k = 0; k < m; k++) {
        while (nb < w) { acc |= u[p++] << nb; nb += 8; }
        const code = acc & bits;
        acc >>>= w; nb -= w;
        q += (code >>> 1) ^ -(code & 1);
        out[i++] = q;
      }
      continue;
    }
    if (!mask && w <= 24) {
      // In 32-bit integers: no exceptions, codes of at most 24 bits.
      const bits = (1 << w) - 1;
      for (let k = 0; k < m; k++) {
        while (nb < w) { acc |= u[p++] << nb; nb += 8; }
        const code = acc & bits;
        acc >>>= w; nb -= w;
        const r = ((code >>> 1) ^ -(code & 1)) * g;
        if (order === 1) q += r; else if (order === 2) { d += r; q += d; } else q = r;
        out[i++] = q;
      }
      continue;
    }
    for (let k = 0; k < m; k++) {
      if ((mask >> k) & 1) continue;
      if (w <= 24) {
        while (nb < w) { acc |= u[p++] << nb; nb += 8; }
        z[k] = acc & ((1 << w) - 1); acc >>>= w; nb -= w;
      } else {
        let v = 0, f = 1, left = w;
        while (left > 0) {
          const t = left < 24 ? left : 24;
          while (nb < t) { acc |= u[p++] << nb; nb += 8; }
          v += (acc & ((1 << t) - 1)) * f; acc >>>= t; nb -= t; f *= 16777216; left -= t;
        }
        z[k] = v;
      }
    }
    if (mask) for (let k = 0; k < m; k++) if ((mask >> k) & 1) z[k] = varint();
    for (let k = 0; k < m; k++) {
      const zk = z[k], r = (zk % 2 ? -(zk + 1) / 2 : zk / 2) * g;
      if (order === 2) { d += r; q += d; } else if (order === 1) q += r; else q = r;
      out[i++] = q;
    }
  }
  if (c.pred) {
    // The residual plus the step count predicted from other columns (ChartData.Prediction, and the bars' prices).
    const [kind, a, b] = c.pred, x = steps(a), y = b === undefined ? null : steps(b);
    if (kind === "lag") for (let i = 1; i < n; i++) out[i] += x[i - 1];
    else if (kind === "max") for (let i = 0; i < n; i++) out[i] += x[i] > y[i] ? x[i] : y[i];
    else if (kind === "min") for (let i = 0; i < n; i++) out[i] += x[i] < y[i] ? x[i] : y[i];
    else if (kind === "mean") {
      const p = c.arg;
      for (let i = 0, sum = 0; i < n; i++) { sum += x[i]; if (i >= p) sum -= x[i - p]; if (i >= p - 1) out[i] += floorDivision(2 * sum + p, 2 * p); }
    }
    else if (kind === "mirror") for (let i = 0; i < n; i++) out[i] += 2 * x[i] - y[i];
    else if (kind === "offset") for (let i = 0; i < n; i++) out[i] += x[i];
    else if (kind === "product") { const d = P10[c.arg]; for (let i = 0; i < n; i++) out[i] += floorDivision(2 * x[i] * y[i] + d, 2 * d); }
    else throw new Error("unknown prediction " + kind);
  }
  const values = keepSteps ? new Float64Array(n) : out;
  if (div) for (let i = 0; i < n; i++) values[i] = out[i] / div;
  else for (let i = 0; i < n; i++) values[i] = out[i] * mul;
  for (let k = 0; k < runs.length; k += 2) values.fill(NaN, runs[k], runs[k] + runs[k + 1]);
  return { values, steps: keepSteps ? out : null };
}

// floor(a / b) for integers below 2^53, b > 0: exact where the division of doubles rounds up to a whole number.
function floorDivision(a, b) {
  let q = Math.floor(a / b);
  if (q * b > a) q--; else if ((q + 1) * b <= a) q++;
  return q;
}

// Minimum and maximum over any range of a column in O(log n): blocks of 16
// values, then pairs of blocks, and so on; nan is skipped.
class Extent {
  constructor(v) {
    this.v = v;
    const n = v.length;
    let len = Math.ceil(n / BLOCK), lo = new Float64Array(len).fill(Infinity), hi = new Float64Array(len).fill(-Infinity);
    for (let i = 0; i < n; i++) { const x = v[i], j = i >> 4; if (x < lo[j]) lo[j] = x; if (x > hi[j]) hi[j] = x; }
    this.levels = [[lo, hi]];
    while (len > 1) {
      const next = Math.ceil(len / 2), lo2 = new Float64Array(next), hi2 = new Float64Array(next);
      for (let j = 0; j < next; j++) {
        const a = 2 * j, b = a + 1 < len ? a + 1 : a;
        lo2[j] = lo[a] < lo[b] ? lo[a] : lo[b]; hi2[j] = hi[a] > hi[b] ? hi[a] : hi[b];
      }
      this.levels.push([lo2, hi2]); lo = lo2; hi = hi2; len = next;
    }
  }
  // [min, max] of v[from..<to] into out; min > max when all are nan.
  range(from, to, out) {
    const v = this.v;
    let a = Infinity, b = -Infinity;
    if (to - from < 2 * BLOCK) {
      for (let i = from; i < to; i++) { const x = v[i]; if (x < a) a = x; if (x > b) b = x; }
    } else {
      const s = Math.ceil(from / BLOCK) * BLOCK, e = Math.floor(to / BLOCK) * BLOCK;
      for (let i = from; i < s; i++) { const x = v[i]; if (x < a) a = x; if (x > b) b = x; }
      for (let i = e; i < to; i++) { const x = v[i]; if (x < a) a = x; if (x > b) b = x; }
      let l = s / BLOCK, h = e / BLOCK, k = 0;
      while (l < h) {
        const [lo, hi] = this.levels[k];
        if (l & 1) { if (lo[l] < a) a = lo[l]; if (hi[l] > b) b = hi[l]; l++; }
        if (h & 1) { h--; if (lo[h] < a) a = lo[h]; if (hi[h] > b) b = hi[h]; }
        l >>= 1; h >>= 1; k++;
      }
    }
    out[0] = a; out[1] = b;
    return out;
  }
}

// Text

const pad2 = x => (x < 10 ? "0" : "") + x;
function civil(days) {  // days since 1970-01-01 → [year, month, day] (H. Hinnant's algorithm)
  const z = days + 719468, era = Math.floor(z / 146097), doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100)), mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1, m = mp < 10 ? mp + 3 : mp - 9;
  return [yoe + era * 400 + (m <= 2 ? 1 : 0), m, d];
}
const dateText = days => { const [y, m, d] = civil(days); return y + "-" + pad2(m) + "-" + pad2(d); };
function grouped(s) {
  let sign = "";
  if (s[0] === "-") { sign = "-"; s = s.slice(1); }
  const dot = s.indexOf(".");
  let int = dot < 0 ? s : s.slice(0, dot), out = "";
  const frac = dot < 0 ? "" : s.slice(dot);
  while (int.length > 3) { out = "," + int.slice(-3) + out; int = int.slice(0, -3); }
  return sign + int + out + frac;
}
// A value as the report writes it: kind money, percent, or a number with the column's decimals (shortest text without).
function format(v, kind, dec) {
  if (!isFinite(v)) return "—";
  if (kind === "money") { const t = grouped(Math.abs(v).toFixed(2)); return (v < 0 && t !== "0.00" ? "-$" : "$") + t; }
  if (kind === "percent") { const t = (v * 100).toFixed(2); return grouped(t === "-0.00" ? "0.00" : t) + "%"; }
  return grouped(dec === undefined ? String(v) : v.toFixed(Math.max(0, dec)));
}
function tickText(v, step, kind) {
  const dec = Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
  if (kind === "percent") return (v * 100).toFixed(Math.max(0, dec - 2)) + "%";
  const t = grouped(Math.abs(v).toFixed(dec));
  return kind === "money" ? (v < 0 ? "-$" : "$") + t : (v < 0 ? "-" : "") + t;
}
// Ticks at round values: the widest step of 1, 2 or 5 × 10^k that still gives `count` ticks or more.
function niceTicks(lo, hi, count) {
  if (!(hi > lo)) return { ticks: [lo], step: 1 };
  const raw = (hi - lo) / count, mag = Math.pow(10, Math.floor(Math.log10(raw)));
  let step = mag;
  for (const k of [2, 5, 10]) if (Math.floor(hi / (k * mag) + 1e-9) - Math.ceil(lo / (k * mag) - 1e-9) + 1 >= count) step = k * mag;
  const ticks = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) ticks.push(Math.abs(v) < step * 1e-9 ? 0 : v);
  return { ticks, step };
}
function el(tag, cls, parent) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (parent) parent.appendChild(e);
  return e;
}
function lowerBound(a, x) { let l = 0, h = a.length; while (l < h) { const m = (l + h) >> 1; if (a[m] < x) l = m + 1; else h = m; } return l; }

// Charts of more values than this show their static SVG first and turn live once decoded,
// a column per task, so that a big page paints at once and stays responsive.
const DEFER = 2e6;

class Chart {
  constructor(root, spec, source) {
    this.root = root; this.spec = spec; this.source = source;
    this.columns = []; this.extents = [];
    this.n = spec.n;
    this.offsets = spec.offsets || [];
    this.a = -0.5; this.b = this.n - 0.5;
    this.hidden = new Set();
    this.pointers = new Map();
    this.stats = { draws: 0, lastDraw: 0, maxDraw: 0 };
    const size = spec.columns.reduce((sum, c) => sum + c.n, 0);
    // `ready` settles once the live chart is drawn.
    this.ready = size > DEFER ? this.prepare().then(() => this.build()) : Promise.resolve(this.build());
  }
  get time() { return this.col(this.spec.time); }
  // Decodes every column and the ranges of the drawn ones, yielding to the page between them.
  async prepare() {
    const channel = new MessageChannel(), waiting = [];
    channel.port1.onmessage = () => waiting.shift()();
    const next = () => new Promise(done => { waiting.push(done); channel.port2.postMessage(0); });
    await new Promise(done => requestAnimationFrame(() => setTimeout(done, 0)));
    this.bytes = bytesFromText(this.source());
    await next();
    for (let k = 0; k < this.spec.columns.length; k++) { this.col(k); await next(); }
    const drawn = this.spec.panels.flatMap(p => (p.lines || []).map(l => l.col).concat(p.ohlc ? [p.ohlc[1], p.ohlc[2]] : []));
    for (const k of drawn) { this.extent(k); await next(); }
  }
  decoded(k) {
    if (!this.bases) this.bases = new Set(this.spec.columns.flatMap(c => c.pred ? c.pred.slice(1) : []));
    if (!this.bytes) this.bytes = bytesFromText(this.source());
    return this.columns[k] || (this.columns[k] = decodeColumn(this.bytes, this.spec.columns[k], j => this.decoded(j).steps, this.bases.has(k)));
  }
  col(k) { return this.decoded(k).values; }
  extent(k) { return this.extents[k] || (this.extents[k] = new Extent(this.col(k))); }
  decimals(k) { return this.spec.columns[k].dec; }
  tradeColumns(t) {
    const o = { spec: t };
    for (const key of ["entry", "exit", "entryPrice", "exitPrice", "shares", "pnl", "ret", "reason"]) o[key] = this.col(t[key]);
    return o;
  }

  // Geometry: bar i's centre is at xOf(i); the view shows bars whose centres lie in [a, b).
  get plotW() { return Math.max(10, this.width - LEFT - RIGHT); }
  xOf(i) { return LEFT + (i - this.a) / (this.b - this.a) * this.plotW; }
  indexAt(x) { return this.a + (x - LEFT) / this.plotW * (this.b - this.a); }
  // The first bar of pixel column `col` of the plot (columns partition the bars in view).
  barAtColumn(col) { return Math.min(this.n, Math.max(0, Math.ceil(this.a + col * (this.b - this.a) / this.plotW))); }
  visible() { return [Math.max(0, Math.ceil(this.a)), Math.min(this.n, Math.ceil(this.b))]; }

  offsetAt(i) {
    const o = this.offsets;
    let l = 0, h = o.length;
    while (l < h) { const m = (l + h) >> 1; if (o[m][0] <= i) l = m + 1; else h = m; }
    return l > 0 ? o[l - 1][1] : 0;
  }
  iso(i) {
    const s = this.time[i];
    if (this.spec.dateOnly) return dateText(s);
    const day = Math.floor(s / 86400), sec = s - day * 86400, off = this.offsetAt(i), a = Math.abs(off);
    return dateText(day) + "T" + pad2(Math.floor(sec / 3600)) + ":" + pad2(Math.floor(sec % 3600 / 60)) + ":" + pad2(sec % 60)
      + (off === 0 ? "Z" : (off < 0 ? "-" : "+") + pad2(Math.floor(a / 3600)) + ":" + pad2(Math.floor(a % 3600 / 60)));
  }
  seconds(i) { return this.spec.dateOnly ? this.time[i] * 86400 : this.time[i]; }

  build() {
    this.trades = this.spec.trades ? this.tradeColumns(this.spec.trades) : null;
    const s = this.spec, live = el("div", "ic-live");
    this.live = live;
    live.tabIndex = 0;
    live.setAttribute("aria-label", s.title + ": interactive chart. Wheel or pinch to zoom, drag to pan, shift-drag to zoom to a range, "
      + "arrow keys pan, + and − zoom, 0 resets, double-click resets");
    const bar = el("div", "ic-bar", live);
    const reset = el("button", "ic-button", bar);
    reset.type = "button"; reset.textContent = "Reset"; reset.onclick = () => this.reset();
    for (const [label, start] of s.ranges || []) {
      const b = el("button", "ic-button", bar);
      b.type = "button"; b.textContent = label; b.dataset.range = label;
      b.onclick = () => this.setRange(start - 0.5, this.n - 0.5);
    }
    el("span", "ic-hint", bar).textContent = "wheel/pinch: zoom · drag: pan · shift-drag: zoom to range · ←/→ + − 0";
    this.panels = s.panels.map((p, k) => new Panel(this, p, k === s.panels.length - 1, live));
    this.tip = el("div", "ic-tip", live);
    this.tip.setAttribute("role", "tooltip");
    this.tip.hidden = true;
    this.root.appendChild(live);
    this.root.classList.add("ic-ready");
    live.addEventListener("keydown", e => this.onKey(e));
    for (const p of this.panels) {
      const box = p.box;
      box.addEventListener("wheel", e => this.onWheel(e, p), { passive: false });
      box.addEventListener("pointerdown", e => this.onPointerDown(e, p));
      box.addEventListener("pointermove", e => this.onPointerMove(e, p));
      box.addEventListener("pointerup", e => this.onPointerUp(e, p));
      box.addEventListener("pointercancel", e => this.onPointerUp(e, p));
      // A finger leaves the box as it lifts: the box a tap showed stays until the next touch or a tap elsewhere.
      box.addEventListener("pointerleave", e => { if (!this.drag && e.pointerType === "mouse") this.leave(); });
      box.addEventListener("dblclick", () => this.reset());
    }
    this.resize();
    if (window.ResizeObserver) new ResizeObserver(() => this.resize()).observe(live);
    else window.addEventListener("resize", () => this.resize());
    this.stats.ready = performance.now();
  }

  resize() {
    const w = Math.round(this.live.clientWidth);
    if (!w || w === this.width) return;
    this.width = w;
    const dpr = window.devicePixelRatio || 1;
    for (const p of this.panels) p.resize(w, dpr);
    this.draw();
  }

  // The view: bars [a, b), kept inside the data and at least a few bars wide.
  setRange(a, b) {
    const n = this.n, least = Math.min(n, 5);
    if (!(b - a >= least)) { const c = (a + b) / 2; a = c - least / 2; b = c + least / 2; }
    if (b - a > n) { a = -0.5; b = n - 0.5; }
    if (a < -0.5) { b += -0.5 - a; a = -0.5; }
    if (b > n - 0.5) { a -= b - (n - 0.5); b = n - 0.5; }
    if (a === this.a && b === this.b) return;
    this.a = a; this.b = b;
    this.label();
    this.invalidate();
  }
  reset() { this.picked = null; this.setRange(-0.5, this.n - 0.5); }
  // Zooms onto trade k (its bars and half as many again on each side), rings its markers and brings the chart into view.
  showTrade(k) {
    const t = this.trades, pad = Math.max(5, (t.exit[k] - t.entry[k]) / 2);
    this.picked = k;
    this.setRange(t.entry[k] - pad, t.exit[k] + pad);
    this.invalidate();
    this.root.scrollIntoView({ block: "start" });
    this.live.focus({ preventScroll: true });
  }
  zoomAt(index, factor) { this.setRange(index - (index - this.a) * factor, index + (this.b - index) * factor); }
  pan(pixels) { const d = pixels / this.plotW * (this.b - this.a); this.setRange(this.a + d, this.b + d); }

  // data-x-start and data-x-end: ISO times of the first and last bar in view.
  label() {
    const [lo, hi] = this.visible();
    if (hi <= lo) return;
    const start = this.iso(lo), end = this.iso(hi - 1);
    for (const e of [this.root, this.live, ...this.panels.map(p => p.el)]) { e.dataset.xStart = start; e.dataset.xEnd = end; }
  }
  invalidate() {
    if (this.inputAt === undefined && window.event) this.inputAt = window.event.timeStamp;
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => { this.pending = false; this.draw(); });
  }
  draw() {
    const started = performance.now();
    this.theme = getComputedStyle(this.root);
    this.ticks = this.xTicks();
    for (const p of this.panels) p.draw();
    this.label();
    this.overlay();
    const now = performance.now(), took = now - started;
    if (!this.stats.draws) { this.stats.firstDrawn = now; this.stats.setup = now - scriptStart; }
    // From the input event that asked for it to the end of this redraw.
    if (this.inputAt !== undefined) { this.stats.lastLatency = now - this.inputAt; this.inputAt = undefined; }
    this.stats.draws++; this.stats.lastDraw = took; this.stats.maxDraw = Math.max(this.stats.maxDraw, took);
  }
  color(name, fallback) { return (this.theme && this.theme.getPropertyValue(name).trim()) || fallback; }

  // Time labels where the year, month, day or hour changes, at least 90 px apart; the first label, and the first of
  // each new year, carries the year.
  xTicks() {
    const [lo, hi] = this.visible(), out = [];
    if (hi - lo < 2) return out;
    const span = this.seconds(hi - 1) - this.seconds(lo), day = 86400;
    const unit = span > 4 * 365 * day ? 0 : span > 120 * day ? 1 : span > 4 * day || this.spec.dateOnly ? 2 : 3;
    const key = i => {
      const s = this.seconds(i), d = Math.floor(s / day), [y, m] = civil(d);
      return unit === 0 ? y : unit === 1 ? y * 12 + m : unit === 2 ? d : d * 24 + Math.floor((s - d * day) / 3600);
    };
    const text = i => {
      const s = this.seconds(i), d = Math.floor(s / day), [y, m, dd] = civil(d);
      if (unit === 0) return String(y);
      if (unit === 1) return y + "-" + pad2(m);
      const date = (y !== lastYear ? y + "-" : "") + pad2(m) + "-" + pad2(dd);
      if (unit === 2) return span > 300 * day ? y + "-" + pad2(m) + "-" + pad2(dd) : date;
      // Hours, with the day where it changes.
      return (d !== lastDay ? date + " " : "") + pad2(Math.floor((s - d * day) / 3600)) + ":" + pad2(Math.floor((s % 3600) / 60));
    };
    const perPx = (this.b - this.a) / this.plotW;
    let last = key(lo), lastX = -1e9, lastDay = null, lastYear = null;
    const visit = i => {
      const k = key(i);
      if (k === last) return;
      last = k;
      const x = this.xOf(i);
      if (x - lastX >= 90 && x < LEFT + this.plotW - 20) {
        out.push([x, text(i)]); lastX = x; lastDay = Math.floor(this.seconds(i) / day); lastYear = civil(lastDay)[0];
      }
    };
    if (perPx <= 1) for (let i = lo + 1; i < hi; i++) visit(i);
    else for (let c = 1; c < this.plotW; c++) { const i = this.barAtColumn(c); if (i < hi) visit(i); }
    return out;
  }

  // Input

  local(e, p) { const r = p.box.getBoundingClientRect(); return [e.clientX - r.left, e.clientY - r.top]; }
  onWheel(e, p) {
    e.preventDefault();
    const unit = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? 400 : 1;
    let dx = e.deltaX * unit, dy = e.deltaY * unit;
    if (e.shiftKey && !dx) { dx = dy; dy = 0; }
    if (Math.abs(dx) > Math.abs(dy)) this.pan(dx);
    else this.zoomAt(this.indexAt(this.local(e, p)[0]), Math.exp(dy * 0.0015));
  }
  onKey(e) {
    const span = this.b - this.a, centre = (this.a + this.b) / 2;
    switch (e.key) {
      case "ArrowLeft": this.setRange(this.a - span * 0.1, this.b - span * 0.1); break;
      case "ArrowRight": this.setRange(this.a + span * 0.1, this.b + span * 0.1); break;
      case "+": case "=": this.zoomAt(centre, 0.8); break;
      case "-": case "_": this.zoomAt(centre, 1.25); break;
      case "0": case "Home": case "Escape": this.reset(); break;
      default: return;
    }
    e.preventDefault();
  }
  onPointerDown(e, p) {
    if (e.pointerType === "mouse" && e.button !== 0) return;
    p.box.setPointerCapture(e.pointerId);
    this.pointers.set(e.pointerId, e.clientX);
    const [x] = this.local(e, p);
    // A touch that ends where it began, soon, is a tap: it shows the hover box there (`onPointerUp`).
    this.tap = e.pointerType === "mouse" || this.pointers.size > 1 ? null : { x: e.clientX, y: e.clientY, at: e.timeStamp };
    if (this.pointers.size === 2) {
      // Pinch: zoom around the point between the two fingers.
      const [x1, x2] = [...this.pointers.values()], mid = (x1 + x2) / 2 - p.box.getBoundingClientRect().left;
      this.drag = { pinch: Math.max(1, Math.abs(x1 - x2)), centre: this.indexAt(mid), a: this.a, b: this.b, panel: p };
    } else {
      this.drag = { x0: e.clientX, from: x, a: this.a, b: this.b, select: e.shiftKey, panel: p };
    }
    this.live.focus({ preventScroll: true });
  }
  onPointerMove(e, p) {
    const [x, y] = this.local(e, p), d = this.drag;
    if (this.pointers.has(e.pointerId)) this.pointers.set(e.pointerId, e.clientX);
    if (d && d.pinch && this.pointers.size === 2) {
      const [x1, x2] = [...this.pointers.values()], factor = d.pinch / Math.max(1, Math.abs(x1 - x2));
      this.setRange(d.centre - (d.centre - d.a) * factor, d.centre + (d.b - d.centre) * factor);
      return;
    }
    if (d && d.select) { this.selection = [d.from, x]; this.overlay(); return; }
    if (d && !d.pinch) {
      const shift = -(e.clientX - d.x0) / this.plotW * (d.b - d.a);
      this.setRange(d.a + shift, d.b + shift);
    }
    this.pointer = { panel: p, x, y };
    this.overlay();
  }
  onPointerUp(e, p) {
    this.pointers.delete(e.pointerId);
    const d = this.drag, tap = this.tap;
    this.tap = null;
    if (tap && Math.hypot(e.clientX - tap.x, e.clientY - tap.y) < 10 && e.timeStamp - tap.at < 600) {
      const [x, y] = this.local(e, p);
      this.drag = null; this.selection = null;
      this.pointer = { panel: p, x, y, touch: true };
      this.overlay();
      return;
    }
    if (d && d.select && this.selection) {
      const [u, v] = this.selection, left = Math.min(u, v), right = Math.max(u, v);
      if (right - left > 3) this.setRange(this.indexAt(left), this.indexAt(right));
    }
    this.selection = null;
    if (this.pointers.size === 0) this.drag = null;
    this.overlay();
  }
  leave() { this.pointer = null; this.overlay(); }

  // Crosshair, selection and the tooltip.
  overlay() {
    for (const p of this.panels) p.clearOverlay();
    if (this.picked !== null && this.picked !== undefined) for (const p of this.panels) if (p.s.trades) p.highlight(this.picked);
    const tip = this.tip, ptr = this.pointer;
    if (this.selection) for (const p of this.panels) p.shade(this.selection);
    if (!ptr || this.n === 0) { tip.hidden = true; return; }
    const [lo, hi] = this.visible();
    if (hi <= lo) { tip.hidden = true; return; }
    const trade = ptr.panel.tradeAt(ptr.x, ptr.y);
    if (trade !== null) {
      ptr.panel.highlight(trade);
      this.showTip(this.tradeRows(trade), ptr);
      return;
    }
    const i = Math.min(hi - 1, Math.max(lo, Math.round(this.indexAt(ptr.x))));
    for (const p of this.panels) p.crosshair(this.xOf(i), p === ptr.panel ? ptr.y : null);
    this.showTip(this.barRows(i), ptr);
  }
  barRows(i) {
    const rows = [["time", "time", this.iso(i)]];
    for (const r of this.spec.tooltip) {
      const v = this.col(r.col)[i];
      if (r.change) {
        const [lo] = this.visible(), base = this.col(r.col)[lo];
        rows.push([r.key, r.label + " " + this.iso(lo).slice(0, 10), format(v / base - 1, "percent")]);
      } else rows.push([r.key, r.label, format(v, r.format, this.decimals(r.col))]);
    }
    return rows;
  }
  tradeRows(k) {
    // Prices at the instrument's precision (a stop's fill can have more decimals than the bars).
    const t = this.trades, s = t.spec, dp = s.priceDecimals, dx = s.priceDecimals;
    return [
      ["trade", "trade", (k + 1) + " of " + grouped(String(t.entry.length))],
      ["entry_time", "entry", this.iso(t.entry[k])], ["entry_price", "entry price", format(t.entryPrice[k], "price", dp)],
      ["exit_time", "exit", this.iso(t.exit[k])], ["exit_price", "exit price", format(t.exitPrice[k], "price", dx)],
      ["shares", "shares", format(t.shares[k], "plain", this.decimals(s.shares))],
      ["pnl", "P&L", format(t.pnl[k], "money")], ["return", "return", format(t.ret[k], "percent")],
      ["exit_reason", "exit reason", s.reasons[t.reason[k]]], ["result", "result", t.pnl[k] > 0 ? "win" : "loss"],
    ];
  }
  showTip(rows, ptr) {
    const tip = this.tip;
    tip.textContent = "";
    const table = el("table", "", tip);
    for (const [key, label, value] of rows) {
      const tr = el("tr", "", table);
      tr.dataset.key = key;
      el("th", "", tr).textContent = label;
      el("td", "", tr).textContent = value;
    }
    tip.hidden = false;
    const box = ptr.panel.box, top = box.offsetTop + ptr.y + 14, w = tip.offsetWidth;
    const left = ptr.x + 16 + w > this.width ? ptr.x - 16 - w : ptr.x + 16;
    tip.style.left = Math.max(0, left) + "px";
    tip.style.top = top + "px";
  }
}

class Panel {
  constructor(chart, spec, last, parent) {
    this.c = chart; this.s = spec; this.last = last;
    // Fields read in y() for every point, and the rest drawing sets, made here in one order: every panel has one shape.
    this.base = 1; this.scaled = false; this.percent = false; this.log = false; this.compact = false; this.ticks = [];
    this.vmin = 0; this.vmax = 1;
    this.el = el("div", "ic-panel", parent);
    this.el.dataset.panel = spec.id;
    const head = el("div", "ic-head", this.el);
    el("span", "ic-title", head).textContent = spec.title;
    const keys = [];
    (spec.lines || []).forEach((l, k) => keys.push(["line" + k, l.label, l.color, l.dash]));
    (spec.stack || []).forEach((l, k) => keys.push(["stack" + k, l.label, l.color]));
    if (spec.trades && chart.trades) {
      keys.push(["win", "winning trade", COLORS.win], ["loss", "losing trade", COLORS.loss]);
    }
    if (spec.stages) keys.push(["stages", "cycle stages", "#8e8e93"]);
    for (const [key, label, color, dash] of keys) {
      const b = el("button", "ic-key", head);
      b.type = "button";
      b.setAttribute("aria-pressed", "true");
      b.dataset.series = key;
      const swatch = el("i", dash ? "dash" : "", b);
      swatch.style.background = color;
      b.appendChild(document.createTextNode(label));
      b.onclick = () => {
        const id = spec.id + ":" + key, on = chart.hidden.has(id);
        if (on) chart.hidden.delete(id); else chart.hidden.add(id);
        b.setAttribute("aria-pressed", String(on));
        chart.invalidate();
      };
    }
    if (spec.scales) {
      // Dollars or the return since the first bar in view; a linear or a log axis.
      const group = el("span", "ic-scales", head);
      group.setAttribute("role", "group"); group.setAttribute("aria-label", "scale");
      this.scaleButtons = [["money", "$", "in dollars"], ["percent", "%", "return since the first bar in view"], ["log", "log", "log scale"]].map(([key, text, title]) => {
        const b = el("button", "ic-button", group);
        b.type = "button"; b.textContent = text; b.title = title; b.dataset.scale = key;
        b.onclick = () => key === "log" ? this.setScale(this.percent, !this.log) : this.setScale(key === "percent", this.log);
        return b;
      });
      this.scaleButtons[0].setAttribute("aria-pressed", "true");
      this.scaleButtons[1].setAttribute("aria-pressed", "false");
      this.scaleButtons[2].setAttribute("aria-pressed", "false");
    }
    if (spec.trades && chart.trades) {
      const shapes = chart.trades.spec.shapes, note = ["▲ entry"];
      for (const [shape, text] of [["triangle", "▼ exit"], ["diamond", "◆ stop"], ["square", "■ target"]]) if (shapes.includes(shape)) note.push(text);
      el("span", "ic-shapes", head).textContent = note.join(" · ");
    }
    this.box = el("div", "ic-box", this.el);
    this.height = spec.height;
    this.full = spec.height + (last ? AXIS : 0);
    this.box.style.height = this.full + "px";
    this.canvas = el("canvas", "", this.box);
    this.canvas.setAttribute("role", "img");
    this.canvas.setAttribute("aria-label", spec.title);
    this.over = el("canvas", "ic-over", this.box);
  }
  shown(key) { return !this.c.hidden.has(this.s.id + ":" + key); }
  resize(w, dpr) {
    for (const cv of [this.canvas, this.over]) {
      cv.width = Math.round(w * dpr); cv.height = Math.round(this.full * dpr);
      cv.style.width = w + "px"; cv.style.height = this.full + "px";
      cv.getContext("2d").setTransform(dpr, 0, 0, dpr, 0, 0);
    }
    this.ctx = this.canvas.getContext("2d");
    this.octx = this.over.getContext("2d");
  }
  get top() { return PAD; }
  get bottom() { return this.height - PAD; }
  // A panel with scales (equity) shows its lines in dollars or as the return since the first bar in view (each line
  // divided by its value there, `base`), on a linear or a log axis: vmin and vmax are then in the axis's units.
  y(v) {
    if (this.scaled) v = this.log ? Math.log(v / this.base) : v / this.base;
    return this.bottom - (v - this.vmin) / (this.vmax - this.vmin) * (this.bottom - this.top);
  }
  // The value at height y: in dollars, or as a growth factor (1 + return) in percent.
  valueAt(y) {
    const a = this.vmin + (this.bottom - y) / (this.bottom - this.top) * (this.vmax - this.vmin);
    return this.scaled && this.log ? Math.exp(a) : a;
  }
  // What a line is divided by: 1 in dollars, its first value in view in percent.
  baseOf(l, lo) {
    if (!this.percent) return 1;
    const v = this.c.col(l.col);
    for (let i = lo; i < this.c.n; i++) if (v[i] === v[i]) return v[i] > 0 ? v[i] : 1;
    return 1;
  }
  setScale(percent, log) {
    this.percent = percent; this.log = log; this.scaled = percent || log;
    for (const b of this.scaleButtons || []) {
      b.setAttribute("aria-pressed", String(b.dataset.scale === "log" ? log : (b.dataset.scale === "percent") === percent));
    }
    this.c.invalidate();
  }
  // The axis's ticks as [axis value, text]: round dollars, round percentages, or on a log axis the 1, 2, 5 of each
  // power of ten (1, 2, 3, 5 or every power when those are too few or too many), linear ticks when the range is narrow.
  scaleTicks(count) {
    const kind = this.percent ? "percent" : this.s.format, shift = this.percent ? 1 : 0;
    const label = (d, step) => tickText(d - shift, step, kind);
    if (!this.log) return (({ ticks, step }) => ticks.map(t => [t + shift, label(t + shift, step)]))(niceTicks(this.vmin - shift, this.vmax - shift, count));
    const lo = Math.exp(this.vmin), hi = Math.exp(this.vmax);
    // Over many powers of ten: every power, or its 1, 2 and 5, whichever are `count` or more and fewest.
    for (const mantissas of [[1], [1, 2, 5], [1, 2, 3, 5]]) {
      const out = [];
      for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) {
        for (const m of mantissas) { const d = m * Math.pow(10, e); if (d >= lo && d <= hi) out.push([Math.log(d), label(d, Math.pow(10, e))]); }
      }
      if (out.length >= count) return out;
    }
    // A narrower range: round values, as on a linear axis, placed on the log axis.
    const { ticks, step } = niceTicks(lo - shift, hi - shift, count);
    return ticks.filter(t => t + shift > 0).map(t => [Math.log(t + shift), label(t + shift, step)]);
  }

  // The value range of what is in view.
  fit(lo, hi) {
    const s = this.s, c = this.c;
    if (s.range) return s.range.slice();
    let vmin = Infinity, vmax = -Infinity;
    const r = [0, 0], take = () => { if (r[0] < vmin) vmin = r[0]; if (r[1] > vmax) vmax = r[1]; };
    if (s.ohlc && hi > lo) {
      c.extent(s.ohlc[2]).range(lo, hi, r); vmin = Math.min(vmin, r[0]);
      c.extent(s.ohlc[1]).range(lo, hi, r); vmax = Math.max(vmax, r[1]);
    }
    (s.lines || []).forEach((l, k) => {
      if (!this.shown("line" + k) || hi <= lo) return;
      c.extent(l.col).range(lo, hi, r);
      if (this.scaled) {
        const base = this.baseOf(l, lo);
        for (const j of [0, 1]) r[j] = this.log ? (r[j] > 0 ? Math.log(r[j] / base) : NaN) : r[j] / base;
        if (!(r[0] <= r[1])) return;
      }
      take();
    });
    for (const v of s.levels || []) { vmin = Math.min(vmin, v); vmax = Math.max(vmax, v); }
    if (s.zero) { vmin = Math.min(vmin, 0); vmax = Math.max(vmax, 0); }
    if (!(vmin <= vmax)) { vmin = 0; vmax = 1; }
    if (vmin === vmax) { const d = Math.abs(vmin) * 0.01 || (this.log ? 0.01 : 1); vmin -= d; vmax += d; }
    const padding = (vmax - vmin) * 0.05;
    return [s.zero && vmin === 0 ? 0 : vmin - padding, s.zero && vmax === 0 ? 0 : vmax + padding];
  }

  draw() {
    const c = this.c, s = this.s, ctx = this.ctx, W = c.width;
    if (!ctx) return;
    const [lo, hi] = c.visible();
    [this.vmin, this.vmax] = this.fit(lo, hi);
    ctx.clearRect(0, 0, W, this.full);
    ctx.save();
    const fg = c.color("--muted", "#636366"), grid = c.color("--line", "#e5e5ea");
    ctx.font = "11px -apple-system, Helvetica, Arial, sans-serif";
    // Stages behind everything.
    if (s.stages && this.shown("stages")) {
      const half = (c.plotW / (c.b - c.a)) / 2;
      for (const [start, end, color] of s.stages) {
        if (end <= lo || start >= hi) continue;
        const x0 = Math.max(LEFT, c.xOf(start) - half), x1 = Math.min(LEFT + c.plotW, c.xOf(end - 1) + half);
        ctx.fillStyle = color; ctx.globalAlpha = 0.12; ctx.fillRect(x0, this.top, x1 - x0, this.bottom - this.top);
      }
      ctx.globalAlpha = 1;
    }
    // Grid and value labels.
    // Ticks as [y, text]; `ticks` keeps them for automation.
    const count = Math.max(3, Math.round(this.height / 45));
    const axisY = a => this.bottom - (a - this.vmin) / (this.vmax - this.vmin) * (this.bottom - this.top);
    this.ticks = s.scales ? this.scaleTicks(count).map(([a, t]) => [axisY(a), t])
      : (({ ticks, step }) => ticks.map(v => [axisY(v), tickText(v, step, s.format)]))(niceTicks(this.vmin, this.vmax, count));
    ctx.strokeStyle = grid; ctx.lineWidth = 1; ctx.fillStyle = fg; ctx.textAlign = "right"; ctx.textBaseline = "middle";
    ctx.beginPath();
    for (const [y] of this.ticks) { const yy = Math.round(y) + 0.5; ctx.moveTo(LEFT, yy); ctx.lineTo(LEFT + c.plotW, yy); }
    for (const [x] of c.ticks) { const xx = Math.round(x) + 0.5; ctx.moveTo(xx, this.top); ctx.lineTo(xx, this.bottom); }
    ctx.stroke();
    for (const [y, t] of this.ticks) ctx.fillText(t, LEFT - 6, y);
    if (this.last) {
      ctx.textAlign = "center"; ctx.textBaseline = "top";
      for (const [x, t] of c.ticks) ctx.fillText(t, x, this.height + 2);
    }
    // Clip the data to the plot.
    ctx.beginPath(); ctx.rect(LEFT, 0, c.plotW, this.height); ctx.clip();
    for (const v of s.levels || []) {
      ctx.strokeStyle = (s.lines && s.lines[0] && s.lines[0].color) || fg; ctx.globalAlpha = 0.7;
      ctx.setLineDash([4, 3]); ctx.beginPath(); ctx.moveTo(LEFT, this.y(v)); ctx.lineTo(LEFT + c.plotW, this.y(v)); ctx.stroke();
      ctx.setLineDash([]); ctx.globalAlpha = 1;
    }
    if (hi > lo) {
      if (s.stack) this.drawStack(lo, hi);
      if (s.ohlc) this.drawPrices(lo, hi);
      (s.lines || []).forEach((l, k) => {
        if (!this.shown("line" + k)) return;
        this.base = this.baseOf(l, lo);
        this.drawLine(l, lo, hi);
        if (s.marks) this.drawMarks(k, lo, hi);
        this.base = 1;
      });
      if (s.trades && c.trades) this.drawMarkers(lo, hi);
    }
    ctx.restore();
  }
  // Marks on line k (the equity's peak, the maximum drawdown's trough): a ring and its label, when in view.
  drawMarks(k, lo, hi) {
    const c = this.c, ctx = this.ctx, v = c.col(this.s.lines[k].col);
    for (const m of this.s.marks) {
      if (m.line !== k || m.bar < lo || m.bar >= hi) continue;
      const x = c.xOf(m.bar), y = this.y(v[m.bar]);
      ctx.beginPath(); ctx.arc(x, y, 4.5, 0, 6.2832);
      ctx.fillStyle = c.color("--card", "#fff"); ctx.fill(); ctx.lineWidth = 2; ctx.strokeStyle = m.color; ctx.stroke();
      ctx.font = "600 11px -apple-system, Helvetica, Arial, sans-serif"; ctx.fillStyle = m.color;
      ctx.textAlign = x > LEFT + c.plotW - 160 ? "right" : "left"; ctx.textBaseline = m.below ? "top" : "bottom";
      ctx.fillText(m.label, x + (ctx.textAlign === "right" ? -7 : 7), y + (m.below ? 5 : -5));
    }
  }

  // A line: every bar when there is room, else each pixel column's first, lowest, highest and last value.
  path(v, ext, lo, hi, ctx) {
    const c = this.c, perPx = (c.b - c.a) / c.plotW, r = [0, 0];
    let pen = false, first = null, lastX = null;
    const to = (x, y) => { if (pen) ctx.lineTo(x, y); else { ctx.moveTo(x, y); pen = true; if (first === null) first = x; } lastX = x; };
    if (perPx <= 1) {
      for (let i = Math.max(0, lo - 1), e = Math.min(c.n, hi + 1); i < e; i++) {
        const x = v[i];
        if (x !== x) { pen = false; continue; }
        to(c.xOf(i), this.y(x));
      }
    } else {
      for (let col = 0; col < c.plotW; col++) {
        const i0 = c.barAtColumn(col), i1 = c.barAtColumn(col + 1);
        if (i1 <= i0) continue;
        ext.range(i0, i1, r);
        if (r[0] > r[1]) { pen = false; continue; }
        const x = LEFT + col + 0.5, f = v[i0], l = v[i1 - 1];
        if (f === f) to(x, this.y(f)); else pen = false;
        to(x, this.y(r[0])); to(x, this.y(r[1]));
        if (l === l) to(x, this.y(l)); else pen = false;
      }
    }
    return [first, lastX];
  }
  drawLine(l, lo, hi) {
    const c = this.c, ctx = this.ctx, v = c.col(l.col), ext = c.extent(l.col);
    if (l.bars) {
      // Bars up from 0: each bar's, or the largest of each pixel column's bars.
      const p = new Path2D(), y0 = this.y(0), pxPerBar = c.plotW / (c.b - c.a), r = [0, 0];
      if (pxPerBar >= 1) {
        const w = Math.max(1, Math.min(pxPerBar * 0.7, 14));
        for (let i = lo; i < hi; i++) if (v[i] > 0) { const x = c.xOf(i), y = this.y(v[i]); p.rect(x - w / 2, y, w, y0 - y); }
      } else for (let col = 0; col < c.plotW; col++) {
        const i0 = c.barAtColumn(col), i1 = c.barAtColumn(col + 1);
        if (i1 <= i0 || ext.range(i0, i1, r)[1] <= 0) continue;
        const y = this.y(r[1]);
        p.rect(LEFT + col, y, 1, y0 - y);
      }
      ctx.fillStyle = l.color; ctx.globalAlpha = 0.8; ctx.fill(p); ctx.globalAlpha = 1;
      return;
    }
    if (l.area) {
      // The area down (or up) to zero: in each pixel column, the value farthest from zero.
      const perPx = (c.b - c.a) / c.plotW, r = [0, 0], y0 = this.y(0);
      let first = null, last = null;
      ctx.beginPath();
      const to = (x, value) => { if (first === null) { first = x; ctx.moveTo(x, y0); } ctx.lineTo(x, this.y(value)); last = x; };
      if (perPx <= 1) for (let i = Math.max(0, lo - 1), e = Math.min(c.n, hi + 1); i < e; i++) { if (v[i] === v[i]) to(c.xOf(i), v[i]); }
      else for (let col = 0; col < c.plotW; col++) {
        const i0 = c.barAtColumn(col), i1 = c.barAtColumn(col + 1);
        if (i1 <= i0 || ext.range(i0, i1, r)[0] > r[1]) continue;
        to(LEFT + col + 0.5, Math.abs(r[0]) > Math.abs(r[1]) ? r[0] : r[1]);
      }
      if (first !== null) {
        ctx.lineTo(last, y0); ctx.closePath();
        ctx.fillStyle = l.color; ctx.globalAlpha = 0.22; ctx.fill(); ctx.globalAlpha = 1;
      }
    }
    ctx.beginPath();
    if (this.path(v, ext, lo, hi, ctx)[0] === null) return;
    ctx.strokeStyle = l.color; ctx.lineWidth = l.width || 1.2;
    ctx.setLineDash(l.dash || []);
    ctx.stroke();
    ctx.setLineDash([]);
  }
  drawPrices(lo, hi) {
    const c = this.c, ctx = this.ctx, [o, h, l, cl] = this.s.ohlc.map(k => c.col(k));
    const pxPerBar = c.plotW / (c.b - c.a), up = new Path2D(), down = new Path2D();
    if (pxPerBar >= 3) {
      const w = Math.max(1, Math.min(pxPerBar * 0.7, 14));
      const upBodies = [], downBodies = [];
      for (let i = lo; i < hi; i++) {
        const x = c.xOf(i), rising = cl[i] >= o[i], p = rising ? up : down;
        p.moveTo(x, this.y(h[i])); p.lineTo(x, this.y(l[i]));
        const y0 = this.y(Math.max(o[i], cl[i])), y1 = this.y(Math.min(o[i], cl[i]));
        (rising ? upBodies : downBodies).push([x - w / 2, y0, w, Math.max(1, y1 - y0)]);
      }
      ctx.lineWidth = 1;
      ctx.strokeStyle = COLORS.up; ctx.stroke(up); ctx.strokeStyle = COLORS.down; ctx.stroke(down);
      ctx.fillStyle = COLORS.up; for (const b of upBodies) ctx.fillRect(...b);
      ctx.fillStyle = COLORS.down; for (const b of downBodies) ctx.fillRect(...b);
      return;
    }
    // One OHLC bar per pixel column: the true high and low of the bars it covers, the first open, the last close.
    const eh = c.extent(this.s.ohlc[1]), el_ = c.extent(this.s.ohlc[2]), r = [0, 0];
    for (let col = 0; col < c.plotW; col++) {
      const i0 = c.barAtColumn(col), i1 = c.barAtColumn(col + 1);
      if (i1 <= i0) continue;
      const high = eh.range(i0, i1, r)[1], low = el_.range(i0, i1, r)[0], open = o[i0], close = cl[i1 - 1];
      const x = LEFT + col + 0.5, p = close >= open ? up : down;
      p.moveTo(x, this.y(high)); p.lineTo(x, this.y(low) + 0.5);
      p.moveTo(x - 1.5, this.y(open)); p.lineTo(x, this.y(open));
      p.moveTo(x, this.y(close)); p.lineTo(x + 1.5, this.y(close));
    }
    ctx.lineWidth = 1;
    ctx.strokeStyle = COLORS.up; ctx.stroke(up); ctx.strokeStyle = COLORS.down; ctx.stroke(down);
  }
  drawStack(lo, hi) {
    const c = this.c, ctx = this.ctx, layers = this.s.stack.map((l, k) => [l, k]).filter(([, k]) => this.shown("stack" + k));
    const perPx = (c.b - c.a) / c.plotW, xs = [], idx = [];
    if (perPx <= 1) for (let i = lo; i < hi; i++) { xs.push(c.xOf(i)); idx.push(i); }
    else for (let col = 0; col < c.plotW; col++) {
      const i0 = c.barAtColumn(col), i1 = c.barAtColumn(col + 1);
      if (i1 > i0) { xs.push(LEFT + col + 0.5); idx.push(i1 - 1); }
    }
    let base = new Float64Array(xs.length);
    for (const [l] of layers) {
      const v = c.col(l.col), top = base.map((b, j) => b + (v[idx[j]] || 0));
      ctx.beginPath();
      xs.forEach((x, j) => j ? ctx.lineTo(x, this.y(top[j])) : ctx.moveTo(x, this.y(top[j])));
      for (let j = xs.length - 1; j >= 0; j--) ctx.lineTo(xs[j], this.y(base[j]));
      ctx.closePath();
      ctx.fillStyle = l.color; ctx.globalAlpha = 0.75; ctx.fill(); ctx.globalAlpha = 1;
      base = top;
    }
  }

  // Trade markers, green for a trade that made money and red for one that lost: a triangle under the entry fill,
  // and at the exit fill a shape for the exit's kind (a triangle over it for a signal's exit, a diamond on it for a
  // stop, a square on it for a target). When more trades are in view than fit (`compact`), each trade is a line
  // from its entry fill to its exit fill with a dot at each end.
  win(k) { return this.c.trades.pnl[k] > 0; }
  exitShape(k) { const t = this.c.trades; return t.spec.shapes[t.reason[k]]; }
  // The trades that overlap bars [lo, hi): from the first whose exit is at or after lo to the last whose entry is before hi.
  tradeRange(lo, hi) { const t = this.c.trades; return [lowerBound(t.exit, lo), lowerBound(t.entry, hi)]; }
  markerCentre(k, exit) {
    const t = this.c.trades;
    if (this.compact) return exit ? [this.c.xOf(t.exit[k]), this.y(t.exitPrice[k])] : [this.c.xOf(t.entry[k]), this.y(t.entryPrice[k])];
    if (!exit) return [this.c.xOf(t.entry[k]), this.y(t.entryPrice[k]) + 6];
    return [this.c.xOf(t.exit[k]), this.y(t.exitPrice[k]) + (this.exitShape(k) === "triangle" ? -6 : 0)];
  }
  drawMarkers(lo, hi) {
    const c = this.c, ctx = this.ctx, [from, to] = this.tradeRange(lo, hi);
    // Full markers while each trade in view has 16 px of the plot; one small pair a trade beyond that.
    this.compact = (to - from) * 16 > c.plotW;
    ctx.lineWidth = 0.8; ctx.strokeStyle = c.color("--card", "#fff");
    for (const win of [true, false]) {
      if (!this.shown(win ? "win" : "loss")) continue;
      const color = win ? COLORS.win : COLORS.loss, p = new Path2D();
      if (this.compact) {
        // A dot (a 4 px square: fast to fill by the thousand) at each fill, joined by a line while there is room to see it.
        const links = (to - from) * 4 <= c.plotW ? new Path2D() : null, t = c.trades;
        for (let k = from; k < to; k++) {
          if ((t.pnl[k] > 0) !== win) continue;
          const x0 = c.xOf(t.entry[k]), y0 = this.y(t.entryPrice[k]), x1 = c.xOf(t.exit[k]), y1 = this.y(t.exitPrice[k]);
          if (links) { links.moveTo(x0, y0); links.lineTo(x1, y1); }
          p.rect(x0 - 2, y0 - 2, 4, 4); p.rect(x1 - 2, y1 - 2, 4, 4);
        }
        if (links) { ctx.save(); ctx.strokeStyle = color; ctx.lineWidth = 1.5; ctx.globalAlpha = 0.85; ctx.stroke(links); ctx.restore(); }
        ctx.fillStyle = color; ctx.fill(p);
        continue;
      }
      for (let k = from; k < to; k++) {
        if (this.win(k) !== win) continue;
        // Shapes closed by a last lineTo: closePath on a path of thousands of shapes is slow in Chromium.
        let [x, y] = this.markerCentre(k, false);
        if (c.trades.entry[k] >= lo) { p.moveTo(x, y - 6); p.lineTo(x + 5, y + 3); p.lineTo(x - 5, y + 3); p.lineTo(x, y - 6); }
        if (c.trades.exit[k] >= hi) continue;
        [x, y] = this.markerCentre(k, true);
        const shape = this.exitShape(k);
        if (shape === "triangle") { p.moveTo(x, y + 6); p.lineTo(x + 5, y - 3); p.lineTo(x - 5, y - 3); p.lineTo(x, y + 6); }
        else if (shape === "square") { p.moveTo(x - 4.5, y - 4.5); p.lineTo(x + 4.5, y - 4.5); p.lineTo(x + 4.5, y + 4.5); p.lineTo(x - 4.5, y + 4.5); p.lineTo(x - 4.5, y - 4.5); }
        else { p.moveTo(x, y - 6); p.lineTo(x + 6, y); p.lineTo(x, y + 6); p.lineTo(x - 6, y); p.lineTo(x, y - 6); }
      }
      ctx.fillStyle = color; ctx.fill(p); ctx.stroke(p);
    }
  }
  // The trade whose marker is within 8 px of (x, y), nearest first; null if none.
  tradeAt(x, y) {
    const c = this.c, t = c.trades;
    if (!this.s.trades || !t || y > this.height) return null;
    const from = Math.floor(c.indexAt(x - 8)), to = Math.ceil(c.indexAt(x + 8)) + 1;
    let best = null, bestD = 64;
    for (const exit of [false, true]) {
      const bars = exit ? t.exit : t.entry;
      for (let k = lowerBound(bars, from), e = lowerBound(bars, to); k < e; k++) {
        if (!this.shown(this.win(k) ? "win" : "loss")) continue;
        const [mx, my] = this.markerCentre(k, exit), d = (mx - x) ** 2 + (my - y) ** 2;
        if (d <= bestD) { bestD = d; best = k; }
      }
    }
    return best;
  }
  // Where trade k's marker is, in client coordinates (for automation).
  markerPoint(k, exit) {
    const [x, y] = this.markerCentre(k, exit), r = this.box.getBoundingClientRect();
    return { x: r.left + x, y: r.top + y };
  }

  clearOverlay() { if (this.octx) this.octx.clearRect(0, 0, this.c.width, this.full); }
  crosshair(x, y) {
    const o = this.octx;
    o.strokeStyle = this.c.color("--muted", "#636366"); o.lineWidth = 1; o.setLineDash([3, 3]);
    o.beginPath(); o.moveTo(Math.round(x) + 0.5, this.top); o.lineTo(Math.round(x) + 0.5, this.bottom);
    if (y !== null && y >= this.top && y <= this.bottom) { o.moveTo(LEFT, Math.round(y) + 0.5); o.lineTo(LEFT + this.c.plotW, Math.round(y) + 0.5); }
    o.stroke(); o.setLineDash([]);
    if (y !== null && y >= this.top && y <= this.bottom) {
      const value = this.valueAt(y), text = this.percent ? tickText(value - 1, 1e-4, "percent")
        : tickText(value, this.log ? Math.abs(value) / 1000 : (this.vmax - this.vmin) / 1000, this.s.format);
      o.font = "11px -apple-system, Helvetica, Arial, sans-serif";
      const w = o.measureText(text).width + 8;
      o.fillStyle = this.c.color("--fg", "#1c1c1e"); o.fillRect(LEFT - w - 2, y - 8, w, 16);
      o.fillStyle = this.c.color("--card", "#fff"); o.textAlign = "right"; o.textBaseline = "middle"; o.fillText(text, LEFT - 6, y);
    }
  }
  highlight(k) {
    const o = this.octx, [x0, y0] = this.markerCentre(k, false), [x1, y1] = this.markerCentre(k, true);
    o.strokeStyle = this.c.color("--fg", "#1c1c1e"); o.lineWidth = 1.5; o.setLineDash([4, 3]);
    o.beginPath(); o.moveTo(x0, y0); o.lineTo(x1, y1); o.stroke(); o.setLineDash([]);
    o.beginPath(); o.arc(x0, y0, 8, 0, 7); o.moveTo(x1 + 8, y1); o.arc(x1, y1, 8, 0, 7); o.stroke();
  }
  shade([u, v]) {
    const o = this.octx;
    o.fillStyle = "rgba(0,113,227,0.15)";
    o.fillRect(Math.min(u, v), this.top, Math.abs(u - v), this.bottom - this.top);
  }
}

// The sweep heatmap: the value on hover, a cell's combinations on click.
function heatmap(root, spec) {
  const svg = root.querySelector("svg"), tip = el("div", "ic-tip", root), detail = el("div", "ic-detail", root);
  tip.setAttribute("role", "tooltip"); tip.hidden = true;
  detail.setAttribute("aria-live", "polite");
  const cells = new Map(spec.cells.map(c => [c.x + "\u0000" + c.y, c]));
  const cellOf = rect => cells.get(rect.dataset.x + "\u0000" + rect.dataset.y);
  const rows = (c) => [[spec.x, c.x], [spec.y, c.y], [spec.metric + (c.count > 1 ? " (mean of " + c.count + ")" : ""), c.value]];
  const show = (rect, e) => {
    const c = cellOf(rect);
    if (!c) return;
    tip.textContent = "";
    const table = el("table", "", tip);
    for (const [k, v] of rows(c)) { const tr = el("tr", "", table); el("th", "", tr).textContent = k; el("td", "", tr).textContent = v; }
    tip.hidden = false;
    const r = root.getBoundingClientRect(), b = rect.getBoundingClientRect();
    tip.style.left = (b.right - r.left + 6) + "px"; tip.style.top = (b.top - r.top) + "px";
  };
  const pick = rect => {
    const c = cellOf(rect);
    if (!c) return;
    for (const r of svg.querySelectorAll("rect.ic-picked")) r.classList.remove("ic-picked");
    rect.classList.add("ic-picked");
    detail.textContent = "";
    el("h3", "", detail).textContent = spec.x + " " + c.x + ", " + spec.y + " " + c.y + ": " + c.count + " combination" + (c.count === 1 ? "" : "s")
      + (c.rows.length < c.count ? " (the best " + c.rows.length + " shown)" : "") + ", best first";
    const table = el("table", "", detail), head = el("tr", "", table);
    for (const h of [...spec.parameters, ...spec.columns]) el("th", "", head).textContent = h;
    for (const row of c.rows) { const tr = el("tr", "", table); for (const v of row) el("td", "", tr).textContent = v; }
  };
  for (const rect of svg.querySelectorAll("rect[data-value]")) {
    rect.setAttribute("tabindex", "0");
    rect.setAttribute("role", "button");
    rect.addEventListener("mouseenter", e => show(rect, e));
    rect.addEventListener("focus", e => show(rect, e));
    rect.addEventListener("mouseleave", () => { tip.hidden = true; });
    rect.addEventListener("blur", () => { tip.hidden = true; });
    rect.addEventListener("click", () => pick(rect));
    rect.addEventListener("keydown", e => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); pick(rect); } });
  }
}

// The trade table (`data-trade-table` names its chart): every trade of the chart, sortable by each column,
// filterable by text (a date, a reason, a number) and by result; a row, or the best and worst trade's link, zooms
// the chart onto its trade. `backtestTradeTables` lists the tables for automation.
function tradeTable(card, chart) {
  const t = chart.trades;
  if (!t) return;
  const n = t.entry.length, s = t.spec, dp = s.priceDecimals, ds = chart.decimals(s.shares);
  const price = v => "$" + format(v, "price", dp);
  const columns = [
    ["#", k => k, k => String(k + 1)],
    ["Entry", k => t.entry[k], k => chart.iso(t.entry[k])],
    ["Entry price", k => t.entryPrice[k], k => price(t.entryPrice[k])],
    ["Exit", k => t.exit[k], k => chart.iso(t.exit[k])],
    ["Exit price", k => t.exitPrice[k], k => price(t.exitPrice[k])],
    ["Shares", k => t.shares[k], k => format(t.shares[k], "plain", ds)],
    ["P&L", k => t.pnl[k], k => format(t.pnl[k], "money")],
    ["Return", k => t.ret[k], k => format(t.ret[k], "percent")],
    ["Reason", k => s.reasons[t.reason[k]], k => s.reasons[t.reason[k]]],
    ["Bars", k => t.exit[k] - t.entry[k] + 1, k => String(t.exit[k] - t.entry[k] + 1)],
  ];
  const bar = el("div", "ic-table-bar");
  const search = el("input", "", bar);
  search.type = "search"; search.placeholder = "filter: date, reason, #"; search.setAttribute("aria-label", "filter the trades");
  const result = el("select", "", bar);
  result.setAttribute("aria-label", "result");
  for (const [value, text] of [["", "all trades"], ["win", "winning"], ["loss", "losing"]]) { const o = el("option", "", result); o.value = value; o.textContent = text; }
  const count = el("span", "note", bar);
  count.setAttribute("aria-live", "polite");
  const table = el("table", "ic-trades ic-live-trades"), head = el("tr", "", el("thead", "", table)), body = el("tbody", "", table);
  const more = el("button", "ic-button");
  more.type = "button";
  const headers = columns.map(([label], j) => {
    const th = el("th", "", head), b = el("button", "", th);
    b.type = "button"; b.textContent = label; b.dataset.sort = j;
    b.onclick = () => { state.desc = state.sort === j ? !state.desc : j >= 5 && j <= 7; state.sort = j; state.shown = 500; render(); };
    return th;
  });
  const state = { sort: 0, desc: false, shown: 500 };
  let texts = null;
  const rows = () => {
    const query = search.value.trim().toLowerCase(), want = result.value;
    if (query && !texts) texts = Array.from({ length: n }, (_, k) => columns.map(c => c[2](k)).join(" ").toLowerCase());
    const list = [];
    for (let k = 0; k < n; k++) {
      if (want && (t.pnl[k] > 0) !== (want === "win")) continue;
      if (query && !texts[k].includes(query)) continue;
      list.push(k);
    }
    const key = columns[state.sort][1], sign = state.desc ? -1 : 1;
    list.sort((a, b) => { const x = key(a), y = key(b); return (x < y ? -1 : x > y ? 1 : a - b) * sign; });
    return list;
  };
  const render = () => {
    const list = rows(), shown = list.slice(0, state.shown);
    headers.forEach((th, j) => th.setAttribute("aria-sort", j === state.sort ? (state.desc ? "descending" : "ascending") : "none"));
    body.innerHTML = shown.map(k => '<tr tabindex="0" data-trade="' + k + '" class="' + (t.pnl[k] > 0 ? "win" : "loss") + (k === chart.picked ? " ic-picked" : "") + '">'
      + columns.map(c => "<td>" + c[2](k) + "</td>").join("") + "</tr>").join("");
    count.textContent = grouped(String(list.length)) + " of " + grouped(String(n)) + " trades" + (shown.length < list.length ? ", the first " + grouped(String(shown.length)) + " shown" : "");
    more.hidden = shown.length >= list.length;
    more.textContent = "Show " + grouped(String(Math.min(500, list.length - shown.length))) + " more";
  };
  const pick = k => {
    chart.showTrade(k);
    for (const r of body.querySelectorAll("tr.ic-picked")) r.classList.remove("ic-picked");
    const row = body.querySelector('tr[data-trade="' + k + '"]');
    if (row) row.classList.add("ic-picked");
  };
  body.addEventListener("click", e => { const r = e.target.closest("tr[data-trade]"); if (r) pick(+r.dataset.trade); });
  body.addEventListener("keydown", e => { const r = e.target.closest("tr[data-trade]"); if (r && (e.key === "Enter" || e.key === " ")) { e.preventDefault(); pick(+r.dataset.trade); } });
  search.addEventListener("input", () => { state.shown = 500; render(); });
  result.addEventListener("change", () => { state.shown = 500; render(); });
  more.onclick = () => { state.shown += 500; render(); };
  for (const a of card.querySelectorAll("a[data-zoom-trade]")) a.addEventListener("click", e => { e.preventDefault(); pick(+a.dataset.zoomTrade); });
  const old = card.querySelector("table.ic-trades"), note = card.querySelector(".ic-trades-note");
  if (note) note.remove();
  old.replaceWith(bar);
  bar.after(table);
  table.after(more);
  render();
  const api = { card, table, search, result, render, pick, rows };
  (window.backtestTradeTables = window.backtestTradeTables || []).push(api);
  return api;
}

// Tables of class ic-sortable: a heading sorts the rows by its column (numbers as numbers: $, %, commas and
// signs read; "—" last), again the other way.
function sortable(table) {
  const heads = [...table.tHead.rows[0].cells], body = table.tBodies[0];
  const value = text => {
    const t = text.replace(/[$,%+]|\s*pts$/g, "").trim(), v = Number(t);
    return t !== "" && isFinite(v) ? v : null;
  };
  heads.forEach((th, j) => {
    const b = el("button", "");
    b.type = "button"; b.textContent = th.textContent; b.dataset.sort = j;
    th.textContent = ""; th.appendChild(b); th.setAttribute("aria-sort", "none");
    b.onclick = () => {
      const desc = th.getAttribute("aria-sort") === "ascending";
      const rows = [...body.rows].map((r, k) => [r, r.cells[j] ? r.cells[j].textContent : "", k]);
      rows.sort((x, y) => {
        const a = value(x[1]), c = value(y[1]);
        if ((a === null) !== (c === null)) return a === null ? 1 : -1;  // numbers first, either way
        const d = a !== null ? a - c : x[1].localeCompare(y[1]);
        return (desc ? -d : d) || x[2] - y[2];
      });
      for (const [r] of rows) body.appendChild(r);
      for (const h of heads) h.setAttribute("aria-sort", "none");
      th.setAttribute("aria-sort", desc ? "descending" : "ascending");
    };
  });
}
for (const table of document.querySelectorAll("table.ic-sortable")) sortable(table);

const charts = [];
const failed = (root, error) => { root.classList.remove("ic-ready"); root.classList.add("ic-failed"); console.error("chart", root.id, error); };
for (const root of document.querySelectorAll("[data-chart]")) {
  try {
    const spec = JSON.parse(root.querySelector("script.ic-spec").textContent);
    if (spec.heatmap) { heatmap(root, spec); continue; }
    // The packed columns' text, read (and the element dropped) when the chart first needs them.
    const holder = root.querySelector("script.ic-data");
    const chart = new Chart(root, spec, () => { const text = holder ? holder.textContent : ""; if (holder) holder.remove(); return text; });
    chart.ready.catch(error => failed(root, error));
    charts.push(chart);
  } catch (error) {
    failed(root, error);
  }
}
for (const card of document.querySelectorAll("[data-trade-table]")) {
  const chart = charts.find(c => c.root.id === card.dataset.tradeTable);
  if (chart) chart.ready.then(() => tradeTable(card, chart)).catch(error => console.error("trade table", error));
}
window.backtestCharts = charts;
})();
"""#
}
