// The dashboard: six panels and the archive's status line fed by signed
// requests to the API, each refreshed on its own timer, three of them
// (ranking, movements, watchlist) kept current by the stream (Live, in
// api.js). Every panel reports its last outcome in data-state (idle,
// ready, error), #live the stream's state and the events applied, and
// #mode what the server serves (demo, live, degraded), which the
// end-to-end test reads.
import { ApiError, Client, Live } from './api.js';
import { barChart, candleChart, eventLabel, lots, money, note, pct } from './charts.js';
import { selfTest } from './md5.js';

const $ = (sel) => document.querySelector(sel);

// ---- login ---------------------------------------------------------------

const dialog = $('#login');
const loginForm = $('#login-form');
let loginWaiters = [];

function needLogin(reason) {
  return new Promise((resolve) => {
    loginWaiters.push(resolve);
    if (dialog.open) return; // the first reason stands (requests fail together)
    $('#login-reason').textContent = reason;
    if (!$('#login-id').value) $('#login-id').value = client.clientId;
    dialog.showModal();
    ($('#login-id').value ? $('#login-secret') : $('#login-id')).focus();
  });
}

const client = new Client(needLogin);

loginForm.addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const id = $('#login-id').value.trim();
  const secretInput = $('#login-secret');
  const secret = secretInput.value;
  secretInput.value = ''; // the secret is not kept, not even in the form
  const err = $('#login-error');
  err.hidden = true;
  $('#login-submit').disabled = true;
  try {
    await client.login(id, secret);
  } catch (e) {
    err.textContent = errorText(e);
    err.hidden = false;
    secretInput.focus();
    return;
  } finally {
    $('#login-submit').disabled = false;
  }
  dialog.close();
  showSession();
  const waiters = loginWaiters;
  loginWaiters = [];
  for (const w of waiters) w();
});

// The dialog cannot be dismissed without logging in.
dialog.addEventListener('cancel', (ev) => ev.preventDefault());

$('#logout').addEventListener('click', () => {
  client.logout();
  location.reload();
});

function showSession() {
  $('#who').textContent = client.loggedIn ? `client ${client.clientId}` : '';
  $('#logout').hidden = !client.loggedIn;
}

// ---- panels --------------------------------------------------------------

function errorText(e) {
  if (e instanceof ApiError) return `${e.status} ${e.apiMessage}${e.detail ? ` — ${e.detail}` : ''}`;
  if (e instanceof TypeError) return `server unreachable (${e.message})`;
  return String(e && e.message ? e.message : e);
}

// run loads one panel, showing its failure in the panel; it answers
// whether to wait the normal interval (success, or a refusal that asking
// again soon would not change, like an unknown code) rather than retry soon.
async function run(id, load, auto) {
  const el = document.getElementById(id);
  const err = el.querySelector('.panel-error');
  el.setAttribute('aria-busy', 'true');
  try {
    await load(auto);
    err.hidden = true;
    el.dataset.state = 'ready';
    return true;
  } catch (e) {
    err.textContent = errorText(e);
    err.hidden = false;
    el.dataset.state = 'error';
    return (e instanceof ApiError && e.status >= 400 && e.status < 500 && e.status !== 429) || (e && e.settled === true);
  } finally {
    el.removeAttribute('aria-busy');
  }
}

// every runs a panel's load now and then every okMs (a number, or a
// function answering one), or errMs after a failure; it answers a function
// that reloads at once. A serial panel never has two loads in flight: a
// reload asked for meanwhile runs when the current one is done.
function every(id, load, okMs, { errMs = 5000, serial = false } = {}) {
  let timer = 0;
  let running = false;
  let again = false;
  const tick = async (auto) => {
    clearTimeout(timer);
    if (serial && running) {
      again = true;
      return;
    }
    running = true;
    let good;
    try {
      good = auto && document.hidden ? true : await run(id, load, auto);
    } finally {
      running = false;
    }
    if (again) {
      again = false;
      tick(false);
      return;
    }
    timer = setTimeout(() => tick(true), good ? (typeof okMs === 'function' ? okMs() : okMs) : errMs);
  };
  tick(false);
  return () => tick(false);
}

function width(el, fallback) {
  return Math.floor(el.getBoundingClientRect().width) || fallback;
}

const day = (d) => (/^\d{8}$/.test(d) ? `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6)}` : d);

function clock(ms) {
  return new Date(ms).toLocaleTimeString('zh-CN', { timeZone: 'Asia/Shanghai', hour12: false });
}

// shanghaiDate is the Asia/Shanghai calendar day offsetDays from now.
function shanghaiDate(offsetDays) {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: 'Asia/Shanghai', year: 'numeric', month: '2-digit', day: '2-digit',
  }).formatToParts(new Date(Date.now() + offsetDays * 86400e3));
  const p = Object.fromEntries(parts.map((x) => [x.type, x.value]));
  return `${p.year}-${p.month}-${p.day}`;
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

// Stock names learned from the hot rank, for the K-line title.
const names = new Map();

// ---- (1) sector ranking --------------------------------------------------

// The top 10 of each list: what a ranking event of the stream carries, so
// a pushed build replaces the polled one in place.
let ranking = null;

async function loadRanking() {
  ranking = await client.get('/v1/api/boards/top50?top=10');
  drawRanking();
}

// applyRanking shows a ranking event's build unless an as new one is shown.
function applyRanking(r) {
  if (!r || !r.day) return false;
  if (ranking && (r.day < ranking.day || (r.day === ranking.day && r.updated_ms <= ranking.updated_ms))) return false;
  ranking = r;
  drawRanking();
  return true;
}

function drawRanking() {
  if (!ranking) return;
  const fam = $('#ranking-family').value;
  const inflow = (fam === 'sectors' ? ranking.sectors : ranking[fam]) || [];
  const outflow = (fam === 'sectors' ? ranking.sectors_out : ranking[`${fam}_out`]) || [];
  const scale = Math.max(0, ...[...inflow, ...outflow].map((e) => Math.abs(e.main_net ?? 0)));
  const inSvg = $('#ranking-in');
  const outSvg = $('#ranking-out');
  barChart(inSvg, inflow, scale, width(inSvg, 420));
  barChart(outSvg, outflow, scale, width(outSvg, 420));
  $('#ranking-meta').textContent = `${day(ranking.day)} · source ${ranking.source} · updated ${clock(ranking.updated_ms)}`;
}

$('#ranking-family').addEventListener('change', drawRanking);

// ---- (2) movement timeline -----------------------------------------------

// trigger names a movement as the terminal's 短线精灵 does: a change past
// the threshold is 大涨 or 大跌; a fast move is named by where it started,
// a rise from below the previous close 快速反弹 (from above it 火箭发射),
// a fall from above it 高台跳水 (from below it 加速下跌).
function trigger(m) {
  const from = (m.pct ?? 0) - (m.delta ?? 0);
  switch (m.trigger) {
    case 'pct_up': return ['大涨', 'up'];
    case 'pct_down': return ['大跌', 'down'];
    case 'surge': return [from < 0 ? '快速反弹' : '火箭发射', 'up'];
    case 'plunge': return [from > 0 ? '高台跳水' : '加速下跌', 'down'];
    default: return [m.trigger, m.direction === 'down' ? 'down' : 'up'];
  }
}
// Events are keyed by their cursor (event_ms, unique within a day): one
// polled and pushed too is shown once.
const moves = { day: '', since: 0, items: [], seen: new Set() };

function addMoves(items) {
  let added = 0;
  for (const m of items) {
    if (moves.seen.has(m.event_ms)) continue;
    moves.seen.add(m.event_ms);
    moves.items.push(m);
    moves.since = Math.max(moves.since, m.event_ms);
    added++;
  }
  if (moves.items.length > 300) {
    moves.items = moves.items.slice(-300);
    moves.seen = new Set(moves.items.map((m) => m.event_ms));
  }
  return added;
}

async function loadMovements() {
  const q = moves.since ? `?since=${moves.since}` : '';
  const { data } = await client.get(`/v1/api/market/movements/events${q}`);
  if (data.day !== moves.day) {
    moves.day = data.day;
    moves.items = [];
    moves.seen = new Set();
  }
  addMoves(data.items);
  moves.since = Math.max(moves.since, data.next_since || 0);
  drawMovements();
}

// applyMovement prepends a movement event of the stream; one of another
// day than the timeline's has the timeline fetched afresh instead.
function applyMovement(m) {
  if (!m || typeof m.event_ms !== 'number') return false;
  if ((m.event_ts || '').slice(0, 10).replaceAll('-', '') !== moves.day) {
    if (!moves.seen.has(m.event_ms)) reloadFed(['movement']);
    return false;
  }
  if (!addMoves([m])) return false;
  drawMovements();
  return true;
}

function drawMovements() {
  const list = $('#movements-list');
  list.replaceChildren();
  $('#movements-meta').textContent = `${day(moves.day)} · ${moves.items.length} events`;
  if (moves.items.length === 0) {
    list.append(el('li', 'muted', `No movements on ${day(moves.day)} yet.`));
    return;
  }
  for (const m of [...moves.items].reverse()) {
    const [label, dir] = trigger(m);
    const li = el('li', 'move');
    li.dataset.ms = String(m.event_ms);
    li.title = `${m.board_code} ${m.board_name} · ${m.trigger} · source ${m.source}`;
    li.append(
      el('time', '', (m.event_ts || '').slice(11)),
      el('span', 'name', m.board_name),
      el('span', 'tag', m.type === 'concept' ? '概念' : '行业'),
      el('span', `trig ${dir}`, label + (m.delta !== null && m.delta !== undefined ? ` ${pct(m.delta)}` : '')),
      el('span', `num ${m.pct > 0 ? 'up' : m.pct < 0 ? 'down' : ''}`, pct(m.pct)),
      el('span', 'num', money(m.main_net)),
    );
    list.append(li);
  }
}

// ---- (3) K-line ----------------------------------------------------------

// The 复权 switch: none is GET /v1/api/kline as traded, qfq and hfq are GET
// /v1/api/kline/adjusted with that mode. The choice holds across codes and
// refreshes, not across a reload (no panel choice does).
const ADJ = { none: '不复权', qfq: '前复权', hfq: '后复权' };

// marks are the 除权除息 events drawn on the chart: the adjusted answer's
// events, or for unadjusted bars the code's category-1 corporate actions.
const kline = { code: '600519.SH', mode: 'none', data: null, range: null, marks: [], actions: null };

// adjLabel says which prices the chart shows.
function adjLabel(mode, d) {
  if (mode === 'none' || !d) return ADJ[mode];
  if (d.anchor) return `${ADJ[d.adj]} · 锚定 ${d.anchor}`;
  return `${ADJ[d.adj]} · 无上市日，全部事件`;
}

// unadjustedMarks are the price events (category 1) of code between start
// and end, cached per request; [] with a note when the server has none to
// give (a 503 without the terminal's gbbq): the bars still show.
async function unadjustedMarks(code, start, end) {
  const key = `${code}|${start}|${end}`;
  if (kline.actions?.key === key) return kline.actions;
  let got;
  try {
    const { data } = await client.get(`/v1/api/corporate_actions?${new URLSearchParams({ code, start, end })}`);
    const marks = data.items.filter((a) => a.category === 1).map((a) => ({ date: a.date, label: eventLabel(a.values) }));
    got = { key, marks, note: '' };
  } catch (e) {
    got = { key: '', marks: [], note: ` · ex-dates unavailable (${e instanceof ApiError ? e.status : 'error'})` };
  }
  return got;
}

async function loadKline(auto) {
  // Timer ticks only refetch while today's bar is still forming, and ask
  // again for ex-dates the server could not give (before its first import).
  if (auto && kline.data && !kline.data.provisional_rows) {
    const { code, mode, actions, range } = kline;
    if (mode !== 'none' || !actions || actions.key) return;
    const again = await unadjustedMarks(code, range.start, range.end);
    if (again.key && code === kline.code && mode === kline.mode && kline.data) {
      kline.actions = again;
      kline.marks = again.marks;
      drawKline();
    }
    return;
  }
  const { code, mode } = kline;
  const start = shanghaiDate(-183);
  const end = shanghaiDate(0);
  const q = new URLSearchParams({ code, freq: 'D', start, end, indicators: 'ma5,ma20' });
  if (mode !== 'none') q.set('mode', mode);
  $('#kline-title').textContent = `${code} ${names.get(code) || ''}`;
  $('#kline-adj').textContent = adjLabel(mode, kline.data);
  const current = () => code === kline.code && mode === kline.mode; // not asked for another meanwhile
  try {
    const [{ data }, actions] = await Promise.all([
      client.get(`${mode === 'none' ? '/v1/api/kline' : '/v1/api/kline/adjusted'}?${q}`),
      mode === 'none' ? unadjustedMarks(code, start, end) : null,
    ]);
    if (!current()) return;
    kline.data = data;
    kline.range = { start, end };
    if (actions) {
      kline.actions = actions;
      kline.marks = actions.marks;
    } else {
      kline.marks = (data.events || []).map((ev) => ({ date: ev.date, label: eventLabel(ev) }));
    }
  } catch (e) {
    if (current()) {
      kline.data = null;
      kline.marks = [];
      $('#kline-chart').replaceChildren();
      $('#kline-legend').textContent = '';
      $('#kline-meta').textContent = '';
      if (mode !== 'none') {
        const chart = $('#kline-chart');
        note(chart, width(chart, 900), `No ${ADJ[mode]} bars (see above): 不复权 shows the prices as traded.`);
      }
    }
    // Adjusted bars refused for want of corporate actions stay refused
    // until the server is set up: no quick retry (the switch still works).
    if (mode !== 'none' && e instanceof ApiError && e.status === 503) e.settled = true;
    throw e;
  }
  drawKline();
}

function drawKline() {
  const d = kline.data;
  if (!d) return;
  const chart = $('#kline-chart');
  candleChart(chart, d.rows, width(chart, 900), $('#kline-legend'), kline.marks);
  const shown = d.adj in ADJ ? d.adj : 'none'; // /v1/api/kline says adj: 'none'
  $('#kline').dataset.adj = shown;
  $('#kline-title').textContent = `${d.code} ${names.get(d.code) || ''}`;
  $('#kline-adj').textContent = adjLabel(shown, d);
  const flags = chart.querySelectorAll('g.exmark').length;
  $('#kline-meta').textContent = `${d.count} daily bars · final through ${d.final_through || '—'}` +
    (d.provisional_rows ? ` · ${d.provisional_rows} forming` : '') + ` · source ${d.source}` +
    (shown !== 'none' ? ` · ${d.adj_method}, actions ${d.actions_source || 'none'}` : kline.actions?.note || '') +
    (flags ? ` · ${flags} ex-date${flags > 1 ? 's' : ''}` : '');
}

let reloadKline = () => {};

// showKline asks for the panel's current code and mode afresh: no stale
// chart under the new title or label while the new one loads.
function showKline() {
  kline.data = null;
  kline.marks = [];
  $('#kline-code').value = kline.code;
  for (const r of document.querySelectorAll('#kline-adj-switch input')) r.checked = r.value === kline.mode;
  $('#kline').dataset.state = 'loading';
  $('#kline-chart').replaceChildren();
  $('#kline-legend').textContent = '';
  $('#kline-meta').textContent = '';
  $('#kline-adj').textContent = ADJ[kline.mode];
  reloadKline();
}

function showCode(code) {
  kline.code = code;
  showKline();
}

$('#kline-form').addEventListener('submit', (ev) => {
  ev.preventDefault();
  const code = $('#kline-code').value.trim().toUpperCase();
  if (code) showCode(code);
});

$('#kline-adj-switch').addEventListener('change', (ev) => {
  const mode = ev.target.value;
  if (!(mode in ADJ) || mode === kline.mode) return;
  kline.mode = mode;
  showKline();
});

// ---- (5) watchlist ---------------------------------------------------------

// The watched codes: GET /v1/api/quotes once, then each quote event of the
// stream (codes= these). Editable; the choice holds until a reload.
const watch = { codes: ['600519.SH', '000001.SZ', '300750.SZ', '000001.SH'], rows: new Map() };
const MAX_WATCH = 20;

const fixed = (v, d = 2) => (v === null || v === undefined ? '—' : Number(v).toFixed(d));
const signed = (v) => (v === null || v === undefined ? '—' : `${v > 0 ? '+' : ''}${Number(v).toFixed(2)}`);
const dir = (v) => (v > 0 ? 'up' : v < 0 ? 'down' : '');
const STATUS = { trading: '交易', suspended: '停牌', auction: '集合竞价', closed: '休市' };

// loadWatchlist fetches the watched codes' quotes, or those of an edit
// (codes): a timer's load answered after an edit changed the codes is
// dropped.
async function loadWatchlist(auto, codes = watch.codes) {
  const edit = codes !== watch.codes;
  const { data } = await client.get(`/v1/api/quotes?codes=${codes.map(encodeURIComponent).join(',')}`);
  if (!edit && codes !== watch.codes) return;
  watch.codes = codes;
  $('#watch-codes').value = codes.join(',');
  const body = $('#watch-rows');
  body.replaceChildren();
  watch.rows = new Map();
  for (const q of data.quotes) {
    const tr = document.createElement('tr');
    tr.dataset.code = q.code;
    const stock = el('button', 'stock');
    stock.type = 'button';
    stock.title = `Show the K-line of ${q.code}`;
    stock.append(el('span', 'name', q.name), el('small', '', q.code));
    stock.addEventListener('click', () => showCode(q.code));
    const cell = el('td');
    cell.append(stock);
    tr.append(cell);
    for (const k of ['last', 'change', 'pct', 'volume', 'amount', 'status', 'as_of']) {
      tr.append(el('td', `w-${k}${k === 'status' || k === 'as_of' ? '' : ' num'}`));
    }
    body.append(tr);
    watch.rows.set(q.code, tr);
    if (q.type === 'stock') names.set(q.code, q.name);
    drawQuote(q);
  }
  $('#watch-meta').textContent = `${data.count} codes`;
}

function drawQuote(q) {
  const tr = watch.rows.get(q.code);
  if (!tr) return false;
  const cell = (k) => tr.querySelector(`.w-${k}`);
  const d = dir(q.change);
  cell('last').textContent = fixed(q.last);
  cell('last').className = `w-last num ${d}`;
  cell('change').textContent = signed(q.change);
  cell('change').className = `w-change num ${d}`;
  cell('pct').textContent = q.pct === null || q.pct === undefined ? '—' : pct(q.pct);
  cell('pct').className = `w-pct num ${d}`;
  cell('volume').textContent = q.volume === null || q.volume === undefined ? '—' : lots(q.volume);
  cell('amount').textContent = q.amount === null || q.amount === undefined ? '—' : money(q.amount);
  cell('status').textContent = STATUS[q.status] || q.status || '';
  cell('as_of').textContent = (q.as_of || '').slice(11);
  tr.title = `${q.code} ${q.name} · as of ${q.as_of} · source ${q.source}`;
  return true;
}

// applyQuote updates a watched code's row from a quote event, briefly
// highlighting it.
function applyQuote(q, id) {
  if (!q || !drawQuote(q)) return false;
  const tr = watch.rows.get(q.code);
  tr.dataset.id = id;
  tr.classList.remove('flash');
  void tr.offsetWidth; // restart the highlight
  tr.classList.add('flash');
  return true;
}

$('#watch-form').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const codes = [...new Set($('#watch-codes').value.toUpperCase().split(/[\s,，]+/).filter(Boolean))].slice(0, MAX_WATCH);
  if (codes.length === 0) return;
  // The new codes are asked for first: one the server refuses (an unknown
  // code: 404 naming it) leaves the list and the stream as they were.
  if (await run('watchlist', (auto) => loadWatchlist(auto, codes)) && watch.codes === codes) live.start(streamQuery());
});

// ---- (4) hot rank --------------------------------------------------------

async function loadHotRank() {
  const { data } = await client.get('/v1/api/hot_rank_list?top=20');
  const body = $('#hotrank-rows');
  body.replaceChildren();
  for (const it of data.items) {
    names.set(it.stock_code, it.stock_name);
    const tr = document.createElement('tr');
    const stock = el('button', 'stock');
    stock.type = 'button';
    stock.title = `Show the K-line of ${it.stock_code}`;
    stock.append(el('span', 'name', it.stock_name), el('small', '', it.stock_code));
    stock.addEventListener('click', () => showCode(it.stock_code));
    const heat = el('span', 'heat');
    const fill = el('span', 'fill');
    fill.style.width = `${Math.min(100, (it.heat / 10000) * 100).toFixed(1)}%`;
    heat.append(fill);
    const wrap = el('div', 'heat-wrap');
    wrap.append(heat, el('span', 'num', String(it.heat)));
    const heatCell = el('td');
    heatCell.append(wrap);
    const stockCell = el('td');
    stockCell.append(stock);
    tr.append(el('td', 'rank', String(it.rank)), stockCell, heatCell);
    body.append(tr);
  }
  $('#hotrank-meta').textContent = `${data.date} · ${data.total} ranked`;
  if (kline.data) drawKline(); // the title may now have a name
}

// ---- (6) the minute archive's status line -----------------------------------

// GET /v1/api/archive/status, then GET /v1/api/quality of its latest day.
// A client without scope market (403) or a server without the archive
// (503) gets a short note instead: the page works without them.
const count = (v) => (Number.isFinite(v) ? v.toLocaleString('en-US') : '—');
const plural = (n, word) => `${count(n)} ${word}${n === 1 ? '' : 's'}`;
const total = (days, k) => days.reduce((a, d) => a + (Number.isFinite(d[k]) ? d[k] : 0), 0);

function archiveNote(e) {
  if (!(e instanceof ApiError)) return '';
  if (e.status === 403) return 'not shown: this client lacks scope market';
  if (e.status === 503) return `off: ${e.detail || e.apiMessage}`;
  return '';
}

async function loadArchive() {
  const line = $('#archive-line');
  const quality = $('#quality-line');
  let st;
  try {
    ({ data: st } = await client.get('/v1/api/archive/status'));
  } catch (e) {
    const why = archiveNote(e);
    if (!why) throw e;
    line.textContent = why;
    quality.textContent = '';
    return;
  }
  const days = st.days || [];
  const pending = (st.pending || []).length;
  const owed = pending ? `${plural(pending, 'day')} pending` : 'up to date';
  if (days.length === 0) {
    line.textContent = `nothing archived yet · ${owed}`;
    quality.textContent = '';
    return;
  }
  const first = days[0];
  const last = days[days.length - 1];
  const perBar = Number.isFinite(st.bytes_per_bar) ? st.bytes_per_bar.toFixed(2) : '—';
  line.textContent = `${plural(days.length, 'day')} ${first.date}..${last.date} · ${count(st.bars)} bars · ${perBar} B/bar · ` +
    `${plural(total(days, 'gaps'), 'gap')} · ${count(total(days, 'flagged'))} flagged · ${owed}`;
  let q;
  try {
    ({ data: q } = await client.get(`/v1/api/quality?date=${encodeURIComponent(last.date)}`));
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    quality.textContent = `${last.date} quality unavailable (${e.status} ${e.apiMessage})`;
    return;
  }
  const rated = (q.fields || []).filter((f) => Number.isFinite(f.rate));
  const worst = rated.reduce((w, f) => (!w || f.rate > w.rate ? f : w), null);
  let agree = 'nothing compared';
  if (worst && worst.rate > 0) agree = `worst ${worst.field} ${(worst.rate * 100).toFixed(2)}% (${count(worst.disagree)}/${count(worst.compared)})`;
  else if (worst) agree = `no field disagrees (${count(q.compared)} compared)`;
  quality.textContent = `${q.date}: ${count(q.archived)}/${count(q.universe)} archived · ${count(q.flagged)} flagged · ` +
    `${count(q.missing)} missing · ${agree}`;
}

// ---- (7) the 连板 ladder ----------------------------------------------------

// GET /v1/api/limit_ladder of the day shown (the latest by default), then
// that day's broken and limit-down pools for their counts (the ladder's
// total is the up pool's). A client without scope market (403) and a day
// without data (404) get a note, not an error. ‹ prev steps to the
// ladder's prev_date; the date box picks any day.
const ladder = { date: '', latest: '', data: null };

function ladderTools() {
  $('#ladder-prev').disabled = !ladder.data;
  $('#ladder-latest').disabled = ladder.date === '';
}

function clearLadder() {
  ladder.data = null;
  $('#ladder').dataset.final = '';
  $('#ladder-prov').hidden = true;
  $('#ladder-meta').textContent = '';
  $('#ladder-counts').replaceChildren();
  $('#ladder-rungs').replaceChildren();
  ladderTools();
}

function ladderNote(text, title = '') {
  clearLadder();
  $('#ladder-rungs').append(el('li', 'muted', text));
  $('#ladder-rungs').title = title;
}

// rungs are the day's levels and the day before's rungs none was promoted
// from (an empty rung with its 0/N), the highest first.
function rungs(d) {
  const out = (d.levels || []).map((l) => ({ boards: l.boards, yesterday: l.yesterday, promoted: l.promoted, rate: l.promotion_rate, items: l.items || [] }));
  for (const p of d.promotion || []) {
    if (!out.some((r) => r.boards === p.to_boards)) out.push({ boards: p.to_boards, yesterday: p.yesterday, promoted: p.promoted, rate: p.rate, items: [] });
  }
  return out.sort((a, b) => b.boards - a.boards);
}

function promoText(r) {
  if (r.boards <= 1) return 'first board 首板';
  const rate = Number.isFinite(r.rate) ? `${(r.rate * 100).toFixed(1)}%` : '—';
  return `${count(r.promoted)}/${count(r.yesterday)} 晋级 ${rate}`;
}

async function loadLadder() {
  const asked = ladder.date;
  let d, broken, down;
  try {
    ({ data: d } = await client.get(`/v1/api/limit_ladder${asked ? `?date=${encodeURIComponent(asked)}` : ''}`));
    const pool = (kind) => client.get(`/v1/api/limit_pool?date=${encodeURIComponent(d.date)}&kind=${kind}`);
    [{ data: broken }, { data: down }] = await Promise.all([pool('broken'), pool('down')]);
  } catch (e) {
    if (asked !== ladder.date) return;
    if (e instanceof ApiError && e.status === 403) return ladderNote('not shown: this client lacks scope market');
    if (e instanceof ApiError && e.status === 404) return ladderNote(`no data for ${asked || 'the latest trading day'}`, e.detail || '');
    throw e;
  }
  if (asked !== ladder.date) return; // another day was asked for meanwhile
  clearLadder();
  ladder.data = d;
  if (!asked) ladder.latest = d.date;
  const sec = $('#ladder');
  sec.dataset.final = String(d.final === true);
  $('#ladder-prov').hidden = d.final !== false;
  const input = $('#ladder-date');
  input.value = d.date;
  if (ladder.latest) input.max = ladder.latest;
  $('#ladder-meta').textContent = `${d.date}${d.final === false && d.as_of ? ` as of ${d.as_of.slice(11)}` : ''} · ` +
    `promotion from ${d.prev_date} · source ${d.source}`;
  for (const [kind, label, n] of [['up', 'up 涨停', d.total], ['broken', 'broken 炸板', broken.total], ['down', 'down 跌停', down.total]]) {
    const c = el('span', `count ${kind}`, `${label} ${count(n)}`);
    c.dataset.kind = kind;
    $('#ladder-counts').append(c);
  }
  const list = $('#ladder-rungs');
  list.title = '';
  const all = rungs(d);
  if (all.length === 0) list.append(el('li', 'muted', `No limit-up on ${d.date}.`));
  for (const r of all) {
    const li = el('li', 'rung');
    li.dataset.boards = String(r.boards);
    const head = el('div', 'rung-head');
    head.append(el('span', 'boards', `${r.boards}板`), el('span', 'promo', promoText(r)), el('span', 'n', plural(r.items.length, 'stock')));
    const stocks = el('div', 'stocks');
    for (const it of r.items) {
      const stock = el('button', 'stock');
      stock.type = 'button';
      stock.dataset.code = it.code;
      stock.title = `Show the K-line of ${it.code}`;
      stock.append(el('span', 'name', it.name), el('small', '', it.code));
      stock.addEventListener('click', () => {
        names.set(it.code, it.name);
        showCode(it.code);
        $('#kline').scrollIntoView({ block: 'start' });
      });
      stocks.append(stock);
    }
    if (r.items.length === 0) stocks.append(el('span', 'muted', 'none promoted 无晋级'));
    li.append(head, stocks);
    list.append(li);
  }
  ladderTools();
}

let reloadLadder = () => {};

function showLadder(date) {
  ladder.date = date;
  clearLadder();
  $('#ladder').dataset.state = 'loading';
  reloadLadder();
}

$('#ladder-prev').addEventListener('click', () => {
  if (ladder.data) showLadder(ladder.data.prev_date);
});
$('#ladder-latest').addEventListener('click', () => showLadder(''));
$('#ladder-date').addEventListener('change', (ev) => {
  if (ev.target.value && ev.target.value !== ladder.date) showLadder(ev.target.value);
});

// ---- live: the stream -----------------------------------------------------

// Polling stays as a fallback: the ranking and the timeline ask again every
// 5 minutes while the stream is open, at their usual pace while it is not.
const FALLBACK_MS = 300000;
const liveEl = $('#live');
let liveState = 'off';
let applied = 0;
const fedEvery = (ms) => () => (liveState === 'open' ? FALLBACK_MS : ms);

const reloaders = { ranking: () => {}, movement: () => {}, quote: () => {} };
let loopsStarted = false;

// reloadFed refetches the panels of the topics named (all three by default)
// the normal way: after a resync, or a stream that could not resume.
function reloadFed(topics = ['ranking', 'movement', 'quote']) {
  if (!loopsStarted) return; // their first load is still to come
  for (const t of topics) reloaders[t]?.();
}

function streamQuery() {
  const q = new URLSearchParams({ topics: watch.codes.length ? 'ranking,movements,quotes' : 'ranking,movements' });
  if (watch.codes.length) q.set('codes', watch.codes.join(','));
  return q.toString().replaceAll('%2C', ',');
}

function showLive(state, detail = {}) {
  liveState = state;
  liveEl.dataset.stream = state;
  liveEl.className = `live ${state}`;
  liveEl.textContent = {
    connecting: '○ connecting…',
    open: '● stream 推送',
    retrying: `○ reconnecting in ${Math.round((detail.delay || 0) / 1000)} s${detail.why ? ` (${detail.why})` : ''}`,
  }[state] || '';
  liveEl.title = state === 'open' ? 'The ranking, movements and watchlist update as the server pushes them' : 'Polling until the stream is back';
}

// fed marks a panel updated by a stream event.
function fed(id, evId) {
  const panel = document.getElementById(id);
  panel.dataset.state = 'ready';
  panel.dataset.liveId = evId;
  panel.querySelector('.panel-error').hidden = true;
  applied++;
  liveEl.dataset.events = String(applied);
  liveEl.dataset.lastId = evId;
}

let firstOpen = () => {};
const streamReady = new Promise((resolve) => { firstOpen = resolve; });

const live = new Live(client, {
  onState(state, detail) {
    const was = liveState;
    showLive(state, detail);
    if (state === 'retrying') {
      firstOpen(); // poll meanwhile
      // The stream was lost: poll at the usual pace until it is back.
      if (was === 'open') reloadFed();
    }
  },
  onEvent({ id, event, data }) {
    switch (event) {
      case 'open':
        // Subscribed first, then the panels fetched: nothing falls between.
        // A stream that could not resume has the panels fetched again.
        if (loopsStarted && !data.resumed) reloadFed();
        firstOpen();
        break;
      case 'ranking':
        if (applyRanking(data)) fed('ranking', id);
        break;
      case 'movement':
        if (applyMovement(data)) fed('movements', id);
        break;
      case 'quote':
        if (applyQuote(data, id)) fed('watchlist', id);
        break;
      case 'resync':
        reloadFed(Array.isArray(data.topics) ? data.topics : undefined);
        break;
      default:
    }
  },
});

// ---- the server's mode, in the header ---------------------------------------

// GET /v1/api/health/sources (public, so it shows before the login) says
// what the server serves: the demo market, or live sources, degraded when
// one of them fails (its breaker not closed, or its last call failed),
// named with its error in the title; /readyz adds "starting up" while a
// start-up job has not run.
const modeEl = $('#mode');

function showMode(mode, text, title) {
  modeEl.dataset.mode = mode;
  modeEl.className = `mode ${mode}`;
  modeEl.textContent = text;
  modeEl.title = title;
}

async function loadMode() {
  try {
    const res = await fetch('/v1/api/health/sources', { headers: { Accept: 'application/json' } });
    const d = (await res.json()).data || {};
    const ready = await fetch('/readyz').then((r) => r.ok, () => true);
    const starting = ready ? '' : ' · 启动中 starting up';
    const sources = d.sources || [];
    const failing = sources.filter((s) => (s.breaker && s.breaker !== 'closed') || s.consecutive_failures > 0);
    if (d.default === 'demo') {
      showMode('demo', `演示 demo${starting}`, 'The built-in demo market: synthetic prices, offline; nothing shown is live');
    } else if (failing.length) {
      showMode('degraded', `降级 degraded · ${failing.map((s) => s.source).join(', ')}${starting}`,
        failing.map((s) => `${s.source}: ${s.last_error || 'failing'} (breaker ${s.breaker}, ${s.consecutive_failures} failures in a row)`).join('\n'));
    } else {
      showMode('live', `实时 live · ${d.default}${starting}`, `sources: ${sources.map((s) => `${s.source} ok`).join(', ') || 'none asked yet'}`);
    }
  } catch (e) {
    showMode('unreachable', '○ server unreachable', errorText(e));
  }
  setTimeout(loadMode, 30000);
}

// ---- start ---------------------------------------------------------------

function start() {
  const failed = selfTest();
  document.body.dataset.md5 = failed.length ? 'fail' : 'ok';
  if (failed.length) {
    const b = $('#banner');
    b.textContent = `MD5 self-test failed for ${failed.length} RFC 1321 vector(s): requests cannot be signed.`;
    b.hidden = false;
    return;
  }
  showSession();
  loadMode();
  reloadKline = every('kline', loadKline, 60000);
  every('hotrank', loadHotRank, 300000);
  every('archive', loadArchive, 300000);
  // The ladder of a day in session moves with the quotes: every minute
  // while provisional, every 5 minutes otherwise (a new day may appear).
  reloadLadder = every('ladder', loadLadder, () => (ladder.data?.final === false ? 60000 : 300000), { serial: true });
  live.start(streamQuery());
  // The stream-fed panels load once the stream is open (or has failed, or
  // after 5 s), so no change falls between their first load and the
  // stream; then the stream keeps them current.
  Promise.race([streamReady, new Promise((r) => setTimeout(r, 5000))]).then(() => {
    loopsStarted = true;
    reloaders.ranking = every('ranking', loadRanking, fedEvery(60000), { serial: true });
    reloaders.movement = every('movements', loadMovements, fedEvery(30000), { serial: true });
    // The watchlist keeps its minute: the server refreshes its quote
    // snapshot (and pushes quote events) only when someone asks for quotes,
    // and an index's quote is never pushed.
    reloaders.quote = every('watchlist', loadWatchlist, 60000, { serial: true });
  });

  let resize = 0;
  window.addEventListener('resize', () => {
    clearTimeout(resize);
    resize = setTimeout(() => {
      drawRanking();
      drawKline();
    }, 150);
  });
}

window.addEventListener('unhandledrejection', (ev) => {
  const b = $('#banner');
  b.textContent = `Unexpected error: ${errorText(ev.reason)}`;
  b.hidden = false;
});

start();
