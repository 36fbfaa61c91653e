package dashboardtest

import (
	"context"
	"crypto/md5"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
)

// TestDashboardAdjustedKline drives the K-line panel's 复权 switch in
// headless Chromium against the demo market: it opens a stock with an
// ex-rights event inside the panel's range (chosen with
// /v1/api/corporate_actions), switches 不复权 → 前复权 → 后复权 → 不复权,
// and at each step compares what the page shows (the close in the legend of
// the bar under the pointer, the 除权除息 marks, the mode label) with the
// API's own answer to the very request the page made. The 前复权 and 后复权
// closes are also recomputed here from the events' own maps (ex_factor,
// ex_offset). A second tab, whose adjusted requests answer the 503 of a
// server without corporate actions, shows the API's detail as the panel's
// error and can switch back to 不复权.
func TestDashboardAdjustedKline(t *testing.T) {
	s := newSession(t)
	ctx, p, srv, b, artifacts, fail := s.ctx, s.p, s.srv, s.b, s.artifacts, s.fail
	if err := p.navigate(ctx, srv.base+"/"); err != nil {
		fail("%v", err)
	}
	login(t, ctx, p, fail, "")
	waitForPanels(t, ctx, p, fail, func(s pageState) bool { return s.Candles > 0 })
	checkEventLabels(t, ctx, p, fail)

	// The test's own token (the 2nd of the demo client's 20: the page's
	// stays valid) to ask the API what the page asked.
	api := &apiClient{base: srv.base, token: srv.token(t)}

	// The range the page shows: from its first K-line request.
	var firstURL string
	if err := p.eval(ctx, `performance.getEntriesByType('resource').map((e) => e.name).find((n) => n.includes('/v1/api/kline?')) || ''`, &firstURL); err != nil || firstURL == "" {
		fail("the page's first K-line request is not in its resource timings (%v)", err)
	}
	u, _ := url.Parse(firstURL)
	start, end := u.Query().Get("start"), u.Query().Get("end")

	var hot []string
	if err := p.eval(ctx, `[...document.querySelectorAll('#hotrank-rows button.stock small')].map((e) => e.textContent)`, &hot); err != nil || len(hot) == 0 {
		fail("read the hot rank's codes: %v (%d)", err, len(hot))
	}
	pick := chooseStock(t, api, hot, start, end, fail)
	t.Logf("stock %s: %s in %s..%s (hot rank position %d)", pick.code, pick.event.label(), start, end, pick.hot+1)

	// Open its K-line as a user would: its hot-rank row, else the code box.
	if pick.hot >= 0 {
		p.clearTimings(ctx, fail)
		if err := p.click(ctx, fmt.Sprintf(`#hotrank-rows tr:nth-child(%d) button.stock`, pick.hot+1)); err != nil {
			fail("%v", err)
		}
	} else {
		showCodeTyped(t, ctx, p, fail, pick.code)
	}
	path := waitKline(t, ctx, p, fail, pick.code, "none")

	// 不复权: the bars as traded, the marks from the corporate actions.
	var none klineAnswer
	api.get(t, fail, path, &none)
	if len(none.Rows) < 60 || none.Adj != "none" {
		fail("GET %s: %d rows, adj %q", path, len(none.Rows), none.Adj)
	}
	ev := eventBar(none.Rows, pick.event.Date)
	if ev < 1 {
		fail("no bar before and on/after %s's ex-date %s in %s..%s", pick.code, pick.event.Date, none.Rows[0].TradeDate, none.Rows[len(none.Rows)-1].TradeDate)
	}
	pre := ev - 1
	var acts actionsAnswer
	api.get(t, fail, "/v1/api/corporate_actions?"+url.Values{"code": {pick.code}, "start": {start}, "end": {end}}.Encode(), &acts)
	var inRange []eventValues
	for i, a := range acts.Items {
		if a.Category == 1 {
			inRange = append(inRange, acts.item(i))
		}
	}
	v := readKline(t, ctx, p, fail)
	checkView(t, fail, "不复权", v, none, inRange, "不复权")
	noneClose := hoverClose(t, ctx, p, fail, pre, none.Rows[pre])
	evLegend := hover(t, ctx, p, fail, ev)
	if !strings.Contains(evLegend, "除权 "+pick.event.label()) {
		fail("不复权: the legend of the ex-date bar %s does not name the event %s: %q", none.Rows[ev].TradeDate, pick.event.label(), evLegend)
	}

	// All of the code's price events, for the maps.
	var all actionsAnswer
	api.get(t, fail, "/v1/api/corporate_actions?"+url.Values{"code": {pick.code}}.Encode(), &all)

	// 前复权.
	p.clearTimings(ctx, fail)
	if err := p.click(ctx, `#kline-adj-switch label:has(input[value="qfq"])`); err != nil {
		fail("%v", err)
	}
	path = waitKline(t, ctx, p, fail, pick.code, "qfq")
	var qfq klineAnswer
	api.get(t, fail, path, &qfq)
	if qfq.Adj != "qfq" || qfq.Anchor == nil || qfq.AdjMethod != "tdx-affine" {
		fail("GET %s: adj %q, anchor %v, method %q", path, qfq.Adj, qfq.Anchor, qfq.AdjMethod)
	}
	sameDays(t, fail, none, qfq)
	v = readKline(t, ctx, p, fail)
	checkView(t, fail, "前复权", v, qfq, qfq.events(), "前复权 · 锚定 "+*qfq.Anchor)
	qfqClose := hoverClose(t, ctx, p, fail, pre, qfq.Rows[pre])
	if noneClose == qfqClose {
		fail("前复权 shows the close %s of %s as 不复权 does, before the %s event %s", cents(qfqClose), none.Rows[pre].TradeDate, pick.event.Date, pick.event.label())
	}
	if got, want := noneClose-qfqClose, none.Rows[pre].Close-qfq.Rows[pre].Close; math.Abs(got-want) > 0.001 {
		fail("%s: the page's 不复权 − 前复权 is %.2f, the API's %.2f", none.Rows[pre].TradeDate, got, want)
	}
	checkMapped(t, fail, "前复权", none, qfq, all, func(day string) []mapping {
		var ms []mapping // the events after the bar up to the anchor, oldest first
		for _, a := range all.price() {
			if a.Date > day && a.Date <= *qfq.Anchor {
				ms = append(ms, a)
			}
		}
		return ms
	}, false)
	t.Logf("前复权 anchored %s: %s close %s → %s (%d mark(s))", *qfq.Anchor, none.Rows[pre].TradeDate, cents(noneClose), cents(qfqClose), len(v.Marks))

	// 后复权.
	p.clearTimings(ctx, fail)
	if err := p.click(ctx, `#kline-adj-switch label:has(input[value="hfq"])`); err != nil {
		fail("%v", err)
	}
	path = waitKline(t, ctx, p, fail, pick.code, "hfq")
	var hfq klineAnswer
	api.get(t, fail, path, &hfq)
	if hfq.Adj != "hfq" {
		fail("GET %s: adj %q", path, hfq.Adj)
	}
	sameDays(t, fail, none, hfq)
	label := "后复权 · 无上市日，全部事件"
	if hfq.Anchor != nil {
		label = "后复权 · 锚定 " + *hfq.Anchor
	}
	v = readKline(t, ctx, p, fail)
	checkView(t, fail, "后复权", v, hfq, hfq.events(), label)
	hfqPre := hoverClose(t, ctx, p, fail, pre, hfq.Rows[pre])
	hfqEv := hoverClose(t, ctx, p, fail, ev, hfq.Rows[ev])
	checkMapped(t, fail, "后复权", none, hfq, all, func(day string) []mapping {
		var ms []mapping // the events after the listing up to the bar, newest first (undone)
		for _, a := range all.price() {
			if (hfq.Anchor == nil || a.Date > *hfq.Anchor) && a.Date <= day {
				ms = append([]mapping{a}, ms...)
			}
		}
		return ms
	}, true)
	t.Logf("后复权 (%s): %s close %s, %s close %s", label, hfq.Rows[pre].TradeDate, cents(hfqPre), hfq.Rows[ev].TradeDate, cents(hfqEv))

	// The choice holds for another code, and for this one again.
	showCodeTyped(t, ctx, p, fail, "600519.SH")
	waitKline(t, ctx, p, fail, "600519.SH", "hfq")
	showCodeTyped(t, ctx, p, fail, pick.code)
	waitKline(t, ctx, p, fail, pick.code, "hfq")

	// Back to 不复权: the traded close again.
	p.clearTimings(ctx, fail)
	if err := p.click(ctx, `#kline-adj-switch label:has(input[value="none"])`); err != nil {
		fail("%v", err)
	}
	waitKline(t, ctx, p, fail, pick.code, "none")
	v = readKline(t, ctx, p, fail)
	checkView(t, fail, "不复权 again", v, none, inRange, "不复权")
	if c := hoverClose(t, ctx, p, fail, pre, none.Rows[pre]); c != noneClose {
		fail("back to 不复权, %s closes at %s, first %s", none.Rows[pre].TradeDate, cents(c), cents(noneClose))
	}
	if _, err := p.screenshot(ctx, artifacts+"/dashboard-adjusted.png"); err != nil {
		fail("screenshot: %v", err)
	}

	checkAdjustedUnavailable(t, ctx, b, srv, artifacts, fail)

	exceptions, entries := b.collected()
	for _, e := range exceptions {
		fail("uncaught exception in the page: %s", e)
	}
	for _, e := range entries {
		if e.Source == "security" {
			fail("security error in the page: %s", e.Text)
		}
	}
}

// ---- the API, asked by the test ---------------------------------------------

type apiClient struct{ base, token string }

// get sends a signed GET of pathQuery and decodes the envelope's data into
// out; anything but a 200 fails.
func (a *apiClient) get(t *testing.T, fail func(string, ...any), pathQuery string, out any) {
	t.Helper()
	if status, msg := a.try(t, fail, pathQuery, out); status != http.StatusOK {
		fail("GET %s: %d %s", pathQuery, status, msg)
	}
}

// try sends a signed GET of pathQuery, decodes a success's data into out
// and answers the status and, for a failure, the message and detail.
func (a *apiClient) try(t *testing.T, fail func(string, ...any), pathQuery string, out any) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, a.base+pathQuery, nil)
	if err != nil {
		fail("%v", err)
	}
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	nonce := make([]byte, 16)
	rand.Read(nonce)
	n := hex.EncodeToString(nonce)
	sum := md5.Sum([]byte(a.token + ts + n))
	req.Header.Set("Authorization", "Bearer "+a.token)
	req.Header.Set("X-Timestamp", ts)
	req.Header.Set("X-Nonce", n)
	req.Header.Set("X-Signature", hex.EncodeToString(sum[:]))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		fail("GET %s: %v", pathQuery, err)
	}
	defer res.Body.Close()
	var env struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Detail  string          `json:"detail"`
		Data    json.RawMessage `json:"data"`
	}
	if err := json.NewDecoder(res.Body).Decode(&env); err != nil {
		fail("GET %s: %s, not the JSON envelope: %v", pathQuery, res.Status, err)
	}
	if res.StatusCode != http.StatusOK || env.Code != 1 {
		return res.StatusCode, env.Message + ": " + env.Detail
	}
	if err := json.Unmarshal(env.Data, out); err != nil {
		fail("GET %s: %v", pathQuery, err)
	}
	return res.StatusCode, ""
}

type klineRow struct {
	TradeDate   string  `json:"trade_date"`
	Close       float64 `json:"close"`
	Provisional bool    `json:"provisional"`
}

type eventValues struct {
	Date   string  `json:"date"`
	Cash   float64 `json:"cash_per_10"`
	Bonus  float64 `json:"bonus_per_10"`
	Rights float64 `json:"rights_per_10"`
	Price  float64 `json:"rights_price"`
}

// label is the terminal's notation, as the page should write it.
func (e eventValues) label() string {
	short := func(v float64) string { return strconv.FormatFloat(math.Round(v*1e4)/1e4, 'f', -1, 64) }
	s := "10"
	if e.Bonus != 0 {
		s += "送" + short(e.Bonus)
	}
	if e.Cash != 0 {
		s += "派" + short(e.Cash)
	}
	if e.Rights != 0 {
		s += "配" + short(e.Rights) + " @" + short(e.Price)
	}
	return s
}

type klineAnswer struct {
	Code      string        `json:"code"`
	Adj       string        `json:"adj"`
	AdjMethod string        `json:"adj_method"`
	Anchor    *string       `json:"anchor"`
	Rows      []klineRow    `json:"rows"`
	Events    []eventValues `json:"events"`
}

func (k klineAnswer) events() []eventValues { return k.Events }

type actionsAnswer struct {
	ListingDay *string `json:"listing_day"`
	Items      []struct {
		Date     string             `json:"date"`
		Category int                `json:"category"`
		Values   map[string]float64 `json:"values"`
		ExFactor *float64           `json:"ex_factor"`
		ExOffset *float64           `json:"ex_offset"`
	} `json:"items"`
}

// mapping is a price event's own map: ex = Factor·cum + Offset.
type mapping struct {
	Date           string
	Factor, Offset float64
}

func (a actionsAnswer) price() []mapping {
	var out []mapping
	for _, it := range a.Items {
		if it.Category == 1 && it.ExFactor != nil && it.ExOffset != nil {
			out = append(out, mapping{it.Date, *it.ExFactor, *it.ExOffset})
		}
	}
	return out
}

func (a actionsAnswer) item(i int) eventValues {
	v := a.Items[i].Values
	return eventValues{Date: a.Items[i].Date, Cash: v["cash_per_10"], Bonus: v["bonus_per_10"], Rights: v["rights_per_10"], Price: v["rights_price"]}
}

// candidate is a stock with an ex-rights event inside the panel's range.
type candidate struct {
	code  string
	hot   int // its row in the hot rank, -1 when it is not there
	event eventValues
	score float64
}

// chooseStock picks the hot-rank stock (else one of the first listed
// stocks) whose event inside start..end moves its earlier prices most:
// bonus shares or a rights issue first, then the largest cash.
func chooseStock(t *testing.T, api *apiClient, hot []string, start, end string, fail func(string, ...any)) candidate {
	t.Helper()
	best := candidate{hot: -1}
	// The demo terminal's gbbq is imported by a start-up job: until then
	// corporate actions are a 503.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(250 * time.Millisecond) {
		var acts actionsAnswer
		status, msg := api.try(t, fail, "/v1/api/corporate_actions?code="+url.QueryEscape(hot[0]), &acts)
		if status == http.StatusOK {
			break
		}
		if status != http.StatusServiceUnavailable || time.Now().After(deadline) {
			fail("corporate actions of %s: %d %s", hot[0], status, msg)
		}
	}
	scan := func(code string, hot int) {
		var acts actionsAnswer
		api.get(t, fail, "/v1/api/corporate_actions?"+url.Values{"code": {code}, "start": {start}, "end": {end}}.Encode(), &acts)
		for i, it := range acts.Items {
			if it.Category != 1 || it.Date <= start || it.Date >= end {
				continue // no bar before it, or maybe none on/after it yet
			}
			e := acts.item(i)
			score := e.Cash
			if e.Bonus != 0 || e.Rights != 0 {
				score += 1e6
			}
			if score >= 0.1 && score > best.score {
				best = candidate{code: code, hot: hot, event: e, score: score}
			}
		}
	}
	for i, code := range hot {
		scan(code, i)
	}
	if best.code == "" {
		var list struct {
			Items []struct {
				Code string `json:"code"`
			} `json:"items"`
		}
		api.get(t, fail, "/v1/api/meta/stocks?type=stock&page_size=200", &list)
		for _, it := range list.Items {
			if scan(it.Code, -1); best.code != "" {
				break
			}
		}
	}
	if best.code == "" {
		fail("no stock of the hot rank or of the first 200 listed has a 除权除息 event in %s..%s", start, end)
	}
	return best
}

// ---- the page -------------------------------------------------------------

func (p *page) clearTimings(ctx context.Context, fail func(string, ...any)) {
	if err := p.eval(ctx, `(() => { performance.setResourceTimingBufferSize(2000); performance.clearResourceTimings(); return true; })()`, nil); err != nil {
		fail("clear the resource timings: %v", err)
	}
}

// showCodeTyped types code into the K-line code box and presses Show.
func showCodeTyped(t *testing.T, ctx context.Context, p *page, fail func(string, ...any), code string) {
	t.Helper()
	p.clearTimings(ctx, fail)
	if err := p.eval(ctx, `(() => { const e = document.querySelector('#kline-code'); e.value = ''; e.focus(); return true; })()`, nil); err != nil {
		fail("focus the code box: %v", err)
	}
	if err := p.typeText(ctx, code); err != nil {
		fail("type %s: %v", code, err)
	}
	if err := p.click(ctx, `#kline-form button[type="submit"]`); err != nil {
		fail("%v", err)
	}
}

var adjNames = map[string]string{"none": "不复权", "qfq": "前复权", "hfq": "后复权"}

// waitKline waits until the panel shows code in mode, loaded by a request
// made since the last clearTimings, and answers that request's path and
// query.
func waitKline(t *testing.T, ctx context.Context, p *page, fail func(string, ...any), code, mode string) string {
	t.Helper()
	var st struct {
		State, Title, Label, Checked, Adj string
		Busy                              bool
		Candles                           int
		URLs                              []string
		Error                             string
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := p.eval(ctx, `(() => {
			const k = document.querySelector('#kline');
			const err = k.querySelector('.panel-error');
			return {
				state: k.dataset.state, adj: k.dataset.adj || '', busy: k.hasAttribute('aria-busy'),
				title: document.querySelector('#kline-title').textContent,
				label: document.querySelector('#kline-adj').textContent,
				checked: document.querySelector('#kline-adj-switch input:checked')?.value || '',
				candles: document.querySelectorAll('#kline-chart g.candle').length,
				urls: performance.getEntriesByType('resource').map((e) => e.name).filter((n) => n.includes('/v1/api/kline')),
				error: err.hidden ? '' : err.textContent,
			};
		})()`, &st)
		var found string
		for _, raw := range st.URLs {
			u, perr := url.Parse(raw)
			if perr != nil {
				continue
			}
			q := u.Query()
			wantPath := "/v1/api/kline/adjusted"
			if mode == "none" {
				wantPath = "/v1/api/kline"
			}
			if u.Path == wantPath && q.Get("code") == code && (mode == "none" || q.Get("mode") == mode) {
				found = u.RequestURI()
			}
		}
		if err == nil && found != "" && st.State == "ready" && !st.Busy && st.Candles > 0 && st.Adj == mode && st.Checked == mode &&
			strings.HasPrefix(st.Title, code) && strings.HasPrefix(st.Label, adjNames[mode]) {
			return found
		}
		if time.Now().After(deadline) {
			fail("the K-line panel did not show %s %s (eval error %v): %+v", code, adjNames[mode], err, st)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

type markView struct {
	Date  string `json:"date"`
	Bar   string `json:"bar"`
	Label string `json:"label"`
	Title string `json:"title"`
}

type klineView struct {
	Label   string     `json:"label"`
	Meta    string     `json:"meta"`
	Candles int        `json:"candles"`
	Marks   []markView `json:"marks"`
}

func readKline(t *testing.T, ctx context.Context, p *page, fail func(string, ...any)) klineView {
	t.Helper()
	var v klineView
	err := p.eval(ctx, `(() => ({
		label: document.querySelector('#kline-adj').textContent,
		meta: document.querySelector('#kline-meta').textContent,
		candles: document.querySelectorAll('#kline-chart g.candle').length,
		marks: [...document.querySelectorAll('#kline-chart g.exmark')].map((g) => ({
			date: g.dataset.date, bar: g.dataset.bar,
			label: g.querySelector('text.ex-label').textContent, title: g.querySelector('title').textContent,
		})),
	}))()`, &v)
	if err != nil {
		fail("read the K-line panel: %v", err)
	}
	return v
}

// checkView compares the panel with the answer it drew: the label, one
// candle per row, and one mark per event inside the rows' days, on the
// bar of its ex-date or the first after it, in the terminal's notation.
func checkView(t *testing.T, fail func(string, ...any), step string, v klineView, k klineAnswer, events []eventValues, label string) {
	t.Helper()
	if v.Label != label {
		fail("%s: the panel says %q, want %q", step, v.Label, label)
	}
	if v.Candles != len(k.Rows) {
		fail("%s: %d candles for %d rows", step, v.Candles, len(k.Rows))
	}
	var want []markView
	for _, e := range events {
		i := eventBar(k.Rows, e.Date)
		if i < 0 {
			continue
		}
		want = append(want, markView{Date: e.Date, Bar: k.Rows[i].TradeDate, Label: e.label()})
	}
	if len(want) == 0 {
		fail("%s: no event of the answer lies in the range: the test chose badly", step)
	}
	if len(v.Marks) != len(want) {
		fail("%s: %d marks %+v, want %d %+v", step, len(v.Marks), v.Marks, len(want), want)
	}
	for i, m := range v.Marks {
		w := want[i]
		if m.Date != w.Date || m.Bar != w.Bar || m.Label != w.Label || !strings.Contains(m.Title, w.Date) || !strings.Contains(m.Title, w.Label) {
			fail("%s: mark %d is %+v, want %+v", step, i, m, w)
		}
	}
	if !strings.Contains(v.Meta, fmt.Sprintf("%d ex-date", len(want))) {
		fail("%s: the meta line %q does not count %d ex-date(s)", step, v.Meta, len(want))
	}
}

// eventBar is the index of the first row on or after day, -1 when day is
// before the first row or after the last.
func eventBar(rows []klineRow, day string) int {
	if len(rows) == 0 || day < rows[0].TradeDate || day > rows[len(rows)-1].TradeDate {
		return -1
	}
	for i, r := range rows {
		if r.TradeDate >= day {
			return i
		}
	}
	return -1
}

func sameDays(t *testing.T, fail func(string, ...any), a, b klineAnswer) {
	t.Helper()
	if len(a.Rows) != len(b.Rows) {
		fail("%d unadjusted rows, %d %s rows", len(a.Rows), len(b.Rows), b.Adj)
	}
	for i := range a.Rows {
		if a.Rows[i].TradeDate != b.Rows[i].TradeDate {
			fail("row %d: %s unadjusted, %s %s", i, a.Rows[i].TradeDate, b.Adj, b.Rows[i].TradeDate)
		}
	}
}

// checkMapped recomputes every final adjusted close from the unadjusted
// one with the events' own maps (undone, for 后复权), rounded to the cent
// half away from zero as docs/adjusted-prices.md says: to the cent, except that a value
// within 1e-9 of a half cent may round either way.
func checkMapped(t *testing.T, fail func(string, ...any), step string, none, adj klineAnswer, all actionsAnswer, events func(day string) []mapping, undo bool) {
	t.Helper()
	moved := 0
	for i, r := range none.Rows {
		if r.Provisional {
			continue
		}
		x := r.Close
		for _, m := range events(r.TradeDate) {
			if undo {
				x = (x - m.Offset) / m.Factor
			} else {
				x = m.Factor*x + m.Offset
			}
		}
		want := math.Round(x*100) / 100
		got := adj.Rows[i].Close
		if math.Abs(got-want) > 1e-9 {
			frac := math.Abs(x*100 - math.Trunc(x*100))
			if !(math.Abs(frac-0.5) < 1e-7 && math.Abs(got-x) <= 0.005+1e-9) {
				fail("%s %s: close %s, the events' maps give %s (unadjusted %s)", step, r.TradeDate, cents(got), cents(want), cents(r.Close))
			}
		}
		if got != r.Close {
			moved++
		}
	}
	if moved == 0 {
		fail("%s: no close moved", step)
	}
}

// hover moves the pointer over candle i and answers the legend.
func hover(t *testing.T, ctx context.Context, p *page, fail func(string, ...any), i int) string {
	t.Helper()
	var at struct{ X, Y float64 }
	err := p.eval(ctx, fmt.Sprintf(`(() => {
		document.querySelector('#kline-chart').scrollIntoView({ block: 'center' });
		const r = document.querySelectorAll('#kline-chart g.candle')[%d].getBoundingClientRect();
		return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
	})()`, i), &at)
	if err != nil {
		fail("find candle %d: %v", i, err)
	}
	// From outside the chart, so that the move is one even when the
	// pointer was already there.
	for _, pt := range [][2]float64{{2, 2}, {at.X, at.Y}} {
		if err := p.mouse(ctx, input.DispatchMouseEventTypeMouseMoved, pt[0], pt[1]); err != nil {
			fail("move the pointer: %v", err)
		}
	}
	var legend string
	if err := p.eval(ctx, `document.querySelector('#kline-legend').textContent`, &legend); err != nil {
		fail("read the legend: %v", err)
	}
	return legend
}

var legendClose = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2}) .* 收 (-?\d+\.\d{2}) `)

// hoverClose points at candle i and answers the close its legend shows,
// which must be the answer's row.
func hoverClose(t *testing.T, ctx context.Context, p *page, fail func(string, ...any), i int, row klineRow) float64 {
	t.Helper()
	legend := hover(t, ctx, p, fail, i)
	m := legendClose.FindStringSubmatch(legend)
	if m == nil || m[1] != row.TradeDate {
		fail("pointing at bar %d (%s), the legend says %q", i, row.TradeDate, legend)
	}
	if m[2] != cents(row.Close) {
		fail("%s: the legend shows the close %s, the API %s", row.TradeDate, m[2], cents(row.Close))
	}
	c, _ := strconv.ParseFloat(m[2], 64)
	return c
}

func cents(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

// checkEventLabels runs the page's formatter on the three kinds of event,
// with float32 noise as the API may carry it.
func checkEventLabels(t *testing.T, ctx context.Context, p *page, fail func(string, ...any)) {
	t.Helper()
	var got []string
	err := p.eval(ctx, `import('/assets/charts.js').then((m) => [
		{ cash_per_10: 6.900000095367432, bonus_per_10: 0, rights_per_10: 0, rights_price: 0 },
		{ cash_per_10: 1.5800000429153442, bonus_per_10: 2 },
		{ cash_per_10: 0, bonus_per_10: 0, rights_per_10: 3, rights_price: 8.5 },
		{ cash_per_10: 2.5, bonus_per_10: 10, rights_per_10: 3, rights_price: 12.34000015258789 },
	].map(m.eventLabel))`, &got)
	if err != nil {
		fail("run eventLabel: %v", err)
	}
	want := []string{"10派6.9", "10送2派1.58", "10配3 @8.5", "10送10派2.5配3 @12.34"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		fail("eventLabel: %q, want %q", got, want)
	}
}

// ---- a server without corporate actions ----------------------------------------

// stubUnavailable answers the adjusted bars and the corporate actions with
// the 503 a live server without the terminal's gbbq gives (the demo market
// always has actions); everything else is real.
const stubUnavailable = `(() => {
	const real = window.fetch;
	window.fetch = (url, init) => {
		const u = String(url);
		if (!u.startsWith('/v1/api/kline/adjusted') && !u.startsWith('/v1/api/corporate_actions')) return real(url, init);
		const body = JSON.stringify({ code: 0, message: 'service unavailable', retry_after: 1,
			detail: "no corporate actions imported: set tdx.dir to the terminal's folder (its T0002/hq_cache/gbbq is imported with the other terminal files) and refresh it" });
		return Promise.resolve(new Response(body, { status: 503, headers: { 'Content-Type': 'application/json', 'Retry-After': '1' } }));
	};
})()`

func checkAdjustedUnavailable(t *testing.T, ctx context.Context, b *browser, srv *server, artifacts string, fail func(string, ...any)) {
	t.Helper()
	p, err := b.newPage(ctx, 1440, 1000)
	if err != nil {
		fail("open a second page: %v", err)
	}
	if err := p.addScript(ctx, stubUnavailable); err != nil {
		fail("stub the 503: %v", err)
	}
	if err := p.navigate(ctx, srv.base+"/"); err != nil {
		fail("%v", err)
	}
	login(t, ctx, p, fail, "")
	waitForPanels(t, ctx, p, fail, func(s pageState) bool { return s.Candles > 0 })
	v := readKline(t, ctx, p, fail)
	if len(v.Marks) != 0 || !strings.Contains(v.Meta, "ex-dates unavailable (503)") || v.Label != "不复权" {
		fail("不复权 without corporate actions: %+v", v)
	}

	if err := p.click(ctx, `#kline-adj-switch label:has(input[value="qfq"])`); err != nil {
		fail("%v", err)
	}
	var st struct {
		State, Error, Label, Checked, Note string
		Candles, Enabled                   int
	}
	read := `(() => {
		const k = document.querySelector('#kline');
		const err = k.querySelector('.panel-error');
		return {
			state: k.dataset.state, error: err.hidden ? '' : err.textContent,
			label: document.querySelector('#kline-adj').textContent,
			checked: document.querySelector('#kline-adj-switch input:checked')?.value || '',
			candles: document.querySelectorAll('#kline-chart g.candle').length,
			note: document.querySelector('#kline-chart text')?.textContent || '',
			enabled: [...document.querySelectorAll('#kline-adj-switch input')].filter((e) => !e.disabled).length,
		};
	})()`
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		err := p.eval(ctx, read, &st)
		if err == nil && st.State == "error" {
			break
		}
		if time.Now().After(deadline) {
			fail("前复权 on a server without corporate actions: no error shown (%v): %+v", err, st)
		}
	}
	if !strings.HasPrefix(st.Error, "503 service unavailable — no corporate actions imported: set tdx.dir") ||
		st.Candles != 0 || st.Note != "No 前复权 bars (see above): 不复权 shows the prices as traded." ||
		st.Label != "前复权" || st.Checked != "qfq" || st.Enabled != 3 {
		fail("前复权 on a server without corporate actions: %+v", st)
	}
	if _, err := p.screenshot(ctx, artifacts+"/dashboard-adjusted-503.png"); err != nil {
		fail("screenshot: %v", err)
	}
	t.Logf("503 shown as %q", st.Error)

	p.clearTimings(ctx, fail)
	if err := p.click(ctx, `#kline-adj-switch label:has(input[value="none"])`); err != nil {
		fail("%v", err)
	}
	waitKline(t, ctx, p, fail, "600519.SH", "none")
	if err := p.eval(ctx, read, &st); err != nil || st.Error != "" || st.Candles == 0 {
		fail("back to 不复权 after the 503 (%v): %+v", err, st)
	}
}
