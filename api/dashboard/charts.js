// SVG charts drawn by hand: horizontal bars for the sector ranking and
// candlesticks with volume and moving averages for K-lines. Colours follow
// the A-share convention: red rises (inflow), green falls (outflow).
const NS = 'http://www.w3.org/2000/svg';

export function svg(tag, attrs = {}, children = []) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v !== undefined && v !== null) e.setAttribute(k, String(v));
  }
  for (const c of children) e.append(c);
  return e;
}

function title(text) {
  const t = svg('title');
  t.textContent = text;
  return t;
}

// money formats yuan in 亿 (1e8) or 万 (1e4).
export function money(v) {
  if (v === null || v === undefined || !Number.isFinite(v)) return '—';
  const a = Math.abs(v);
  if (a >= 1e8) return `${(v / 1e8).toFixed(2)}亿`;
  if (a >= 1e4) return `${(v / 1e4).toFixed(0)}万`;
  return v.toFixed(0);
}

export function pct(v, digits = 2) {
  if (v === null || v === undefined || !Number.isFinite(v)) return '—';
  return `${v > 0 ? '+' : ''}${v.toFixed(digits)}%`;
}

// barChart draws one list of ranked sectors as horizontal main_net bars into
// the <svg> element target. scale is the largest |main_net| shown across
// the lists being compared, so inflow and outflow bars share one scale.
export function barChart(target, entries, scale, width) {
  const rowH = 22;
  const labelW = 112;
  const valueW = 66; // the amount after the bar
  const pctW = 58; // the change, right-aligned
  const h = Math.max(entries.length, 1) * rowH + 4;
  const barW = Math.max(width - labelW - valueW - pctW, 40);
  target.replaceChildren();
  target.setAttribute('viewBox', `0 0 ${width} ${h}`);
  target.setAttribute('height', String(h));
  if (entries.length === 0) {
    target.append(svg('text', { x: 4, y: 16, class: 'muted' }, ['none']));
    return;
  }
  entries.forEach((e, i) => {
    const y = i * rowH + 2;
    const v = e.main_net ?? 0;
    const w = scale > 0 ? Math.max((Math.abs(v) / scale) * barW, 1) : 1;
    const cls = v >= 0 ? 'bar in' : 'bar out';
    const name = e.sector_name.length > 10 ? `${e.sector_name.slice(0, 9)}…` : e.sector_name;
    const g = svg('g', { class: 'bar-row' }, [
      title(`${e.sector_name}\n主力净流入 ${money(v)}\n涨跌幅 ${pct(e.pct)}  换手 ${e.turnover ?? '—'}%\n${e.signal || ''} · ${e.flow_tag || ''}`),
      svg('text', { x: labelW - 6, y: y + 15, class: 'label', 'text-anchor': 'end' }, [name]),
      svg('rect', { x: labelW, y: y + 3, width: w.toFixed(1), height: rowH - 7, rx: 2, class: cls }),
      svg('text', { x: labelW + w + 4, y: y + 15, class: 'value' }, [money(v)]),
      svg('text', { x: width - 2, y: y + 15, class: `pct ${e.pct > 0 ? 'up' : e.pct < 0 ? 'down' : ''}`, 'text-anchor': 'end' }, [pct(e.pct)]),
    ]);
    target.append(g);
  });
}

// note replaces a chart with one muted line of text.
export function note(target, width, text) {
  target.replaceChildren(svg('text', { x: 10, y: 24, class: 'muted' }, [text]));
  target.setAttribute('viewBox', `0 0 ${width} 40`);
  target.setAttribute('height', '40');
}

function niceTicks(lo, hi, count) {
  const span = hi - lo;
  if (!(span > 0)) return [lo];
  const raw = span / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) || raw;
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + 1e-9; v += step) out.push(v);
  return out;
}

// num writes an event's value without float32 noise: 1.58, 8.5, 10.
function num(v) {
  return String(Number((+v).toFixed(4)));
}

// eventLabel is a 除权除息 event (the values of GET /v1/api/kline/adjusted's
// events or of a category-1 corporate action) in the terminal's notation,
// per 10 shares: 送 bonus (and transfer) shares, 派 cash in yuan, 配 rights
// shares at their price: "10派6.9", "10送2派1.58", "10配3 @8.5".
export function eventLabel(v) {
  const bonus = v.bonus_per_10 || 0;
  const cash = v.cash_per_10 || 0;
  const rights = v.rights_per_10 || 0;
  let s = '10';
  if (bonus) s += `送${num(bonus)}`;
  if (cash) s += `派${num(cash)}`;
  if (rights) s += `配${num(rights)} @${num(v.rights_price || 0)}`;
  return s === '10' ? '除权除息' : s;
}

// lots formats a volume in shares (the API's unit) as the terminal shows
// volumes, a stock's and an index's alike: in lots of 100 shares (手), in
// 亿 (1e8) or 万 (1e4) of them, e.g. 3.10万手, 1.89亿手.
export function lots(shares) {
  const v = shares / 100;
  if (Math.abs(v) >= 1e8) return `${(v / 1e8).toFixed(2)}亿手`;
  if (Math.abs(v) >= 1e4) return `${(v / 1e4).toFixed(2)}万手`;
  return `${Math.round(v)}手`;
}

// candleChart draws daily bars (rows of GET /v1/api/kline with ma5 and
// ma20) as candlesticks, MA lines and volume bars into the <svg> target.
// Provisional bars (today's, still forming) are drawn hollow and dashed.
// legend is an element whose text follows the bar under the pointer.
// marks are 除权除息 events, { date, label }: each is flagged on the bar of
// its ex-date, or the first bar after it (none when no bar of rows is on or
// after it, or when it is before the first bar).
export function candleChart(target, rows, width, legend, marks = []) {
  const H = 430;
  const left = 6;
  const right = 64;
  const priceTop = 10;
  const priceH = 290;
  const volTop = priceTop + priceH + 18;
  const volH = 80;
  const axisY = volTop + volH + 16;
  const plotW = Math.max(width - left - right, 100);
  target.replaceChildren();
  target.setAttribute('viewBox', `0 0 ${width} ${H}`);
  target.setAttribute('height', String(H));
  if (rows.length === 0) {
    target.append(svg('text', { x: 10, y: 30, class: 'muted' }, ['no bars in this range']));
    return;
  }
  let lo = Infinity;
  let hi = -Infinity;
  let vmax = 0;
  for (const r of rows) {
    for (const v of [r.low, r.high, r.ma5, r.ma20]) {
      if (Number.isFinite(v)) {
        lo = Math.min(lo, v);
        hi = Math.max(hi, v);
      }
    }
    vmax = Math.max(vmax, r.volume || 0);
  }
  const pad = (hi - lo) * 0.05 || hi * 0.01 || 1;
  lo -= pad;
  hi += pad;
  const slot = plotW / rows.length;
  const bodyW = Math.max(Math.min(slot * 0.7, 14), 1);
  const X = (i) => left + slot * (i + 0.5);
  const Y = (p) => priceTop + ((hi - p) / (hi - lo)) * priceH;
  const V = (v) => (vmax > 0 ? (v / vmax) * volH : 0);

  const grid = svg('g', { class: 'gridlines' });
  for (const t of niceTicks(lo, hi, 5)) {
    const y = Y(t).toFixed(1);
    grid.append(svg('line', { x1: left, x2: left + plotW, y1: y, y2: y }));
    grid.append(svg('text', { x: left + plotW + 6, y: Number(y) + 4, class: 'axis' }, [t.toFixed(2)]));
  }
  grid.append(svg('line', { x1: left, x2: left + plotW, y1: volTop + volH, y2: volTop + volH }));
  grid.append(svg('text', { x: left + plotW + 6, y: volTop + 10, class: 'axis' }, [lots(vmax)]));
  const labelEvery = Math.max(1, Math.ceil(rows.length / Math.max(Math.floor(plotW / 90), 1)));
  const first = rows.findIndex((_, i) => X(i) >= left + 18);
  for (let i = Math.max(first, 0); i < rows.length; i += labelEvery) {
    grid.append(svg('text', { x: X(i), y: axisY, class: 'axis', 'text-anchor': 'middle' }, [rows[i].trade_date.slice(5)]));
  }
  target.append(grid);

  const candles = svg('g', { class: 'candles' });
  const volumes = svg('g', { class: 'volumes' });
  rows.forEach((r, i) => {
    const dir = r.close >= r.open ? 'up' : 'down';
    const cls = `${dir}${r.provisional ? ' provisional' : ''}`;
    const x = X(i);
    const top = Y(Math.max(r.open, r.close));
    const bodyH = Math.max(Math.abs(Y(r.open) - Y(r.close)), 1);
    candles.append(svg('g', { class: `candle ${cls}` }, [
      svg('line', { x1: x.toFixed(1), x2: x.toFixed(1), y1: Y(r.high).toFixed(1), y2: Y(r.low).toFixed(1) }),
      svg('rect', { x: (x - bodyW / 2).toFixed(1), y: top.toFixed(1), width: bodyW.toFixed(1), height: bodyH.toFixed(1) }),
    ]));
    const vh = Math.max(V(r.volume || 0), 0.5);
    volumes.append(svg('rect', {
      class: `vol ${cls}`, x: (x - bodyW / 2).toFixed(1), y: (volTop + volH - vh).toFixed(1), width: bodyW.toFixed(1), height: vh.toFixed(1),
    }));
  });
  target.append(volumes, candles);

  for (const [key, cls] of [['ma5', 'ma ma5'], ['ma20', 'ma ma20']]) {
    let d = '';
    let pen = 'M';
    rows.forEach((r, i) => {
      const v = r[key];
      if (Number.isFinite(v)) {
        d += `${pen}${X(i).toFixed(1)},${Y(v).toFixed(1)}`;
        pen = 'L';
      } else {
        pen = 'M';
      }
    });
    if (d) target.append(svg('path', { d, class: cls }));
  }

  // Ex-rights marks: a dotted line through the bar and a flag with the
  // event under the price area, drawn above the pointer overlay so that
  // the flag's tooltip shows.
  const marked = new Map(); // bar index -> its events
  const last = rows[rows.length - 1].trade_date;
  for (const m of marks) {
    if (m.date < rows[0].trade_date || m.date > last) continue;
    const i = rows.findIndex((r) => r.trade_date >= m.date);
    if (!marked.has(i)) marked.set(i, []);
    marked.get(i).push(m);
  }
  const flags = svg('g', { class: 'exmarks' });
  for (const [i, ms] of marked) {
    const x = X(i);
    const base = priceTop + priceH;
    const text = ms.map((m) => m.label).join(' ');
    const atRight = x > left + plotW - 90;
    flags.append(svg('g', { class: 'exmark', 'data-date': ms.map((m) => m.date).join(' '), 'data-bar': rows[i].trade_date }, [
      title(ms.map((m) => `除权除息 ${m.date}${m.date !== rows[i].trade_date ? ` (bar ${rows[i].trade_date})` : ''}: ${m.label}`).join('\n')),
      svg('line', { class: 'ex-line', x1: x.toFixed(1), x2: x.toFixed(1), y1: priceTop, y2: base }),
      svg('path', { class: 'ex-flag', d: `M${x.toFixed(1)},${base + 1} l4.5,8 h-9 z` }),
      svg('text', { class: 'ex-label', x: (atRight ? x - 7 : x + 7).toFixed(1), y: base + 10, 'text-anchor': atRight ? 'end' : 'start' }, [text]),
    ]));
  }

  // Pointer: a crosshair and the legend follow the bar under it.
  const cross = svg('line', { class: 'cross', y1: priceTop, y2: volTop + volH, x1: -10, x2: -10 });
  target.append(cross);
  const show = (i) => {
    const r = rows[i];
    const f = (v) => (Number.isFinite(v) ? v.toFixed(2) : '—');
    const ex = marked.has(i) ? `  除权 ${marked.get(i).map((m) => m.label).join(' ')}` : '';
    legend.textContent = `${r.trade_date}${r.provisional ? ' (forming)' : ''}  开 ${f(r.open)}  高 ${f(r.high)}  低 ${f(r.low)}  收 ${f(r.close)}  ${pct(r.pct)}  量 ${lots(r.volume || 0)}  MA5 ${f(r.ma5)}  MA20 ${f(r.ma20)}${ex}`;
  };
  const overlay = svg('rect', { class: 'overlay', x: left, y: priceTop, width: plotW, height: volTop + volH - priceTop });
  overlay.addEventListener('pointermove', (ev) => {
    const box = target.getBoundingClientRect();
    const sx = ((ev.clientX - box.left) / box.width) * width;
    const i = Math.min(rows.length - 1, Math.max(0, Math.floor((sx - left) / slot)));
    cross.setAttribute('x1', X(i).toFixed(1));
    cross.setAttribute('x2', X(i).toFixed(1));
    show(i);
  });
  overlay.addEventListener('pointerleave', () => {
    cross.setAttribute('x1', '-10');
    cross.setAttribute('x2', '-10');
    show(rows.length - 1);
  });
  target.append(overlay, flags);
  show(rows.length - 1);
}
