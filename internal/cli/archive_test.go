package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/demo"
	"mdqs/internal/etf"
	"mdqs/internal/market"
	"mdqs/internal/quote"
	"mdqs/internal/secmaster"
)

// recordDemoUniverse records the security master of the demo market of
// demoEnv(seed 7, stocks) for the last trading days, as a demo server's
// first run does, on the real clock the commands run on.
func recordDemoUniverse(t *testing.T, dbPath string, stocks int) {
	t.Helper()
	ctx := context.Background()
	cal, clock := market.DefaultCalendar(), market.SystemClock{}
	dm, err := demo.New(demo.Config{Seed: 7, Stocks: stocks, Industries: 5, Concepts: 5, Calendar: cal}, clock)
	if err != nil {
		t.Fatal(err)
	}
	store, err := db.Open(ctx, dbPath, db.Options{SQLiteSchema: dbtest.SQLiteSchema(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	quotes := quote.New(dm, dm, cal, clock, quote.Config{Age: time.Minute, Source: "demo"})
	etfs := etf.New(dm, clock, etf.Config{Source: "demo"})
	sec := secmaster.New(store, quotes, cal, clock, secmaster.Config{RecordAfter: 15*60 + 5, History: dm, BackfillDays: 10,
		More: []secmaster.Quotes{etfs}})
	if err := sec.Record(ctx); err != nil {
		t.Fatal(err)
	}
}

// archive run fetches every due day of every code once and says so;
// status then shows the five days with nothing pending; a second run asks
// nothing; a day the source no longer has is refused, exit 2.
func TestArchiveCommand(t *testing.T) {
	ctx := context.Background()
	env, dbPath, configPath, out := demoEnv(t, 7, 50)
	recordDemoUniverse(t, dbPath, 50)
	if err := Archive(ctx, env, []string{"run", "-config", configPath}); err != nil {
		t.Fatalf("archive run: %v\n%s", err, out)
	}
	done := regexp.MustCompile(`done: (\d+) codes asked in (\d+) requests; (\d+) code-days archived \(\d+ already held whole\), 0 flagged, 0 gaps`).FindStringSubmatch(out.String())
	if done == nil || done[1] == "0" || done[1] != done[2] || done[3] == "0" {
		t.Fatalf("archive run said:\n%s", out)
	}
	// The demo's ETFs are in the universe: each due day keeps their minutes.
	ran := out.String()
	store, err := db.Open(ctx, dbPath, db.Options{SQLiteSchema: dbtest.SQLiteSchema(t)})
	if err != nil {
		t.Fatal(err)
	}
	span := regexp.MustCompile(`archive: due (\S+) to (\S+)`).FindStringSubmatch(ran)
	if span == nil {
		t.Fatalf("archive run said:\n%s", ran)
	}
	first, _ := market.ParseDay(span[1])
	last, _ := market.ParseDay(span[2])
	for _, d := range market.DefaultCalendar().Between(first, last) {
		recs, err := store.ArchiveDays(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		funds := 0
		for _, a := range recs {
			if market.Classify(a.Code) == market.TypeFund && a.Status == db.ArchiveArchived && a.Bars == 240 {
				funds++
			}
		}
		if funds != 5 {
			t.Fatalf("%v: %d of the demo's 5 ETFs archived; records %+v", d, funds, recs)
		}
	}
	store.Close()
	out.Reset()
	if err := Archive(ctx, env, []string{"status", "-config", configPath}); err != nil {
		t.Fatal(err)
	}
	status := out.String()
	days := regexp.MustCompile(`(?m)^\d{4}-\d\d-\d\d +\d+ +0 +0 `).FindAllString(status, -1)
	if !strings.Contains(status, "pending: none") || len(days) != 5 || !strings.Contains(status, "bytes a bar") {
		t.Fatalf("archive status:\n%s", status)
	}
	out.Reset()
	if err := Archive(ctx, env, []string{"run", "-config", configPath}); err != nil || !strings.Contains(out.String(), "done: 0 codes asked in 0 requests") {
		t.Fatalf("a second run: %v\n%s", err, out)
	}
	out.Reset()
	if err := Archive(ctx, env, []string{"verify", "-config", configPath}); err != nil ||
		!regexp.MustCompile(`verified \d+ code-days of 5 days: \d+ pass, 0 flagged`).MatchString(out.String()) {
		t.Fatalf("archive verify: %v\n%s", err, out)
	}
	err = Archive(ctx, env, []string{"run", "-config", configPath, "-day", "2001-01-05"})
	var exit *ExitError
	if !errors.As(err, &exit) || exit.Code != 2 || !strings.Contains(err.Error(), "no longer has") {
		t.Fatalf("an old day: %v", err)
	}
}

// archive merge fills a store that archived only the latest day with the
// four days before it from another install's archive, opened read-only,
// and says so; a second merge fills nothing; a live store refuses a demo
// archive, and a store will not merge itself.
func TestArchiveMergeCommand(t *testing.T) {
	ctx := context.Background()
	envA, dbA, configA, outA := demoEnv(t, 7, 50)
	recordDemoUniverse(t, dbA, 50)
	if err := Archive(ctx, envA, []string{"run", "-config", configA}); err != nil {
		t.Fatalf("archive run: %v\n%s", err, outA)
	}
	env, dbB, configB, out := demoEnv(t, 7, 50)
	recordDemoUniverse(t, dbB, 50)
	storeA := dbtest.OpenAt(t, dbA)
	sums, err := storeA.ArchiveSummaries(ctx)
	if err != nil || len(sums) != 5 {
		t.Fatalf("the other archive: %d days (%v)", len(sums), err)
	}
	latest := sums[4].Day
	if err := Archive(ctx, env, []string{"run", "-config", configB, "-day", latest.String()}); err != nil {
		t.Fatalf("archive run -day: %v\n%s", err, out)
	}
	offered, fill := 0, 0
	for i, s := range sums {
		offered += s.Archived + s.Flagged
		if i < 4 {
			fill += s.Archived + s.Flagged
		}
	}
	out.Reset()
	if err := Archive(ctx, env, []string{"merge", "-config", configB, "-from", dbA}); err != nil {
		t.Fatalf("archive merge: %v\n%s", err, out)
	}
	said := fmt.Sprintf(`: 5 days, %d code-days offered; %d filled \(0 of them flagged by this store's checks\), 0 upgraded from 5-minute to 1-minute, %d already held here`,
		offered, fill, offered-fill)
	if !regexp.MustCompile(said).MatchString(out.String()) {
		t.Fatalf("archive merge said:\n%s\nwant %s", out, said)
	}
	storeB := dbtest.OpenAt(t, dbB)
	got, err := storeB.ArchiveSummaries(ctx)
	if err != nil || len(got) != 5 {
		t.Fatalf("after the merge: %d days (%v)", len(got), err)
	}
	for i := range got {
		if got[i].Archived != sums[i].Archived || got[i].Bars != sums[i].Bars || (i < 4) != (got[i].Merged == got[i].Archived) {
			t.Errorf("%v: %+v, the other holds %+v", got[i].Day, got[i], sums[i])
		}
	}
	out.Reset()
	if err := Archive(ctx, env, []string{"merge", "-config", configB, "-from", dbA}); err != nil || !strings.Contains(out.String(), "; 0 filled") {
		t.Fatalf("a second merge: %v\n%s", err, out)
	}
	if err := Archive(ctx, env, []string{"merge", "-config", configB, "-from", dbB}); err == nil {
		t.Fatal("a store merged itself")
	}

	// A live store never takes a demo archive's bars.
	live := filepath.Join(t.TempDir(), "live.db")
	liveConfig := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(liveConfig, []byte("[server]\ndb = "+strconv.Quote(live)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ls, err := db.Open(ctx, live, db.Options{SQLiteSchema: dbtest.SQLiteSchema(t), Market: db.MarketLive})
	if err != nil {
		t.Fatal(err)
	}
	ls.Close()
	var me *db.MarketError
	if err := Archive(ctx, env, []string{"merge", "-config", liveConfig, "-from", dbA}); !errors.As(err, &me) {
		t.Fatalf("a live store merging a demo archive: %v", err)
	}
}
