package db_test

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/auth"
	"mdqs/internal/market"
)

// copySource is a SQLite store with rows in the tables a copy must carry
// whole: bars over several chunks, news with their codes and full-text
// index, a client, a token, the auth revision counter, and corporate
// actions with their revision.
func copySource(t *testing.T) *db.Store {
	t.Helper()
	ctx := context.Background()
	src := dbtest.OpenAt(t, filepath.Join(t.TempDir(), "mdqs.db"))
	for _, c := range []string{"600519.SH", "000001.SZ", "300750.SZ"} {
		bars := dayBars(300)
		if _, err := src.IngestBars(ctx, []db.BarBatch{{Code: market.MustCode(c), Freq: market.Daily, Source: "tdx", Bars: bars,
			Cover: &db.Span{First: bars[0].Day, Last: bars[299].Day}}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := src.UpsertNews(ctx, newsFixture(), infoNow); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	if _, err := src.PutClient(ctx, auth.Client{ID: "bot", SecretHash: "h", Enabled: true, CreatedAt: now, UpdatedAt: now}); err != nil {
		t.Fatal(err)
	}
	if _, err := src.InsertToken(ctx, auth.Token{Hash: "abc", ClientID: "bot", CreatedAt: now, ExpiresAt: now.Add(time.Hour)}, 5); err != nil {
		t.Fatal(err)
	}
	if _, err := src.ReplaceActions(ctx, "tdx", actionsFixture()); err != nil {
		t.Fatal(err)
	}
	if err := src.PutMinuteDays(ctx, []db.MinuteDay{minuteDayFixture()}); err != nil {
		t.Fatal(err)
	}
	return src
}

// minuteDayFixture is a day of 240 one-minute bars, as the packed store
// keeps them (one binary record).
func minuteDayFixture() db.MinuteDay {
	d := market.Day(20261120)
	bars := make([]market.Bar, 240)
	for i := range bars {
		c := 1500 + float64(i%7)/100
		bars[i] = market.Bar{Day: d, TS: d.At(9, 31, 0).Unix() + int64(60*i), Open: c, High: c + 0.02, Low: c - 0.01, Close: c,
			Volume: int64(100 * (i + 1)), Amount: c * float64(100*(i+1)), TurnoverRate: market.Unknown(), LargeOrderNet: market.Unknown()}
	}
	return db.MinuteDay{Code: market.MustCode("600519.SH"), Freq: market.Min1, Day: d, Bars: bars, Source: "push2his"}
}

// A copy interrupted after a few chunks goes on where it stopped when run
// again, copies nothing twice, and leaves a store that answers as the
// file did: the same bars, news found by the same words, the same client
// and token, and ids that go on past the copied ones.
func TestCopyToPostgresResumesAndMatches(t *testing.T) {
	server := dbtest.NeedPostgres(t)
	ctx := context.Background()
	src := copySource(t)
	target := dbtest.NewSchema(t, server)
	to := dbtest.OpenAt(t, target)

	stop, cancel := context.WithCancel(ctx)
	calls := 0
	_, err := src.CopyTo(stop, to, db.CopyOptions{Chunk: 100, Progress: func(table string, copied, total int64) {
		if calls++; calls == 5 {
			cancel()
		}
	}})
	cancel()
	if !errors.Is(err, context.Canceled) && (err == nil || !strings.Contains(err.Error(), "cancel")) {
		t.Fatalf("interrupted copy: %v, want the cancellation", err)
	}
	var firstTotal, lastCopied int64
	counts, err := src.CopyTo(ctx, to, db.CopyOptions{Chunk: 100, Progress: func(table string, copied, total int64) {
		if firstTotal == 0 {
			firstTotal = total
		}
		lastCopied = copied
	}})
	if err != nil {
		t.Fatalf("resumed copy: %v", err)
	}
	var all int64
	for _, c := range counts {
		all += c.Source
		if c.Source != c.Target {
			t.Errorf("%s: %d rows in the source, %d in the target", c.Table, c.Source, c.Target)
		}
	}
	if all < 900 || firstTotal >= all || lastCopied != firstTotal {
		t.Errorf("the resumed run copied %d of %d rows left (%d in all): it must copy only what the first run did not", lastCopied, firstTotal, all)
	}

	md := minuteDayFixture()
	if got, err := to.MinuteDays(ctx, md.Code, md.Freq, md.Day, md.Day); err != nil || len(got) != 1 || !exactBars(got[0].Bars, md.Bars) {
		t.Errorf("the packed minute day copied: %d days, %v; want its 240 bars exactly", len(got), err)
	}
	for _, c := range []string{"600519.SH", "000001.SZ", "300750.SZ"} {
		q := db.BarQuery{Code: market.MustCode(c), Freq: market.Daily}
		want, _ := src.Bars(ctx, q)
		got, err := to.Bars(ctx, q)
		if err != nil || len(got) != 300 || !sameBars(got, want) {
			t.Errorf("%s: %d bars copied (%v), want the file's 300 bars exactly", c, len(got), err)
		}
		ws, _, _, _ := src.Coverage(ctx, q.Code, q.Freq)
		if gs, source, ok, _ := to.Coverage(ctx, q.Code, q.Freq); !ok || gs != ws || source != "tdx" {
			t.Errorf("%s coverage = %+v %q %v, want %+v", c, gs, source, ok, ws)
		}
	}
	for _, words := range []string{"固态电池", "光伏", "FOMC"} {
		want, _, _ := src.News(ctx, db.NewsQuery{Search: words})
		got, _, err := to.News(ctx, db.NewsQuery{Search: words})
		if err != nil || len(got) != 1 || len(want) != 1 || got[0].ID != want[0].ID || !reflect.DeepEqual(got[0].Codes, want[0].Codes) {
			t.Errorf("search %q on the copy = %v (%v), on the file %v", words, ids(got), err, ids(want))
		}
	}
	if c, err := to.Client(ctx, "bot"); err != nil || !c.Enabled || c.SecretHash != "h" {
		t.Errorf("client bot on the copy = %+v, %v", c, err)
	}
	if tok, c, err := to.TokenByHash(ctx, "abc"); err != nil || tok.ClientID != "bot" || c.ID != "bot" {
		t.Errorf("token on the copy = %+v %+v %v", tok, c, err)
	}
	wantRev, _ := src.AuthRevision(ctx)
	if rev, err := to.AuthRevision(ctx); err != nil || rev != wantRev {
		t.Errorf("auth revision on the copy = %d (%v), want %d", rev, err, wantRev)
	}
	for _, c := range []string{"600519.SH", "000001.SZ", "300750.SZ"} {
		want, _ := src.Actions(ctx, market.MustCode(c))
		if got, err := to.Actions(ctx, market.MustCode(c)); err != nil || len(got) == 0 || !reflect.DeepEqual(got, want) {
			t.Errorf("actions of %s on the copy = %+v (%v), want %+v", c, got, err, want)
		}
	}
	if rev, err := to.ActionsRevision(ctx); err != nil || rev != 1 {
		t.Errorf("actions revision on the copy = %d (%v), want 1", rev, err)
	}
	// The identity sequences moved past the copied ids.
	fresh := newsItem("9", "新的一条", "正文", 1, "2026-11-24 09:00:00")
	if _, err := to.UpsertNews(ctx, []db.NewsRecord{fresh}, infoNow); err != nil {
		t.Fatalf("a news item stored after the copy: %v", err)
	}
	got, _, _ := to.News(ctx, db.NewsQuery{Search: "新的一条"})
	old, _, _ := src.News(ctx, db.NewsQuery{})
	var maxID int64
	for _, n := range old {
		maxID = max(maxID, n.ID)
	}
	if len(got) != 1 || got[0].ID <= maxID {
		t.Errorf("the first item after the copy got id %v; the file's ids end at %d", got, maxID)
	}
	// A finished copy leaves no state behind, and a second one into the
	// same store is refused rather than merged.
	if _, err := src.CopyTo(ctx, to, db.CopyOptions{}); err == nil || !strings.Contains(err.Error(), "already holds rows") {
		t.Errorf("a copy into a store holding rows: %v, want it refused", err)
	}
}

func sameBars(a, b []market.Bar) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.TS != y.TS || x.Day != y.Day || x.Open != y.Open || x.High != y.High || x.Low != y.Low || x.Close != y.Close ||
			x.Volume != y.Volume || x.Amount != y.Amount || x.TurnoverRate != y.TurnoverRate ||
			market.IsKnown(x.LargeOrderNet) != market.IsKnown(y.LargeOrderNet) {
			return false
		}
	}
	return true
}

// A copy goes from a file to a server, at one schema version.
func TestCopyToRefusesTheWrongDirection(t *testing.T) {
	a := dbtest.OpenAt(t, filepath.Join(t.TempDir(), "a.db"))
	b := dbtest.OpenAt(t, filepath.Join(t.TempDir(), "b.db"))
	if _, err := a.CopyTo(context.Background(), b, db.CopyOptions{}); err == nil || !strings.Contains(err.Error(), "PostgreSQL") {
		t.Errorf("a copy between two files: %v, want it refused", err)
	}
}
