package dashboardtest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestDashboardInChromium builds mdqs, serves the demo market, opens the
// dashboard in headless Chromium, logs in as the demo client (typed into
// the login dialog), waits for the four panels, checks what they drew,
// checks the page's MD5 against crypto/md5, forces a re-login by evicting
// the page's token, and saves a screenshot.
//
// The screenshot goes to $MDQS_ARTIFACTS/dashboard.png when that variable
// names a folder, else to the test's temporary folder (removed afterwards).
func TestDashboardInChromium(t *testing.T) {
	s := newSession(t)
	ctx, p, srv, b, artifacts, fail := s.ctx, s.p, s.srv, s.b, s.artifacts, s.fail

	if err := p.navigate(ctx, srv.base+"/"); err != nil {
		fail("%v", err)
	}
	// No token yet: the login dialog opens. Type the demo credentials.
	login(t, ctx, p, fail, "")

	st := waitForPanels(t, ctx, p, fail, func(s pageState) bool { return true })
	checkRendered(t, st, fail)
	if st.KlineTitle != "600519.SH" && !strings.HasPrefix(st.KlineTitle, "600519.SH ") {
		fail("K-line title %q, want the default code 600519.SH", st.KlineTitle)
	}
	// The secret is kept nowhere; the token only in sessionStorage.
	if st.SecretField != "" || strings.Contains(st.Storage, "demo-secret") || st.LocalCount != 0 {
		fail("the secret or the session leaked: secret field %q, storage %s, localStorage entries %d", st.SecretField, st.Storage, st.LocalCount)
	}

	checkMD5(t, ctx, p, fail)
	checkProvisional(t, ctx, p, fail)

	shot := filepath.Join(artifacts, "dashboard.png")
	data, err := p.screenshot(ctx, shot)
	if err != nil {
		fail("screenshot: %v", err)
	}
	checkPNG(t, data, fail)
	t.Logf("screenshot: %s (%d bytes)", shot, len(data))

	// Re-login on 401: issuing 20 more tokens for the demo client evicts
	// the page's token (auth.token_max_per_client = 20). The next request
	// (another code's K-line) is refused, the dialog asks again, and the
	// request goes through after the login.
	for i := 0; i < 20; i++ {
		srv.token(t)
	}
	err = p.eval(ctx, `(() => {
		document.querySelector('#kline-code').value = '000001.SZ';
		document.querySelector('#kline-form').requestSubmit();
		return true;
	})()`, nil)
	if err != nil {
		fail("ask for 000001.SZ: %v", err)
	}
	login(t, ctx, p, fail, "Session ended")
	before := st.Legend
	st = waitForPanels(t, ctx, p, fail, func(s pageState) bool { return strings.HasPrefix(s.KlineTitle, "000001.SZ") && s.Candles > 0 })
	checkRendered(t, st, fail)
	if st.Legend == before {
		fail("the K-line of 000001.SZ shows 600519.SH's last bar: %q", st.Legend)
	}

	checkTimeline(t, ctx, b, srv, artifacts, fail)

	// Uncaught exceptions and CSP violations fail the test; other console
	// errors are reported.
	exceptions, entries := b.collected()
	for _, e := range exceptions {
		fail("uncaught exception in the page: %s", e)
	}
	for _, e := range entries {
		if e.Source == "security" {
			fail("security error in the page: %s", e.Text)
		}
		if e.Level == "error" && !strings.Contains(e.Text, "401") {
			t.Logf("page console: %s %s %s", e.Level, e.Text, e.URL)
		}
	}
}

// pageState is what the page shows, read in one evaluation.
type pageState struct {
	MD5         string            `json:"md5"`
	LoginOpen   bool              `json:"loginOpen"`
	LoginReason string            `json:"loginReason"`
	States      map[string]string `json:"states"`
	InBars      int               `json:"inBars"`
	OutBars     int               `json:"outBars"`
	Labels      []string          `json:"labels"`
	RankingMeta string            `json:"rankingMeta"`
	Candles     int               `json:"candles"`
	Provisional int               `json:"provisional"`
	Volumes     int               `json:"volumes"`
	MA5         int               `json:"ma5"`
	MA20        int               `json:"ma20"`
	KlineTitle  string            `json:"klineTitle"`
	Legend      string            `json:"legend"`
	HotRows     int               `json:"hotRows"`
	Moves       int               `json:"moves"`
	MovesMeta   string            `json:"movesMeta"`
	Errors      []string          `json:"errors"`
	Who         string            `json:"who"`
	SecretField string            `json:"secretField"`
	Storage     string            `json:"storage"`
	LocalCount  int               `json:"localCount"`
	WatchRows   int               `json:"watchRows"`
	Stream      string            `json:"stream"`
}

const readState = `(() => {
	const q = (s) => document.querySelectorAll(s).length;
	const text = (s) => (document.querySelector(s)?.textContent || '').trim();
	const states = {};
	for (const id of ['ranking', 'movements', 'kline', 'hotrank', 'watchlist']) states[id] = document.getElementById(id).dataset.state;
	return {
		md5: document.body.dataset.md5 || '',
		loginOpen: document.querySelector('#login').open,
		loginReason: text('#login-reason'),
		states,
		inBars: q('#ranking-in rect.bar'),
		outBars: q('#ranking-out rect.bar'),
		labels: [...document.querySelectorAll('#ranking-in text.label')].map((e) => e.textContent),
		rankingMeta: text('#ranking-meta'),
		candles: q('#kline-chart g.candle'),
		provisional: q('#kline-chart g.candle.provisional'),
		volumes: q('#kline-chart rect.vol'),
		ma5: q('#kline-chart path.ma5'),
		ma20: q('#kline-chart path.ma20'),
		klineTitle: text('#kline-title'),
		legend: text('#kline-legend'),
		hotRows: q('#hotrank-rows tr'),
		moves: q('#movements-list li'),
		movesMeta: text('#movements-meta'),
		errors: [...document.querySelectorAll('.error')].filter((e) => !e.hidden && e.offsetParent !== null).map((e) => e.textContent),
		who: text('#who'),
		secretField: document.querySelector('#login-secret').value,
		storage: JSON.stringify({ session: { ...sessionStorage }, local: { ...localStorage } }),
		localCount: localStorage.length,
		watchRows: q('#watch-rows tr'),
		stream: document.querySelector('#live').dataset.stream,
	};
})()`

func (s pageState) String() string {
	b, _ := json.MarshalIndent(s, "", "  ")
	return string(b)
}

// login waits for the login dialog (whose reason contains reason), types
// the demo credentials and submits.
func login(t *testing.T, ctx context.Context, p *page, fail func(string, ...any), reason string) {
	t.Helper()
	loginAs(t, ctx, p, fail, reason, "demo", "demo-secret")
}

// loginAs is login with another client's id and secret.
func loginAs(t *testing.T, ctx context.Context, p *page, fail func(string, ...any), reason, id, secret string) {
	t.Helper()
	var st pageState
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := p.eval(ctx, readState, &st)
		if err == nil && st.MD5 == "fail" {
			fail("the page's MD5 self-test fails: it cannot sign requests")
		}
		if err == nil && st.LoginOpen && strings.Contains(st.LoginReason, reason) {
			break
		}
		if time.Now().After(deadline) {
			fail("the login dialog did not open (reason %q):\n%s", reason, st)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if st.MD5 != "ok" {
		fail("the page's MD5 self-test says %q", st.MD5)
	}
	// The token endpoint is rate-limited per address (limits.token_rate):
	// a 429 in the dialog is retried after a pause, as a user would.
	for attempt := 1; ; attempt++ {
		for _, f := range []struct{ sel, text string }{{"#login-id", id}, {"#login-secret", secret}} {
			if err := p.eval(ctx, fmt.Sprintf(`(() => { const e = document.querySelector(%q); e.value = ''; e.focus(); return true; })()`, f.sel), nil); err != nil {
				fail("focus %s: %v", f.sel, err)
			}
			if err := p.typeText(ctx, f.text); err != nil {
				fail("type into %s: %v", f.sel, err)
			}
		}
		if err := p.eval(ctx, `(() => { document.querySelector('#login-submit').click(); return true; })()`, nil); err != nil {
			fail("submit the login: %v", err)
		}
		var out struct {
			Open  bool   `json:"open"`
			Error string `json:"error"`
		}
		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			err := p.eval(ctx, `(() => {
				const e = document.querySelector('#login-error');
				return { open: document.querySelector('#login').open, error: e.hidden ? '' : e.textContent };
			})()`, &out)
			if err == nil && (!out.Open || out.Error != "") {
				break
			}
			if time.Now().After(deadline) {
				fail("the login neither closed the dialog nor showed an error (%v)", err)
			}
		}
		switch {
		case !out.Open:
			return
		case strings.HasPrefix(out.Error, "429 ") && attempt < 5:
			time.Sleep(1500 * time.Millisecond)
		default:
			fail("login as %s failed: %s", id, out.Error)
		}
	}
}

// waitForPanels polls until every panel has loaded (and done also holds),
// failing with the page's state after a minute.
func waitForPanels(t *testing.T, ctx context.Context, p *page, fail func(string, ...any), done func(pageState) bool) pageState {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	var st pageState
	for {
		err := p.eval(ctx, readState, &st)
		if err == nil && !st.LoginOpen && done(st) && st.States["ranking"] == "ready" && st.States["kline"] == "ready" &&
			st.States["hotrank"] == "ready" && st.States["movements"] == "ready" && st.States["watchlist"] == "ready" {
			return st
		}
		if time.Now().After(deadline) {
			fail("the dashboard did not finish loading (eval error %v):\n%s", err, st)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

var cjk = regexp.MustCompile(`\p{Han}`)

// checkRendered asserts on what the panels drew.
func checkRendered(t *testing.T, st pageState, fail func(string, ...any)) {
	t.Helper()
	switch {
	case len(st.Errors) > 0:
		fail("the page shows errors %q:\n%s", st.Errors, st)
	case st.InBars == 0 || st.OutBars == 0 || st.InBars > 15 || st.OutBars > 15:
		fail("ranking bars: %d inflow, %d outflow, want 1-15 each:\n%s", st.InBars, st.OutBars, st)
	case !regexp.MustCompile(`^\d{4}-\d{2}-\d{2} · source demo · updated \d{2}:\d{2}:\d{2}$`).MatchString(st.RankingMeta):
		fail("ranking day and source %q", st.RankingMeta)
	case len(st.Labels) == 0 || !cjk.MatchString(strings.Join(st.Labels, "")):
		fail("ranking labels %q: want the sectors' Chinese names", st.Labels)
	case st.Candles < 60:
		fail("%d candles for about six months of daily bars:\n%s", st.Candles, st)
	case st.Volumes != st.Candles || st.MA5 != 1 || st.MA20 != 1:
		fail("K-line: %d volume bars for %d candles, %d MA5 and %d MA20 lines", st.Volumes, st.Candles, st.MA5, st.MA20)
	case !strings.Contains(st.Legend, "MA20"):
		fail("K-line legend %q", st.Legend)
	case st.WatchRows != 4:
		fail("watchlist rows %d, want the 4 default codes", st.WatchRows)
	case st.HotRows != 20:
		fail("hot rank rows %d, want 20", st.HotRows)
	case st.Moves == 0 || !strings.Contains(st.MovesMeta, "events"):
		fail("movement timeline: %d items, meta %q", st.Moves, st.MovesMeta)
	case st.Who != "client demo":
		fail("session shown as %q", st.Who)
	}
	t.Logf("rendered: %d+%d ranking bars (%s), %d candles (%d forming), %d hot-rank rows, %d timeline rows, %d watchlist rows, stream %s",
		st.InBars, st.OutBars, st.RankingMeta, st.Candles, st.Provisional, st.HotRows, st.Moves, st.WatchRows, st.Stream)
}

// checkMD5 compares the page's MD5 (the module the dashboard signs with)
// with crypto/md5: RFC 1321's vectors, every length around the padding
// boundaries, multi-byte UTF-8, a signature's input and a large body.
func checkMD5(t *testing.T, ctx context.Context, p *page, fail func(string, ...any)) {
	t.Helper()
	inputs := []string{"", "a", "abc", "message digest", "abcdefghijklmnopqrstuvwxyz",
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
		"12345678901234567890123456789012345678901234567890123456789012345678901234567890",
		"贵州茅台", "半导体 概念 €𝄞", strings.Repeat("0123456789abcdef", 4) + "1795158000" + "3f2a9c0e7b1d4a6f8e0c2b4d6f8a0c1e" + `{"expression":"price > ma20"}`,
		strings.Repeat("板块x", 40000)}
	for n := 0; n <= 200; n++ {
		var sb strings.Builder
		for i := 0; i < n; i++ {
			sb.WriteByte(byte(33 + (i*7+n)%94))
		}
		inputs = append(inputs, sb.String())
	}
	js, _ := json.Marshal(inputs)
	var got struct {
		Self []string `json:"self"`
		Out  []string `json:"out"`
	}
	err := p.eval(ctx, `import('/assets/md5.js').then((m) => ({ self: m.selfTest(), out: `+string(js)+`.map(m.md5Hex) }))`, &got)
	if err != nil {
		fail("run md5.js in the page: %v", err)
	}
	if len(got.Self) != 0 {
		fail("md5.js self-test fails for %q", got.Self)
	}
	if len(got.Out) != len(inputs) {
		fail("md5.js answered %d digests for %d inputs", len(got.Out), len(inputs))
	}
	for i, in := range inputs {
		sum := md5.Sum([]byte(in))
		if want := hex.EncodeToString(sum[:]); got.Out[i] != want {
			fail("md5.js(%.40q… %d bytes) = %s, crypto/md5 = %s", in, len(in), got.Out[i], want)
		}
	}
	t.Logf("md5.js agrees with crypto/md5 on %d inputs (RFC 1321 vectors, lengths 0-200, UTF-8, %d KB)", len(inputs), len(inputs[10])/1024)
}

// stubEvents answers the movement timeline in a second tab with canned
// events (the demo market records movements only while a session runs, and
// the test must not depend on the time of day); everything else is real.
const stubEvents = `(() => {
	const real = window.fetch;
	window.fetch = (url, init) => {
		if (!String(url).startsWith('/v1/api/market/movements/events')) return real(url, init);
		const ev = (id, name, type, trigger, direction, pct, delta, ts) => ({
			id, board_code: 'BK' + id, board_name: name, type, source: 'demo', trigger, direction,
			pct, main_net: 1.5e8 * Math.sign(pct), delta, event_ts: '2026-11-23 ' + ts, event_ms: id,
		});
		const items = [
			ev(1, '半导体', 'industry', 'pct_up', 'up', 2.1, null, '09:41:00'),
			ev(2, '人工智能', 'concept', 'plunge', 'down', -1.4, -1.1, '10:02:30'),
		];
		const body = JSON.stringify({ code: 1, message: 'OK', data: { day: '20261123', items, next_since: 2 } });
		return Promise.resolve(new Response(body, { status: 200, headers: { 'Content-Type': 'application/json' } }));
	};
})()`

func checkTimeline(t *testing.T, ctx context.Context, b *browser, srv *server, artifacts string, fail func(string, ...any)) {
	t.Helper()
	p, err := b.newPage(ctx, 1440, 1000)
	if err != nil {
		fail("open a second page: %v", err)
	}
	if err := p.addScript(ctx, stubEvents); err != nil {
		fail("stub the timeline: %v", err)
	}
	if err := p.navigate(ctx, srv.base+"/"); err != nil {
		fail("%v", err)
	}
	login(t, ctx, p, fail, "") // a new tab has its own sessionStorage
	waitForPanels(t, ctx, p, fail, func(pageState) bool { return true })
	var rows []string
	err = p.eval(ctx, `[...document.querySelectorAll('#movements-list li')].map((li) => li.textContent)`, &rows)
	if err != nil {
		fail("read the timeline: %v", err)
	}
	// The triggers as the terminal names them: a fall that started below
	// the previous close (-1.40 % after -1.10 % in the window) is 加速下跌.
	want := []string{"10:02:30人工智能概念加速下跌 -1.10%-1.40%-1.50亿", "09:41:00半导体行业大涨+2.10%1.50亿"}
	if strings.Join(rows, "|") != strings.Join(want, "|") {
		fail("timeline rows %q, want newest first %q", rows, want)
	}
	if _, err := p.screenshot(ctx, filepath.Join(artifacts, "dashboard-timeline.png")); err != nil {
		fail("screenshot: %v", err)
	}
}

// checkProvisional draws two synthetic bars, the second still forming,
// with the dashboard's chart module: the demo market only has a forming
// bar during a session, and the test must not depend on the time of day.
func checkProvisional(t *testing.T, ctx context.Context, p *page, fail func(string, ...any)) {
	t.Helper()
	var got struct {
		Candles, Provisional, Volumes, ProvisionalVolumes int
		Legend                                            string
	}
	err := p.eval(ctx, `import('/assets/charts.js').then((m) => {
		const s = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
		const legend = document.createElement('p');
		m.candleChart(s, [
			{ trade_date: '2026-11-20', open: 10, high: 11, low: 9.5, close: 10.8, pct: 1.2, volume: 1000, ma5: 10.1, ma20: null, provisional: false },
			{ trade_date: '2026-11-23', open: 10.8, high: 10.9, low: 10.1, close: 10.3, pct: -4.6, volume: 400, ma5: 10.2, ma20: null, provisional: true },
		], 600, legend);
		return {
			candles: s.querySelectorAll('g.candle').length,
			provisional: s.querySelectorAll('g.candle.provisional').length,
			volumes: s.querySelectorAll('rect.vol').length,
			provisionalVolumes: s.querySelectorAll('rect.vol.provisional').length,
			legend: legend.textContent,
		};
	})`, &got)
	if err != nil {
		fail("draw a forming bar: %v", err)
	}
	if got.Candles != 2 || got.Provisional != 1 || got.Volumes != 2 || got.ProvisionalVolumes != 1 || !strings.Contains(got.Legend, "2026-11-23 (forming)") {
		fail("a forming bar is not drawn apart: %+v", got)
	}
}

// checkPNG asserts the screenshot is a real picture of a drawn page: a
// decodable PNG of the page's size with many colours.
func checkPNG(t *testing.T, data []byte, fail func(string, ...any)) {
	t.Helper()
	if !bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")) || len(data) < 20_000 {
		fail("the screenshot is not a non-trivial PNG (%d bytes)", len(data))
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		fail("decode the screenshot: %v", err)
	}
	bounds := img.Bounds()
	if bounds.Dx() < 1000 || bounds.Dy() < 700 {
		fail("screenshot %dx%d, want at least 1000x700", bounds.Dx(), bounds.Dy())
	}
	if n := colours(img); n < 100 {
		fail("the screenshot has only %d colours: not a drawn dashboard", n)
	}
}

func colours(img image.Image) int {
	seen := map[[3]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			seen[[3]uint32{r >> 8, g >> 8, bl >> 8}] = true
		}
	}
	return len(seen)
}

// artifactDir is $MDQS_ARTIFACTS (created) or a temporary folder.
func artifactDir(t *testing.T) string {
	if d := os.Getenv("MDQS_ARTIFACTS"); d != "" {
		d, err := filepath.Abs(d)
		if err == nil {
			err = os.MkdirAll(d, 0o755)
		}
		if err != nil {
			t.Fatalf("MDQS_ARTIFACTS: %v", err)
		}
		return d
	}
	return t.TempDir()
}

// saveFailureArtifacts keeps what explains a failure: a screenshot, the
// page's HTML and the server's log.
func saveFailureArtifacts(t *testing.T, ctx context.Context, p *page, dir string, srv *server) {
	t.Helper()
	if _, err := p.screenshot(ctx, filepath.Join(dir, "dashboard-failure.png")); err != nil {
		t.Logf("failure screenshot: %v", err)
	}
	var html string
	if err := p.eval(ctx, `document.documentElement.outerHTML`, &html); err == nil {
		os.WriteFile(filepath.Join(dir, "dashboard-failure.html"), []byte(html), 0o644)
	}
	os.WriteFile(filepath.Join(dir, "server.log"), []byte(srv.logs.String()), 0o644)
	t.Logf("failure artifacts in %s; server log:\n%s", dir, srv.logs)
}

// server is the real mdqs binary serving the demo market.
type server struct {
	base string
	logs *lockedBuffer
	// The built binary, its database and configuration, for the test's
	// own commands (run).
	bin, db, config string
}

// run runs an mdqs command of the built binary on the server's database
// and configuration while it serves (SQLite in WAL mode lets both write),
// and answers its output.
func (s *server) run(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(s.bin, append(args, "-db", s.db, "-config", s.config)...)
	cmd.Dir = filepath.Dir(s.db)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mdqs %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// startServer starts mdqs, built from the repository once a run, on a free
// loopback port with the shipped config.toml (demo mode: the demo client is
// seeded), or with config when it is not "", and a fresh database.
func startServer(t *testing.T, config string) *server {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bin, err := mdqsBinary.path(root)
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(root, "config.toml")
	if config != "" {
		cfg = filepath.Join(dir, "config.toml")
		if err := os.WriteFile(cfg, []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	dbFile := filepath.Join(dir, "mdqs.db")
	cmd := exec.Command(bin, "serve", "-config", cfg, "-addr", "127.0.0.1:0", "-db", dbFile)
	cmd.Dir = dir
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &server{logs: &lockedBuffer{}, bin: bin, db: dbFile, config: cfg}
	exited := make(chan struct{})
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	})
	addrc := make(chan string, 1)
	ready := make(chan struct{}, 1)
	go func() {
		defer close(exited)
		listening := regexp.MustCompile(`msg="mdqs listening" addr=(\S+)`)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(s.logs, line)
			if m := listening.FindStringSubmatch(line); m != nil {
				addrc <- m[1]
			}
			if strings.Contains(line, `msg="mdqs ready`) {
				ready <- struct{}{}
			}
		}
		cmd.Wait()
	}()
	select {
	case addr := <-addrc:
		s.base = "http://" + addr
	case <-exited:
		t.Fatalf("mdqs exited at start:\n%s", s.logs)
	case <-time.After(60 * time.Second):
		t.Fatalf("mdqs did not start:\n%s", s.logs)
	}
	// The page is opened on a server that says every endpoint has its
	// data: before that a panel may rightly find none (the hot rank's
	// catch-up, the security master's back-fill and the other start-up
	// jobs run side by side and take their turns at the database).
	select {
	case <-ready:
	case <-exited:
		t.Fatalf("mdqs exited before it was ready:\n%s", s.logs)
	case <-time.After(120 * time.Second):
		t.Fatalf("mdqs was not ready within 120 s:\n%s", s.logs)
	}
	return s
}

// token issues one token for the demo client (an unsigned public call),
// waiting out the token endpoint's rate limit, and answers it.
func (s *server) token(t *testing.T) string {
	t.Helper()
	return s.tokenAs(t, "demo", "demo-secret")
}

// tokenAs is token for another client.
func (s *server) tokenAs(t *testing.T, id, secret string) string {
	t.Helper()
	creds, _ := json.Marshal(map[string]string{"client_id": id, "client_secret": secret})
	for attempt := 1; ; attempt++ {
		res, err := http.Post(s.base+"/v1/auth/token", "application/json", bytes.NewReader(creds))
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Data struct {
				Token string `json:"token"`
			} `json:"data"`
		}
		err = json.NewDecoder(res.Body).Decode(&body)
		res.Body.Close()
		switch {
		case res.StatusCode == http.StatusOK:
			if err != nil || body.Data.Token == "" {
				t.Fatalf("POST /v1/auth/token: no token in the answer (%v)", err)
			}
			return body.Data.Token
		case res.StatusCode == http.StatusTooManyRequests && attempt < 30:
			// limits.token_rate: wait as Retry-After says.
			wait, _ := strconv.Atoi(res.Header.Get("Retry-After"))
			time.Sleep(time.Duration(max(wait, 1)) * time.Second)
		default:
			t.Fatalf("POST /v1/auth/token: %s", res.Status)
		}
	}
}

// session is a dashboard test's setup: the built mdqs serving the demo
// market, headless Chromium, and one page; fail saves the page's
// screenshot and the server's log before failing.
type session struct {
	ctx       context.Context
	p         *page
	srv       *server
	b         *browser
	artifacts string
	fail      func(format string, args ...any)
}

func newSession(t *testing.T) *session {
	t.Helper()
	return newSessionWith(t, "")
}

// newSessionWith is newSession with the server on config ("" is the
// shipped config.toml).
func newSessionWith(t *testing.T, config string) *session {
	t.Helper()
	chromium := findChromium()
	if chromium == "" {
		t.Skip("no Chromium found (looked for chromium, chromium-browser, google-chrome on PATH and /usr/bin/chromium; MDQS_CHROMIUM names one): the dashboard's end-to-end test needs it")
	}
	if testing.Short() {
		t.Skip("builds mdqs and starts a browser")
	}
	s := &session{artifacts: artifactDir(t), srv: startServer(t, config)}
	s.b = startBrowser(t, chromium)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	s.ctx = ctx
	p, err := s.b.newPage(ctx, 1440, 1000)
	if err != nil {
		t.Fatalf("open a page: %v\n%s", err, s.b.stderr)
	}
	s.p = p
	s.fail = func(format string, args ...any) {
		t.Helper()
		saveFailureArtifacts(t, ctx, p, s.artifacts, s.srv)
		t.Fatalf(format, args...)
	}
	return s
}
