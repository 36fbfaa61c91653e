package dashboardtest

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestDashboardArchiveLine checks the minute archive's status line under
// the header against the API's answers: on a new store it says nothing is
// archived yet and how many days are pending; after `mdqs archive run`
// has kept three codes' due days (the command shares the server's job's
// code) a reload shows the status's days, bars, bytes a bar, gaps,
// flagged and pending, and the quality of its latest day, figure for
// figure; a day whose sources disagree (a stubbed quality answer: the
// demo's daily bar is its minutes' aggregate, so its fields always agree)
// names the worst field and its rate; and a client without scope market
// sees a plain note while the panels it may read still load, with no
// error shown and no exception.
func TestDashboardArchiveLine(t *testing.T) {
	s := newSession(t)
	ctx, p, srv, b, artifacts, fail := s.ctx, s.p, s.srv, s.b, s.artifacts, s.fail
	api := &apiClient{base: srv.base, token: srv.token(t)}

	var st archiveStatus
	api.get(t, fail, "/v1/api/archive/status", &st)
	if len(st.Days) != 0 || len(st.Pending) == 0 {
		fail("a new store's archive status: %+v, want no days and some pending", st)
	}
	if err := p.navigate(ctx, srv.base+"/"); err != nil {
		fail("%v", err)
	}
	login(t, ctx, p, fail, "")
	line := waitArchiveLine(t, ctx, p, fail)
	if want := "nothing archived yet · " + plural(len(st.Pending), "day") + " pending"; line.Archive != want || line.Quality != "" {
		fail("the line on a new store: %+v, want %q", line, want)
	}

	codes := []string{"600519.SH", "000001.SZ", "300750.SZ"}
	t.Logf("%s", strings.TrimSpace(srv.run(t, "archive", "run", "-codes", strings.Join(codes, ","))))
	api.get(t, fail, "/v1/api/archive/status", &st)
	if len(st.Days) == 0 || st.Bars != int64(240*len(codes)*len(st.Days)) || st.BytesPerBar == nil {
		fail("the status after archiving %d codes: %+v", len(codes), st)
	}
	last := st.Days[len(st.Days)-1].Date
	var q qualityAnswer
	api.get(t, fail, "/v1/api/quality?date="+last, &q)
	if q.Archived != len(codes) || q.Universe <= q.Archived || q.Missing != q.Universe-q.Archived-q.Flagged-q.Gaps {
		fail("the quality of %s: %+v", last, q)
	}
	// The line is read at load and every 5 minutes: a reload (the session
	// is kept in the tab) shows the new figures now.
	if err := p.navigate(ctx, srv.base+"/"); err != nil {
		fail("%v", err)
	}
	line = waitArchiveLine(t, ctx, p, fail)
	if want := st.line(); line.Archive != want {
		fail("archive line %q, want %q from %+v", line.Archive, want, st)
	}
	if want := q.line(); line.Quality != want {
		fail("quality line %q, want %q from %+v", line.Quality, want, q)
	}
	if line.Top < 0 || line.Bottom > 1000 || line.Width < 600 {
		fail("the line is not in the first screen: %+v", line)
	}
	t.Logf("shown: %s | %s", line.Archive, line.Quality)
	if _, err := p.screenshot(ctx, artifacts+"/dashboard-archive.png"); err != nil {
		fail("screenshot: %v", err)
	}

	checkWorstField(t, ctx, b, srv, fail)
	checkWithoutMarketScope(t, ctx, b, srv, fail)

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

type archiveStatus struct {
	Days []struct {
		Date    string `json:"date"`
		Flagged int    `json:"flagged"`
		Gaps    int    `json:"gaps"`
	} `json:"days"`
	Pending     []string `json:"pending"`
	Bars        int64    `json:"bars"`
	BytesPerBar *float64 `json:"bytes_per_bar"`
}

// line is what the page should show for the status.
func (st archiveStatus) line() string {
	gaps, flagged := 0, 0
	for _, d := range st.Days {
		gaps += d.Gaps
		flagged += d.Flagged
	}
	owed := "up to date"
	if len(st.Pending) > 0 {
		owed = plural(len(st.Pending), "day") + " pending"
	}
	perBar := "—"
	if st.BytesPerBar != nil {
		perBar = strconv.FormatFloat(*st.BytesPerBar, 'f', 2, 64)
	}
	return fmt.Sprintf("%s %s..%s · %s bars · %s B/bar · %s · %s flagged · %s", plural(len(st.Days), "day"),
		st.Days[0].Date, st.Days[len(st.Days)-1].Date, grouped(st.Bars), perBar, plural(gaps, "gap"), grouped(int64(flagged)), owed)
}

type qualityAnswer struct {
	Date     string `json:"date"`
	Universe int    `json:"universe"`
	Archived int    `json:"archived"`
	Flagged  int    `json:"flagged"`
	Gaps     int    `json:"gaps"`
	Missing  int    `json:"missing"`
	Compared int    `json:"compared"`
	Fields   []struct {
		Field    string   `json:"field"`
		Compared int      `json:"compared"`
		Disagree int      `json:"disagree"`
		Rate     *float64 `json:"rate"`
	} `json:"fields"`
}

// line is what the page should show for the day's quality: the field with
// the highest rate (the first of equals), or that none disagrees.
func (q qualityAnswer) line() string {
	worst := -1
	for i, f := range q.Fields {
		if f.Rate != nil && (worst < 0 || *f.Rate > *q.Fields[worst].Rate) {
			worst = i
		}
	}
	agree := "nothing compared"
	if worst >= 0 {
		f := q.Fields[worst]
		agree = fmt.Sprintf("no field disagrees (%s compared)", grouped(int64(q.Compared)))
		if *f.Rate > 0 {
			agree = fmt.Sprintf("worst %s %.2f%% (%s/%s)", f.Field, *f.Rate*100, grouped(int64(f.Disagree)), grouped(int64(f.Compared)))
		}
	}
	return fmt.Sprintf("%s: %s/%s archived · %s flagged · %s missing · %s", q.Date, grouped(int64(q.Archived)),
		grouped(int64(q.Universe)), grouped(int64(q.Flagged)), grouped(int64(q.Missing)), agree)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return grouped(int64(n)) + " " + word + "s"
}

// grouped writes n with thousands separators, as the page's
// toLocaleString('en-US') does.
func grouped(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// archiveLine is what the status line shows.
type archiveLine struct {
	State, Archive, Quality, Error, Banner string
	Garbage                                bool // NaN or undefined in the line
	Top, Bottom, Width                     float64
}

const readArchiveLine = `(() => {
	const s = document.querySelector('#archive');
	const err = s.querySelector('.panel-error');
	const banner = document.querySelector('#banner');
	const r = s.getBoundingClientRect();
	return {
		state: s.dataset.state,
		archive: document.querySelector('#archive-line').textContent,
		quality: document.querySelector('#quality-line').textContent,
		error: err.hidden ? '' : err.textContent,
		banner: banner.hidden ? '' : banner.textContent,
		garbage: /NaN|undefined/.test(s.textContent),
		top: r.top, bottom: r.bottom, width: r.width,
	};
})()`

// waitArchiveLine waits for the line's first load to end and fails when
// it shows an error, the banner shows one, or the line shows NaN or
// undefined.
func waitArchiveLine(t *testing.T, ctx context.Context, p *page, fail func(string, ...any)) archiveLine {
	t.Helper()
	var l archiveLine
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		err := p.eval(ctx, readArchiveLine, &l)
		if err == nil && (l.State == "ready" || l.State == "error") && l.Archive != "" {
			break
		}
		if time.Now().After(deadline) {
			fail("the archive line did not load (%v): %+v", err, l)
		}
	}
	if l.State != "ready" || l.Error != "" || l.Banner != "" || l.Garbage {
		fail("the archive line: %+v", l)
	}
	return l
}

// stubQuality answers the quality of any day with sources that disagree,
// and a field nothing was compared of; the status is the server's.
const stubQuality = `(() => {
	const real = window.fetch;
	window.fetch = (url, init) => {
		if (!String(url).startsWith('/v1/api/quality?')) return real(url, init);
		const f = (field, compared, disagree) => ({ field, compared, disagree, rate: compared ? disagree / compared : null, tolerance: '', worst: [] });
		const data = { date: '2026-11-27', as_of: '2026-11-27 16:00:00', universe: 5248, archived: 5200, flagged: 12, gaps: 30,
			missing: 6, derived_opens: 0, compared: 40, sources: { minutes: {}, day: {} },
			fields: [f('open', 0, 0), f('high', 40, 0), f('close', 40, 1), f('volume', 40, 3), f('amount', 40, 3)] };
		const body = JSON.stringify({ code: 1, message: 'OK', data });
		return Promise.resolve(new Response(body, { status: 200, headers: { 'Content-Type': 'application/json' } }));
	};
})()`

func checkWorstField(t *testing.T, ctx context.Context, b *browser, srv *server, fail func(string, ...any)) {
	t.Helper()
	p, err := b.newPage(ctx, 1440, 1000)
	if err != nil {
		fail("open a second page: %v", err)
	}
	if err := p.addScript(ctx, stubQuality); err != nil {
		fail("stub the quality: %v", err)
	}
	if err := p.navigate(ctx, srv.base+"/"); err != nil {
		fail("%v", err)
	}
	login(t, ctx, p, fail, "")
	line := waitArchiveLine(t, ctx, p, fail)
	// volume and amount disagree as often: the first is named.
	if want := "2026-11-27: 5,200/5,248 archived · 12 flagged · 6 missing · worst volume 7.50% (3/40)"; line.Quality != want {
		fail("quality line %q, want %q", line.Quality, want)
	}
}

// checkWithoutMarketScope logs in as a client with the scopes kline and
// hot_rank only: the API refuses it the archive (403), and the line says
// so plainly while the K-line and the hot rank load.
func checkWithoutMarketScope(t *testing.T, ctx context.Context, b *browser, srv *server, fail func(string, ...any)) {
	t.Helper()
	srv.run(t, "client", "add", "-id", "viewer", "-secret", "viewer-secret", "-scopes", "kline,hot_rank")
	viewer := &apiClient{base: srv.base, token: srv.tokenAs(t, "viewer", "viewer-secret")}
	var none struct{}
	if status, msg := viewer.try(t, fail, "/v1/api/archive/status", &none); status != 403 {
		fail("the archive status for a client without scope market: %d %s, want 403", status, msg)
	}
	p, err := b.newPage(ctx, 1440, 1000)
	if err != nil {
		fail("open a page: %v", err)
	}
	if err := p.navigate(ctx, srv.base+"/"); err != nil {
		fail("%v", err)
	}
	loginAs(t, ctx, p, fail, "", "viewer", "viewer-secret")
	line := waitArchiveLine(t, ctx, p, fail)
	if line.Archive != "not shown: this client lacks scope market" || line.Quality != "" {
		fail("the line without scope market: %+v", line)
	}
	var st pageState
	for deadline := time.Now().Add(30 * time.Second); st.States["kline"] != "ready" || st.States["hotrank"] != "ready"; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			fail("without scope market, the K-line and the hot rank did not load:\n%s", st)
		}
		p.eval(ctx, readState, &st)
	}
	if st.Candles == 0 || st.HotRows == 0 || st.Who != "client viewer" {
		fail("without scope market:\n%s", st)
	}
}
