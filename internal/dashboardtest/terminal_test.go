package dashboardtest

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestDashboardAsTheTerminalShowsIt checks the page against what a trader
// reads in the terminal, on a laptop's 1440x900 screen: the K-line and
// the movements are in view without scrolling; the header says what the
// server serves (demo here; live, and degraded naming the failing source,
// from stubbed health answers); the movement timeline names its triggers
// as the terminal's 短线精灵 does (大涨, 大跌, 火箭发射, 快速反弹, 高台跳水,
// 加速下跌); and volumes are in lots (手), with 万 and 亿, an index's too.
func TestDashboardAsTheTerminalShowsIt(t *testing.T) {
	s := newSession(t)
	ctx, srv, b, artifacts, fail := s.ctx, s.srv, s.b, s.artifacts, s.fail
	p, err := b.newPage(ctx, 1440, 900)
	if err != nil {
		fail("open a 1440x900 page: %v", err)
	}
	if err := p.addScript(ctx, stubTriggers); err != nil {
		fail("stub the timeline: %v", err)
	}
	if err := p.navigate(ctx, srv.base+"/"); err != nil {
		fail("%v", err)
	}
	login(t, ctx, p, fail, "")
	waitForPanels(t, ctx, p, fail, func(s pageState) bool { return s.Candles > 0 && s.WatchRows == 4 })

	// In view: both panels inside the viewport, the page not scrolled.
	var boxes map[string]struct{ Top, Bottom, Left, Right, ScrollY, Width, Height float64 }
	err = p.eval(ctx, `(() => {
		const out = {};
		for (const id of ['kline', 'movements']) {
			const r = document.getElementById(id).getBoundingClientRect();
			out[id] = { top: r.top, bottom: r.bottom, left: r.left, right: r.right, scrollY: window.scrollY,
				width: window.innerWidth, height: window.innerHeight };
		}
		return out;
	})()`, &boxes)
	if err != nil {
		fail("read the panels' boxes: %v", err)
	}
	for id, r := range boxes {
		if r.Width != 1440 || r.Height != 900 || r.ScrollY != 0 {
			fail("the page is %vx%v scrolled to %v, want 1440x900 at the top", r.Width, r.Height, r.ScrollY)
		}
		if r.Top < 0 || r.Left < 0 || r.Bottom > r.Height || r.Right > r.Width {
			fail("#%s spans %v..%v x %v..%v: not inside the 1440x900 view without scrolling", id, r.Left, r.Right, r.Top, r.Bottom)
		}
	}

	// The header's mode: the demo market, said as such.
	mode := waitMode(t, ctx, p, fail, "demo")
	if !strings.Contains(mode.Text, "演示") || !strings.Contains(mode.Text, "demo") {
		fail("header mode %q on the demo market, want it to say 演示 demo", mode.Text)
	}

	// The triggers as the terminal names them.
	var rows []string
	if err := p.eval(ctx, `[...document.querySelectorAll('#movements-list li .trig')].map((e) => e.textContent)`, &rows); err != nil {
		fail("read the timeline: %v", err)
	}
	want := []string{"加速下跌 -1.10%", "高台跳水 -1.30%", "快速反弹 +1.20%", "火箭发射 +1.50%", "大跌", "大涨"}
	if strings.Join(rows, "|") != strings.Join(want, "|") {
		fail("timeline triggers %q, want newest first %q", rows, want)
	}

	checkVolumes(t, ctx, p, srv, fail)
	if _, err := p.screenshot(ctx, filepath.Join(artifacts, "dashboard-1440x900.png")); err != nil {
		fail("screenshot: %v", err)
	}

	// Live and degraded, from stubbed health answers: the status needs
	// no login (/v1/api/health/sources is public).
	for _, c := range []struct {
		mode, sources, text, title, not string
	}{
		{"live", `[{source:'push2',breaker:'closed',consecutive_failures:0},{source:'akshare',breaker:'closed',consecutive_failures:0}]`,
			"live", "push2 ok", "degraded"},
		{"degraded", `[{source:'push2',breaker:'closed',consecutive_failures:0},{source:'akshare',breaker:'open',consecutive_failures:5,last_error:'akshare: timeout after 8s'}]`,
			"akshare", "timeout after 8s", "push2"},
	} {
		q, err := b.newPage(ctx, 1440, 900)
		if err != nil {
			fail("open a page: %v", err)
		}
		if err := q.addScript(ctx, fmt.Sprintf(stubHealth, c.sources)); err != nil {
			fail("stub the health answer: %v", err)
		}
		if err := q.navigate(ctx, srv.base+"/"); err != nil {
			fail("%v", err)
		}
		got := waitMode(t, ctx, q, fail, c.mode)
		if !strings.Contains(got.Text, c.text) || !strings.Contains(got.Title, c.title) || strings.Contains(got.Text, c.not) {
			fail("header %q (title %q) for %s sources, want %q in it, %q in its title and no %q", got.Text, got.Title, c.mode, c.text, c.title, c.not)
		}
		t.Logf("%s: header %q (%s)", c.mode, got.Text, got.Title)
	}
}

// stubTriggers answers the movement timeline with one event of each
// terminal name: the speed triggers named by where the move started (a
// rise from below the previous close is a rebound, a fall from above it a
// dive from a height).
const stubTriggers = `(() => {
	const real = window.fetch;
	window.fetch = (url, init) => {
		if (!String(url).startsWith('/v1/api/market/movements/events')) return real(url, init);
		const ev = (id, name, trigger, direction, pct, delta, ts) => ({
			id, board_code: 'BK' + id, board_name: name, type: 'industry', source: 'demo', trigger, direction,
			pct, main_net: 1e8 * Math.sign(pct), delta, event_ts: '2026-11-23 ' + ts, event_ms: id,
		});
		const items = [
			ev(1, '半导体', 'pct_up', 'up', 2.1, null, '09:41:00'),
			ev(2, '银行', 'pct_down', 'down', -2.2, null, '09:50:00'),
			ev(3, '光伏设备', 'surge', 'up', 1.7, 1.5, '10:01:00'),
			ev(4, '证券', 'surge', 'up', 0.4, 1.2, '10:10:00'),
			ev(5, '煤炭行业', 'plunge', 'down', -0.2, -1.3, '10:20:00'),
			ev(6, '电池', 'plunge', 'down', -1.4, -1.1, '10:30:00'),
		];
		const body = JSON.stringify({ code: 1, message: 'OK', data: { day: '20261123', items, next_since: 6 } });
		return Promise.resolve(new Response(body, { status: 200, headers: { 'Content-Type': 'application/json' } }));
	};
})()`

// stubHealth answers /v1/api/health/sources as a live server whose
// sources are %s.
const stubHealth = `(() => {
	const real = window.fetch;
	window.fetch = (url, init) => {
		if (!String(url).startsWith('/v1/api/health/sources')) return real(url, init);
		const data = { default: 'auto', phase: 'trading', sources: %s, jobs: [] };
		const body = JSON.stringify({ code: 1, message: 'OK', data });
		return Promise.resolve(new Response(body, { status: 200, headers: { 'Content-Type': 'application/json' } }));
	};
})()`

type modeView struct {
	Mode, Text, Title string
}

// waitMode waits until the header's mode is want.
func waitMode(t *testing.T, ctx context.Context, p *page, fail func(string, ...any), want string) modeView {
	t.Helper()
	var v modeView
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		err := p.eval(ctx, `(() => { const e = document.querySelector('#mode');
			return e ? { mode: e.dataset.mode || '', text: e.textContent, title: e.title } : { mode: '', text: '', title: '' }; })()`, &v)
		if err == nil && v.Mode == want {
			return v
		}
		if time.Now().After(deadline) {
			fail("the header's mode is %q (%q), want %s (%v)", v.Mode, v.Text, want, err)
		}
	}
}

var lotsText = regexp.MustCompile(`^(\d+(?:\.\d+)?)(亿|万)?手$`)

// checkVolumes compares the watchlist's volumes with the API's quotes: in
// lots, 亿 from 10^8 lots and 万 from 10^4, to the shown digits; and the
// K-line's legend in lots too.
func checkVolumes(t *testing.T, ctx context.Context, p *page, srv *server, fail func(string, ...any)) {
	t.Helper()
	api := &apiClient{base: srv.base, token: srv.token(t)}
	for try := 0; ; try++ {
		var shown []struct{ Code, Volume, AsOf string }
		err := p.eval(ctx, `[...document.querySelectorAll('#watch-rows tr')].map((tr) => ({
			code: tr.dataset.code, volume: tr.querySelector('.w-volume').textContent, asOf: tr.querySelector('.w-as_of').textContent }))`, &shown)
		if err != nil || len(shown) == 0 {
			fail("read the watchlist: %v", err)
		}
		codes := make([]string, len(shown))
		for i, r := range shown {
			codes[i] = r.Code
		}
		var answer struct {
			Quotes []struct {
				Code   string  `json:"code"`
				Type   string  `json:"type"`
				Volume float64 `json:"volume"`
				AsOf   string  `json:"as_of"`
			} `json:"quotes"`
		}
		api.get(t, fail, "/v1/api/quotes?codes="+strings.Join(codes, ","), &answer)
		stale, index := false, false
		for i, q := range answer.Quotes {
			r := shown[i]
			if r.Code != q.Code {
				fail("watchlist row %d is %s, the quotes' %s", i, r.Code, q.Code)
			}
			if !strings.HasSuffix(q.AsOf, r.AsOf) {
				stale = true // the page has not caught up with a new minute
				continue
			}
			m := lotsText.FindStringSubmatch(r.Volume)
			if m == nil {
				fail("%s volume %q: not lots (手) as the terminal shows them", r.Code, r.Volume)
			}
			lots := q.Volume / 100
			x, _ := strconv.ParseFloat(m[1], 64)
			unit, wantUnit := map[string]float64{"": 1, "万": 1e4, "亿": 1e8}[m[2]], 1.0
			switch {
			case lots >= 1e8:
				wantUnit = 1e8
			case lots >= 1e4:
				wantUnit = 1e4
			}
			if unit != wantUnit || math.Abs(x*unit-lots) > 0.0051*unit {
				fail("%s volume %q for %v shares (%v lots)", r.Code, r.Volume, q.Volume, lots)
			}
			index = index || q.Type == "index"
		}
		if !stale {
			if !index {
				fail("no index in the watchlist %v", codes)
			}
			break
		}
		if try == 5 {
			fail("the watchlist did not catch up with the quotes")
		}
		time.Sleep(time.Second)
	}
	var legend string
	if err := p.eval(ctx, `document.querySelector('#kline-legend').textContent`, &legend); err != nil {
		fail("read the K-line legend: %v", err)
	}
	if !regexp.MustCompile(`量 \d+(\.\d+)?(亿|万)?手`).MatchString(legend) || strings.Contains(legend, "股") {
		fail("K-line legend %q: want the volume in lots (手)", legend)
	}
}
