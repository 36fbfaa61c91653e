package api

import (
	"bytes"
	"crypto/sha256"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"mdqs/db/dbtest"
	"mdqs/internal/market"
)

var updateMinuteAnswers = flag.Bool("update-minute-answers", false, "rewrite testdata/minute_answers.txt from this tree's answers")

// minuteRequests are the requests of every endpoint that reads minutes,
// at two moments: inside Monday's session (today's minutes joined to the
// stored days) and after its close. Each is asked once to fill the store
// from the source, then again for the answer that is compared: the second
// reads what the store holds.
var minuteRequests = []struct {
	at    time.Time
	paths []string
}{
	{t0, []string{
		"/v1/api/kline?code=600519.SH&freq=1m&start=2026-11-16&end=2026-11-23",
		"/v1/api/kline?code=600519.SH&freq=5m&start=2026-11-02&end=2026-11-23",
		"/v1/api/kline?code=000001.SZ&freq=1m&start=2026-11-18&end=2026-11-20&fields=close,volume,amount",
		"/v1/api/kline/with_realtime?code=300750.SZ&freq=1m",
		"/v1/api/kline/with_realtime?code=300750.SZ&freq=1m&page=3",
		"/v1/api/kline/with_realtime?code=300750.SZ&freq=5m&page_size=500",
		"/v1/api/intraday/kline?code=300750.SZ",
		"/v1/api/intraday/kline?code=300750.SZ&freq=5m",
		"/v1/api/indicators/macd_bs?code=600519.SH&freq=5m&start=2026-11-16&end=2026-11-20",
		"/v1/api/indicators/macd_bs?code=600519.SH&freq=1m&start=2026-11-19&end=2026-11-20",
		"/v1/api/indicators/micro_momentum?code=300750.SZ&freq=1m",
		"/v1/api/minutes?code=600519&freq=5m&day=2026-11-20",
		"/v1/api/minutes?code=600519",
	}},
	{time.Date(2026, 11, 23, 15, 30, 0, 0, market.Shanghai()), []string{
		"/v1/api/kline?code=600519.SH&freq=1m&start=2026-11-16&end=2026-11-23",
		"/v1/api/kline?code=002594.SZ&freq=5m&start=2026-10-26&end=2026-11-23",
		"/v1/api/kline/with_realtime?code=600519.SH&freq=1m&page=2",
		"/v1/api/intraday/kline?code=300750.SZ",
		"/v1/api/indicators/macd_bs?code=002594.SZ&freq=5m&start=2026-11-02&end=2026-11-23",
	}},
}

// minuteAnswers asks every minute request of h and writes the answers in
// order: status, length and SHA-256 of the body (the bodies weigh 1.8 MB).
func minuteAnswers(t *testing.T, h *harness) []byte {
	t.Helper()
	var out bytes.Buffer
	for _, m := range minuteRequests {
		h.clock.Set(m.at)
		h.addClient("minutes", "secret-minutes", clientOpts{scopes: "kline,bridge"})
		tok := h.token("minutes", "secret-minutes")
		for _, p := range m.paths {
			h.signed(http.MethodGet, p, tok, nil)
		}
		for _, p := range m.paths {
			r := h.signed(http.MethodGet, p, tok, nil)
			fmt.Fprintf(&out, "GET %s at %s\n%d, %d bytes, sha256 %x\n\n", p, m.at.Format(time.DateTime), r.status, len(r.raw), sha256.Sum256(r.raw))
		}
	}
	return out.Bytes()
}

// Every endpoint that reads minutes answers byte for byte what it answered
// when the minutes were rows of bars (issue 29): testdata/minute_answers.txt
// was written by the tree before the packed minute store (bebfe79, with
// -update-minute-answers), and the packed store must give it back.
//
// Then the same store is turned back into rows of bars at schema version
// 19 (what a store written before it holds), opened again, so version
// 20's migration packs the rows, and asked again: the same answers.
func TestMinuteEndpointsAnswerAsBefore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mdqs.db")
	h := newHarness(t, withTerminal(t), withStore(path))
	got := minuteAnswers(t, h)
	golden := filepath.Join("testdata", "minute_answers.txt")
	if *updateMinuteAnswers {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	compareAnswers(t, got, want)

	h.store.Close()
	dbtest.AsMinuteRows(t, path)
	migrated := newHarness(t, withTerminal(t), withStore(path))
	compareAnswers(t, minuteAnswers(t, migrated), want)
}

// compareAnswers fails at the first answer that differs, naming its request.
func compareAnswers(t *testing.T, got, want []byte) {
	t.Helper()
	g, w := bytes.Split(got, []byte("\n\n")), bytes.Split(want, []byte("\n\n"))
	for i := range min(len(g), len(w)) {
		if !bytes.Equal(g[i], w[i]) {
			t.Fatalf("answer %d differs:\n got %s\nwant %s", i, g[i], w[i])
		}
	}
	if len(g) != len(w) {
		t.Fatalf("%d answers, want %d", len(g), len(w))
	}
}
