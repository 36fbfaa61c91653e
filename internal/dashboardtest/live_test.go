package dashboardtest

import (
	"context"
	"crypto/md5"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestDashboardLive shows the dashboard updated by the stream without a
// reload, at any hour.
//
// First tab, the real stream of a fresh demo server: the page subscribes
// to GET /v1/api/stream (fetch with the signed headers, under the page's
// Content-Security-Policy) with codes= its watchlist. Its own GET
// /v1/api/quotes is stubbed with placeholder rows, so the server's quote
// snapshot is still unmade when the test, after the stream is open, asks
// for the quotes itself: that first snapshot reports every quote as
// changed, and the server pushes the watched stocks as quote events, which
// must replace the placeholders. (Rankings and movements are only built in
// the trading window, which the wall clock may not be in; a first quote
// snapshot happens at any hour.)
//
// Second tab, a stubbed stream the test writes to: a movement event split
// across chunks is prepended to the timeline once (again, or as one the
// poll already showed, it is not repeated), and a ranking event replaces
// the ranking.
//
// Both: the document is the one loaded at first (a marker set after load
// survives, one navigation entry).
func TestDashboardLive(t *testing.T) {
	s := newSession(t)
	ctx, p, srv, b, artifacts, fail := s.ctx, s.p, s.srv, s.b, s.artifacts, s.fail
	if err := p.addScript(ctx, stubQuotes); err != nil {
		fail("stub the quotes: %v", err)
	}
	if err := p.navigate(ctx, srv.base+"/"); err != nil {
		fail("%v", err)
	}
	login(t, ctx, p, fail, "")
	waitForPanels(t, ctx, p, fail, func(s pageState) bool { return s.WatchRows == 4 && s.Stream == "open" })
	before := markDocument(t, ctx, p, fail)
	rows := watchRows(t, ctx, p, fail)
	for _, r := range rows {
		if r.Last != "1.00" || r.ID != "" {
			fail("watchlist row before the trigger %+v: want the stub's 1.00 and no event id", r)
		}
	}

	// The trigger: the server's first quote snapshot, asked for by the test.
	start := time.Now()
	api := &apiClient{base: srv.base, token: srv.token(t)}
	var quotes struct {
		Quotes []struct {
			Code string   `json:"code"`
			Type string   `json:"type"`
			Last *float64 `json:"last"`
		} `json:"quotes"`
	}
	api.get(t, fail, "/v1/api/quotes?codes=600519.SH,000001.SZ,300750.SZ", &quotes)
	want := map[string]string{}
	for _, q := range quotes.Quotes {
		if q.Last == nil || q.Type != "stock" {
			fail("GET /v1/api/quotes: %s has no last price or is not a stock", q.Code)
		}
		want[q.Code] = strconv.FormatFloat(*q.Last, 'f', 2, 64)
	}
	eventID := regexp.MustCompile(`^\d+-\d+$`)
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		rows = watchRows(t, ctx, p, fail)
		done := 0
		for _, r := range rows {
			if w, ok := want[r.Code]; ok && r.Last == w && eventID.MatchString(r.ID) {
				done++
			}
		}
		if done == len(want) {
			break
		}
		if time.Now().After(deadline) {
			fail("the watchlist was not updated by quote events within 20 s: rows %+v, want last %v", rows, want)
		}
	}
	t.Logf("quote events applied %v after the trigger: %+v", time.Since(start).Round(time.Millisecond), rows)
	after := markDocument(t, ctx, p, fail)
	sameDocument(t, fail, before, after)
	if after.Events < before.Events+len(want) || !eventID.MatchString(after.LastID) {
		fail("#live counts %d events applied (before %d), last id %q: want at least %d more", after.Events, before.Events, after.LastID, len(want))
	}

	checkStubbedStream(t, ctx, b, srv, artifacts, fail)
}

// stubQuotes answers the page's GET /v1/api/quotes with placeholder rows
// (last 1.00), leaving the server's snapshot to the test.
const stubQuotes = `(() => {
	const real = window.fetch;
	window.fetch = (url, init) => {
		if (!String(url).startsWith('/v1/api/quotes')) return real(url, init);
		const codes = decodeURIComponent(String(url).split('codes=')[1] || '').split(',');
		const quotes = codes.map((code) => ({ code, name: 'stub ' + code, type: code === '000001.SH' ? 'index' : 'stock',
			last: 1, prev_close: 1, change: 0, pct: 0, volume: 0, amount: 0, status: 'closed', as_of: '2000-01-01 00:00:00', source: 'stub' }));
		const body = JSON.stringify({ code: 1, message: 'OK', data: { quotes, count: quotes.length } });
		return Promise.resolve(new Response(body, { status: 200, headers: { 'Content-Type': 'application/json' } }));
	};
})()`

type watchRow struct {
	Code string `json:"code"`
	Last string `json:"last"`
	ID   string `json:"id"`
}

func watchRows(t *testing.T, ctx context.Context, p *page, fail func(string, ...any)) []watchRow {
	t.Helper()
	var rows []watchRow
	err := p.eval(ctx, `[...document.querySelectorAll('#watch-rows tr')].map((tr) => ({
		code: tr.dataset.code, last: tr.querySelector('.w-last').textContent, id: tr.dataset.id || '' }))`, &rows)
	if err != nil {
		fail("read the watchlist: %v", err)
	}
	return rows
}

// docMark is what shows the document was not reloaded: a marker set in it,
// its time origin and its navigations; and #live's counters.
type docMark struct {
	Marker      string  `json:"marker"`
	Origin      float64 `json:"origin"`
	Navigations int     `json:"navigations"`
	Stream      string  `json:"stream"`
	Events      int     `json:"events"`
	LastID      string  `json:"lastId"`
}

// markDocument sets the marker when the document has none, and reads it.
func markDocument(t *testing.T, ctx context.Context, p *page, fail func(string, ...any)) docMark {
	t.Helper()
	var m docMark
	err := p.eval(ctx, `(() => {
		window.__liveMarker = window.__liveMarker || String(Math.random());
		const live = document.querySelector('#live');
		return { marker: window.__liveMarker, origin: performance.timeOrigin,
			navigations: performance.getEntriesByType('navigation').length,
			stream: live.dataset.stream, events: Number(live.dataset.events), lastId: live.dataset.lastId };
	})()`, &m)
	if err != nil {
		fail("mark the document: %v", err)
	}
	return m
}

func sameDocument(t *testing.T, fail func(string, ...any), before, after docMark) {
	t.Helper()
	if after.Marker != before.Marker || after.Origin != before.Origin || after.Navigations != 1 {
		fail("the page was reloaded: before %+v, after %+v", before, after)
	}
}

// stubStream replaces the page's stream with one the test writes to
// (window.__sse(text)); it opens with an open event. window.__sseIds are
// the Last-Event-ID headers of the page's stream requests.
const stubStream = `(() => {
	const real = window.fetch;
	const enc = new TextEncoder();
	let out = null;
	window.__sse = (text) => { out.enqueue(enc.encode(text)); return true; };
	window.__sseIds = [];
	window.fetch = (url, init) => {
		if (!String(url).startsWith('/v1/api/stream')) return real(url, init);
		window.__sseIds.push((init && init.headers && init.headers['Last-Event-ID']) || '');
		const body = new ReadableStream({ start(c) {
			out = c;
			c.enqueue(enc.encode('retry: 3000\nid: 2-1\nevent: open\ndata: {"topics":["ranking","movement","quote"],"codes":[],"resumed":false}\n\n: hb\n\n'));
		} });
		return Promise.resolve(new Response(body, { status: 200, headers: { 'Content-Type': 'text/event-stream' } }));
	};
})()`

func checkStubbedStream(t *testing.T, ctx context.Context, b *browser, srv *server, artifacts string, fail func(string, ...any)) {
	t.Helper()
	p, err := b.newPage(ctx, 1440, 1000)
	if err != nil {
		fail("open a second page: %v", err)
	}
	for _, s := range []string{stubEvents, stubStream} {
		if err := p.addScript(ctx, s); err != nil {
			fail("stub: %v", err)
		}
	}
	if err := p.navigate(ctx, srv.base+"/"); err != nil {
		fail("%v", err)
	}
	login(t, ctx, p, fail, "")
	waitForPanels(t, ctx, p, fail, func(s pageState) bool { return s.Stream == "open" && s.Moves == 2 })
	before := markDocument(t, ctx, p, fail)

	// A movement event, split inside its data line, then again, then one
	// the poll already showed (event_ms 2).
	move := `{"id":3,"board_code":"BK3","board_name":"推送板块","type":"concept","source":"demo","trigger":"surge","direction":"up","pct":3.2,"main_net":250000000,"delta":1.5,"event_ts":"2026-11-23 10:15:00","event_ms":3}`
	old := `{"id":2,"board_code":"BK2","board_name":"人工智能","type":"concept","source":"demo","trigger":"plunge","direction":"down","pct":-1.4,"main_net":-150000000,"delta":-1.1,"event_ts":"2026-11-23 10:02:30","event_ms":2}`
	half := len(move) / 2
	for _, chunk := range []string{"id: 3-1\nevent: movement\ndata: " + move[:half], move[half:] + "\n\n",
		"id: 3-1\nevent: movement\ndata: " + move + "\n\nid: 3-1\nevent: movement\ndata: " + old + "\n\n"} {
		push(t, ctx, p, fail, chunk)
	}
	var rows []string
	waitFor(t, ctx, p, fail, "the pushed movement on top of the timeline",
		`[...document.querySelectorAll('#movements-list li')].map((li) => li.textContent)`, &rows,
		func() bool {
			return len(rows) == 3 && strings.HasPrefix(rows[0], "10:15:00推送板块概念火箭发射 +1.50%+3.20%2.50亿")
		})
	time.Sleep(300 * time.Millisecond) // the repeated events would show by now
	waitFor(t, ctx, p, fail, "no repeated movement", `[...document.querySelectorAll('#movements-list li')].map((li) => li.textContent)`, &rows,
		func() bool { return len(rows) == 3 })

	// A ranking event: the server's current top 10, built a minute later,
	// its first inflow sector renamed.
	var top map[string]any
	srvGetRaw(t, fail, srv, "/v1/api/boards/top50?top=10", &top)
	in, _ := top["sectors"].([]any)
	if len(in) == 0 {
		fail("GET /v1/api/boards/top50: no sectors: %v", top)
	}
	in[0].(map[string]any)["sector_name"] = "推送排名"
	top["updated_ms"] = top["updated_ms"].(float64) + 60000
	data, _ := json.Marshal(top)
	push(t, ctx, p, fail, fmt.Sprintf("id: 3-2\nevent: ranking\ndata: %s\n\n", data))
	var labels []string
	waitFor(t, ctx, p, fail, "the pushed ranking", `[...document.querySelectorAll('#ranking-in text.label')].map((e) => e.textContent)`, &labels,
		func() bool { return len(labels) > 0 && labels[0] == "推送排名" })

	after := markDocument(t, ctx, p, fail)
	sameDocument(t, fail, before, after)
	if after.Events != before.Events+2 || after.LastID != "3-2" {
		fail("#live: %d events applied (before %d), last id %q: want 2 more, 3-2", after.Events, before.Events, after.LastID)
	}
	if _, err := p.screenshot(ctx, filepath.Join(artifacts, "dashboard-live.png")); err != nil {
		fail("screenshot: %v", err)
	}

	// The server ends the stream for a revoked token: the login dialog,
	// then the stream again, resumed from the last id.
	push(t, ctx, p, fail, "id: 3-2\nevent: end\ndata: {\"reason\":\"unauthorized\",\"detail\":\"token revoked\"}\n\n")
	login(t, ctx, p, fail, "Session ended (token revoked)")
	var ids []string
	waitFor(t, ctx, p, fail, "the stream resumed after the login", `document.querySelector('#live').dataset.stream === 'open' ? window.__sseIds : []`, &ids,
		func() bool { return len(ids) == 2 && ids[0] == "" && ids[1] == "3-2" })
	var st pageState
	if err := p.eval(ctx, readState, &st); err != nil || len(st.Errors) > 0 {
		fail("the page shows errors (%v): %q", err, st.Errors)
	}
	sameDocument(t, fail, before, markDocument(t, ctx, p, fail))
}

func push(t *testing.T, ctx context.Context, p *page, fail func(string, ...any), text string) {
	t.Helper()
	js, _ := json.Marshal(text)
	if err := p.eval(ctx, "window.__sse("+string(js)+")", nil); err != nil {
		fail("write to the stubbed stream: %v", err)
	}
}

// waitFor evaluates expr into out until ok, for up to 10 s.
func waitFor(t *testing.T, ctx context.Context, p *page, fail func(string, ...any), what, expr string, out any, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		err := p.eval(ctx, expr, out)
		if err == nil && ok() {
			return
		}
		if time.Now().After(deadline) {
			fail("%s: not shown within 10 s (%v): %v", what, err, out)
		}
	}
}

// srvGetRaw is a signed GET whose JSON answer (no envelope) is decoded
// into out.
func srvGetRaw(t *testing.T, fail func(string, ...any), srv *server, pathQuery string, out any) {
	t.Helper()
	token := srv.token(t)
	req, _ := http.NewRequest(http.MethodGet, srv.base+pathQuery, nil)
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	nonce := make([]byte, 16)
	rand.Read(nonce)
	n := hex.EncodeToString(nonce)
	sum := md5.Sum([]byte(token + ts + n))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("X-Timestamp", ts)
	req.Header.Set("X-Nonce", n)
	req.Header.Set("X-Signature", hex.EncodeToString(sum[:]))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		fail("GET %s: %v", pathQuery, err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK || json.Unmarshal(body, out) != nil {
		fail("GET %s: %s %.200s", pathQuery, res.Status, body)
	}
}
