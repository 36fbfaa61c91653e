package dashboardtest

import (
	"context"
	"fmt"
	"math/big"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestDashboardLadder checks the 连板 ladder panel against the API's own
// answers (issue 31), on a fresh demo server, whose pools read the demo's
// own history (its store holds the last day's daily bars only). It picks a
// past day whose
// ladder has a rung of two boards or more (searching back through the
// API), shows it with the panel's date box and checks every rung (N板,
// its promotion from the day before as promoted/yesterday and the rate,
// its stocks' names and codes in order), the up, broken and down counts
// and the day's line; clicks a stock, which the K-line panel then shows;
// steps back with ‹ prev and checks that day too; picks a day without
// data (404: "no data for YYYY-MM-DD") and goes back with latest. A
// stubbed provisional answer (final false) shows the provisional tag and
// the quote list's time; a client without scope market gets a plain note.
// No view shows NaN or undefined, an error or the banner, and the page
// throws no exception.
func TestDashboardLadder(t *testing.T) {
	s := newSession(t)
	ctx, p, srv, b, artifacts, fail := s.ctx, s.p, s.srv, s.b, s.artifacts, s.fail
	api := &apiClient{base: srv.base, token: srv.token(t)}

	var latest ladderAnswer
	api.get(t, fail, "/v1/api/limit_ladder", &latest)
	day := chooseLadderDay(t, api, latest, fail)

	if err := p.navigate(ctx, srv.base+"/"); err != nil {
		fail("%v", err)
	}
	login(t, ctx, p, fail, "")
	v := waitLadder(t, ctx, p, fail, "the latest day", func(v ladderView) bool { return strings.HasPrefix(v.Meta, latest.Date+" ") })
	if latest.Final {
		checkLadder(t, fail, "the latest day", v, expectLadder(t, api, latest.Date, fail))
	} else if !v.Prov || v.Final != "false" {
		fail("today in session (final false) is not marked provisional: %+v", v)
	}

	// The day chosen, through the date box.
	pickLadderDate(t, ctx, p, fail, day)
	want := expectLadder(t, api, day, fail)
	v = waitLadder(t, ctx, p, fail, day, func(v ladderView) bool { return strings.HasPrefix(v.Meta, day+" ") })
	checkLadder(t, fail, day, v, want)
	t.Logf("%s: %s | %s", day, strings.Join(v.Counts, " · "), strings.Join(v.heads(), " | "))
	if _, err := p.screenshot(ctx, artifacts+"/dashboard-ladder.png"); err != nil {
		fail("screenshot: %v", err)
	}

	// A stock of the highest rung opens in the K-line panel.
	top := want.Rungs[0]
	code, name, _ := strings.Cut(top.codes[0], " ")
	p.clearTimings(ctx, fail)
	if err := p.click(ctx, fmt.Sprintf(`#ladder-rungs li.rung button.stock[data-code=%q]`, code)); err != nil {
		fail("%v", err)
	}
	waitKline(t, ctx, p, fail, code, "none")
	var title string
	if err := p.eval(ctx, `document.querySelector('#kline-title').textContent`, &title); err != nil || title != code+" "+name {
		fail("after clicking %s %s on the ladder, the K-line title is %q (%v)", name, code, title, err)
	}

	// ‹ prev: the trading day before, as the API names it.
	if err := p.click(ctx, "#ladder-prev"); err != nil {
		fail("%v", err)
	}
	prev := want.PrevDate
	v = waitLadder(t, ctx, p, fail, prev, func(v ladderView) bool { return strings.HasPrefix(v.Meta, prev+" ") })
	checkLadder(t, fail, prev, v, expectLadder(t, api, prev, fail))

	// A trading day without data: a note, not an error.
	empty := dayWithoutData(t, api, time.Now().In(shanghai).Format(time.DateOnly), fail)
	pickLadderDate(t, ctx, p, fail, empty)
	v = waitLadder(t, ctx, p, fail, empty, func(v ladderView) bool { return len(v.Notes) > 0 })
	if want := "no data for " + empty; !slices.Equal(v.Notes, []string{want}) || len(v.Rungs) != 0 || len(v.Counts) != 0 || v.Meta != "" {
		fail("a day without data: %+v, want the note %q alone", v, want)
	}
	if err := p.click(ctx, "#ladder-latest"); err != nil {
		fail("%v", err)
	}
	waitLadder(t, ctx, p, fail, "latest again", func(v ladderView) bool { return strings.HasPrefix(v.Meta, latest.Date+" ") })

	checkLadderProvisional(t, ctx, b, srv, fail)
	checkLadderWithoutMarket(t, ctx, b, srv, fail)

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

var shanghai = time.FixedZone("CST", 8*3600)

type ladderAnswer struct {
	Date     string  `json:"date"`
	PrevDate string  `json:"prev_date"`
	Source   string  `json:"source"`
	Final    bool    `json:"final"`
	AsOf     *string `json:"as_of"`
	Total    int     `json:"total"`
	Levels   []struct {
		Boards    int      `json:"boards"`
		Count     int      `json:"count"`
		Yesterday *int     `json:"yesterday"`
		Promoted  *int     `json:"promoted"`
		Rate      *float64 `json:"promotion_rate"`
		Items     []struct {
			Code string `json:"code"`
			Name string `json:"name"`
		} `json:"items"`
	} `json:"levels"`
	Promotion []struct {
		To        int      `json:"to_boards"`
		Yesterday int      `json:"yesterday"`
		Promoted  int      `json:"promoted"`
		Rate      *float64 `json:"rate"`
	} `json:"promotion"`
}

type poolAnswer struct {
	Date  string `json:"date"`
	Kind  string `json:"kind"`
	Total int    `json:"total"`
}

// chooseLadderDay answers the latest past final day (up to ten back)
// whose ladder has a rung of two boards or more, else the first with any
// rung.
func chooseLadderDay(t *testing.T, api *apiClient, latest ladderAnswer, fail func(string, ...any)) string {
	t.Helper()
	day := latest.Date
	if !latest.Final {
		day = latest.PrevDate
	}
	first := ""
	for i := 0; i < 10; i++ {
		var a ladderAnswer
		api.get(t, fail, "/v1/api/limit_ladder?date="+day, &a)
		if a.Final && len(a.Levels) > 0 {
			if a.Levels[0].Boards >= 2 {
				return day
			}
			if first == "" {
				first = day
			}
		}
		day = a.PrevDate
	}
	if first == "" {
		fail("no ladder with a rung in the ten days before %s", latest.Date)
	}
	t.Logf("no two-board rung in the ten days before %s: checking %s", latest.Date, first)
	return first
}

// dayWithoutData answers a trading day the API has no ladder of (404):
// about a year before the back-fill, before the K-line panel's six months.
func dayWithoutData(t *testing.T, api *apiClient, from string, fail func(string, ...any)) string {
	t.Helper()
	// The pools are derived back through the demo's whole daily history
	// (years; a day before the security master's record from the bars), so
	// the day is sought before it begins.
	from0, _ := time.Parse(time.DateOnly, from)
	for _, years := range []int{1, 5, 10, 16, 20, 30} {
		d := from0.AddDate(-years, 0, 0)
		for i := 0; i < 15; i, d = i+1, d.AddDate(0, 0, -1) {
			var a ladderAnswer
			status, _ := api.try(t, fail, "/v1/api/limit_ladder?date="+d.Format(time.DateOnly), &a)
			if status == http.StatusNotFound {
				return d.Format(time.DateOnly)
			}
			if status == http.StatusOK {
				break // a trading day with data: further back
			}
		}
	}
	fail("no day without data found up to 30 years before %s", from)
	return ""
}

// rungView is one rung as the page shows it, or as it should: the head's
// texts (N板, the promotion, the number of stocks) and "name code" of
// each stock in order.
type rungView struct {
	Boards string   `json:"boards"`
	Head   []string `json:"head"`
	Stocks []string `json:"stocks"`
	codes  []string // "code name", expected only
}

type ladderView struct {
	State, Final, Meta, Date, Error, Banner string
	Prov, Busy, Garbage                     bool
	Counts, Notes                           []string
	Rungs                                   []rungView
}

func (v ladderView) heads() []string {
	var out []string
	for _, r := range v.Rungs {
		out = append(out, strings.Join(r.Head, " "))
	}
	return out
}

type ladderExpect struct {
	Meta, PrevDate string
	Counts         []string
	Rungs          []rungView
}

// expectLadder asks the API for day's ladder and its broken and down
// pools and builds what the panel should show of them.
func expectLadder(t *testing.T, api *apiClient, day string, fail func(string, ...any)) ladderExpect {
	t.Helper()
	var a ladderAnswer
	var broken, down poolAnswer
	api.get(t, fail, "/v1/api/limit_ladder?date="+day, &a)
	api.get(t, fail, "/v1/api/limit_pool?kind=broken&date="+day, &broken)
	api.get(t, fail, "/v1/api/limit_pool?kind=down&date="+day, &down)
	if !a.Final || broken.Date != day || down.Date != day || broken.Kind != "broken" || down.Kind != "down" {
		fail("the API's answers for %s: ladder %+v, broken %+v, down %+v", day, a, broken, down)
	}
	e := ladderExpect{
		Meta:     fmt.Sprintf("%s · promotion from %s · source %s", a.Date, a.PrevDate, a.Source),
		PrevDate: a.PrevDate,
		Counts: []string{"up 涨停 " + grouped(int64(a.Total)), "broken 炸板 " + grouped(int64(broken.Total)),
			"down 跌停 " + grouped(int64(down.Total))},
	}
	type rung struct {
		boards              int
		yesterday, promoted *int
		rate                *float64
		stocks, codes       []string
	}
	var rs []rung
	for _, l := range a.Levels {
		r := rung{boards: l.Boards, yesterday: l.Yesterday, promoted: l.Promoted, rate: l.Rate}
		for _, it := range l.Items {
			r.stocks = append(r.stocks, it.Name+" "+it.Code)
			r.codes = append(r.codes, it.Code+" "+it.Name)
		}
		if l.Count != len(l.Items) {
			fail("%s: rung %d counts %d, lists %d", day, l.Boards, l.Count, len(l.Items))
		}
		rs = append(rs, r)
	}
	// The day before's rungs none was promoted from show as empty rungs.
	for _, pr := range a.Promotion {
		if !slices.ContainsFunc(rs, func(r rung) bool { return r.boards == pr.To }) {
			rs = append(rs, rung{boards: pr.To, yesterday: &pr.Yesterday, promoted: &pr.Promoted, rate: pr.Rate})
		}
	}
	slices.SortStableFunc(rs, func(x, y rung) int { return y.boards - x.boards })
	for _, r := range rs {
		promo := "first board 首板"
		if r.boards > 1 {
			rate := "—"
			if r.rate != nil {
				rate = toFixed1(*r.rate*100) + "%"
			}
			promo = fmt.Sprintf("%s/%s 晋级 %s", grouped(int64(*r.promoted)), grouped(int64(*r.yesterday)), rate)
		}
		stocks := r.stocks
		if len(stocks) == 0 {
			stocks = []string{}
		}
		e.Rungs = append(e.Rungs, rungView{Boards: fmt.Sprint(r.boards), Head: []string{fmt.Sprintf("%d板", r.boards), promo, plural(len(r.stocks), "stock")},
			Stocks: stocks, codes: r.codes})
	}
	return e
}

// toFixed1 is JavaScript's v.toFixed(1) for v ≥ 0: the nearest tenth of
// v's exact value, the larger on a tie.
func toFixed1(v float64) string {
	x := new(big.Float).SetPrec(200).SetFloat64(v)
	x.Mul(x, big.NewFloat(10))
	x.Add(x, big.NewFloat(0.5))
	n, _ := x.Int(nil) // truncates: the floor for v ≥ 0
	s := n.String()
	if len(s) < 2 {
		s = "0" + s
	}
	return s[:len(s)-1] + "." + s[len(s)-1:]
}

// checkLadder compares the panel with what the API's answers say.
func checkLadder(t *testing.T, fail func(string, ...any), what string, v ladderView, e ladderExpect) {
	t.Helper()
	if v.Meta != e.Meta || v.Final != "true" || v.Prov {
		fail("%s: the day's line %q (final %q, provisional tag %v), want %q, final", what, v.Meta, v.Final, v.Prov, e.Meta)
	}
	if !slices.Equal(v.Counts, e.Counts) {
		fail("%s: counts %q, want %q", what, v.Counts, e.Counts)
	}
	if len(v.Rungs) != len(e.Rungs) {
		fail("%s: %d rungs %q, want %d %q", what, len(v.Rungs), v.heads(), len(e.Rungs), ladderView{Rungs: e.Rungs}.heads())
	}
	for i, r := range e.Rungs {
		got := v.Rungs[i]
		if got.Boards != r.Boards || !slices.Equal(got.Head, r.Head) || !slices.Equal(got.Stocks, r.Stocks) {
			fail("%s: rung %d shows %+v, want %+v", what, i, got, r)
		}
	}
	if len(e.Rungs) == 0 && !slices.Equal(v.Notes, []string{"No limit-up on " + e.Meta[:10] + "."}) {
		fail("%s: no rung, notes %q", what, v.Notes)
	}
}

const readLadder = `(() => {
	const s = document.querySelector('#ladder');
	const err = s.querySelector('.panel-error');
	const banner = document.querySelector('#banner');
	const texts = (root, sel) => [...root.querySelectorAll(sel)].map((e) => e.textContent);
	return {
		state: s.dataset.state, busy: s.hasAttribute('aria-busy'), final: s.dataset.final || '',
		prov: !document.querySelector('#ladder-prov').hidden,
		meta: document.querySelector('#ladder-meta').textContent,
		date: document.querySelector('#ladder-date').value,
		counts: texts(s, '#ladder-counts .count'),
		notes: texts(s, '#ladder-rungs > li.muted'),
		rungs: [...s.querySelectorAll('#ladder-rungs > li.rung')].map((li) => ({
			boards: li.dataset.boards,
			head: texts(li, '.rung-head > span'),
			stocks: [...li.querySelectorAll('button.stock')].map((b) =>
				b.querySelector('.name').textContent + ' ' + b.querySelector('small').textContent +
				(b.dataset.code === b.querySelector('small').textContent ? '' : ' data-code ' + b.dataset.code)),
		})),
		error: err.hidden ? '' : err.textContent,
		banner: banner.hidden ? '' : banner.textContent,
		garbage: /NaN|undefined/.test(s.textContent),
	};
})()`

// waitLadder waits until the panel has loaded and shows what done asks
// for, and fails when it shows an error, the banner, NaN or undefined.
func waitLadder(t *testing.T, ctx context.Context, p *page, fail func(string, ...any), what string, done func(ladderView) bool) ladderView {
	t.Helper()
	var v ladderView
	for deadline := time.Now().Add(40 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		err := p.eval(ctx, readLadder, &v)
		if err == nil && (v.State == "ready" || v.State == "error") && !v.Busy && (v.State == "error" || done(v)) {
			break
		}
		if time.Now().After(deadline) {
			fail("the ladder did not show %s (%v): %+v", what, err, v)
		}
	}
	if v.State != "ready" || v.Error != "" || v.Banner != "" || v.Garbage {
		fail("the ladder showing %s: %+v", what, v)
	}
	return v
}

// pickLadderDate sets the panel's date box as a date picker does.
func pickLadderDate(t *testing.T, ctx context.Context, p *page, fail func(string, ...any), day string) {
	t.Helper()
	err := p.eval(ctx, fmt.Sprintf(`(() => {
		const e = document.querySelector('#ladder-date');
		e.value = %q;
		e.dispatchEvent(new Event('change', { bubbles: true }));
		return e.value;
	})()`, day), nil)
	if err != nil {
		fail("pick %s: %v", day, err)
	}
}

// stubProvisional has every ladder answer say it is provisional, as
// today's is during the session.
const stubProvisional = `(() => {
	const real = window.fetch;
	window.fetch = async (url, init) => {
		const res = await real(url, init);
		if (!String(url).startsWith('/v1/api/limit_ladder') || !res.ok) return res;
		const body = await res.json();
		body.data.final = false;
		body.data.as_of = body.data.date + ' 10:31:05';
		return new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json' } });
	};
})()`

func checkLadderProvisional(t *testing.T, ctx context.Context, b *browser, srv *server, fail func(string, ...any)) {
	t.Helper()
	p, err := b.newPage(ctx, 1440, 1000)
	if err != nil {
		fail("open a page: %v", err)
	}
	if err := p.addScript(ctx, stubProvisional); err != nil {
		fail("stub the ladder: %v", err)
	}
	if err := p.navigate(ctx, srv.base+"/"); err != nil {
		fail("%v", err)
	}
	login(t, ctx, p, fail, "")
	v := waitLadder(t, ctx, p, fail, "a provisional day", func(v ladderView) bool { return v.Meta != "" })
	if !v.Prov || v.Final != "false" || !strings.HasPrefix(v.Meta, v.Date+" as of 10:31:05 · promotion from ") {
		fail("a provisional answer: %+v, want the provisional tag and the quote list's time", v)
	}
}

// checkLadderWithoutMarket logs in as a client with the scopes kline and
// hot_rank only: the API refuses it the ladder (403), and the panel says
// so plainly, without an error.
func checkLadderWithoutMarket(t *testing.T, ctx context.Context, b *browser, srv *server, fail func(string, ...any)) {
	t.Helper()
	srv.run(t, "client", "add", "-id", "viewer", "-secret", "viewer-secret", "-scopes", "kline,hot_rank")
	viewer := &apiClient{base: srv.base, token: srv.tokenAs(t, "viewer", "viewer-secret")}
	var none struct{}
	for _, path := range []string{"/v1/api/limit_ladder", "/v1/api/limit_pool?kind=broken"} {
		if status, msg := viewer.try(t, fail, path, &none); status != http.StatusForbidden {
			fail("%s for a client without scope market: %d %s, want 403", path, status, msg)
		}
	}
	p, err := b.newPage(ctx, 1440, 1000)
	if err != nil {
		fail("open a page: %v", err)
	}
	if err := p.navigate(ctx, srv.base+"/"); err != nil {
		fail("%v", err)
	}
	loginAs(t, ctx, p, fail, "", "viewer", "viewer-secret")
	v := waitLadder(t, ctx, p, fail, "the note without scope market", func(v ladderView) bool { return len(v.Notes) > 0 })
	if !slices.Equal(v.Notes, []string{"not shown: this client lacks scope market"}) || len(v.Rungs) != 0 || len(v.Counts) != 0 || v.Meta != "" {
		fail("the ladder without scope market: %+v", v)
	}
}
