package cli

import (
	"bytes"
	"context"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/demo"
	"mdqs/internal/market"
)

// The range every test backfills: fixed and in the past, so the demo
// market's bars (pure functions of seed and day) are the same on every run.
const (
	bfFrom = "2026-01-05"
	bfTo   = "2026-03-31"
)

// backfillEnv is a demo configuration of 50 stocks writing into a temp
// database.
func backfillEnv(t *testing.T) (env Env, dbPath, configPath string, out *bytes.Buffer) {
	return demoEnv(t, 7, 50)
}

// demoDaily is what the demo market of backfillEnv holds per stock over
// the test range.
func demoDaily(t *testing.T) map[market.Code]int {
	t.Helper()
	m, err := demo.New(demo.Config{Seed: 7, Stocks: 50, Industries: 5, Concepts: 5}, nil)
	if err != nil {
		t.Fatal(err)
	}
	from, _ := market.ParseDay(bfFrom)
	to, _ := market.ParseDay(bfTo)
	want := map[market.Code]int{}
	for _, s := range m.Stocks() {
		bars, err := m.Klines(context.Background(), s.Code, market.Daily, from, to)
		if err != nil {
			t.Fatal(err)
		}
		want[s.Code] = len(bars)
	}
	return want
}

var writtenRE = regexp.MustCompile(`([0-9,]+) bars written, ([0-9,]+) unchanged`)

// summary reads the final line's written and unchanged counts.
func summary(t *testing.T, out string) (written, unchanged int) {
	t.Helper()
	m := writtenRE.FindAllStringSubmatch(out, -1)
	if len(m) == 0 {
		t.Fatalf("no summary in output:\n%s", out)
	}
	last := m[len(m)-1]
	atoi := func(s string) int {
		n, err := strconv.Atoi(strings.ReplaceAll(s, ",", ""))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	return atoi(last[1]), atoi(last[2])
}

func storedDaily(t *testing.T, dbPath string, codes map[market.Code]int) (total, covered int) {
	t.Helper()
	s, err := db.Open(context.Background(), dbPath, db.Options{Readers: 1, SQLiteSchema: dbtest.SQLiteSchema(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for code := range codes {
		n, err := s.BarCount(context.Background(), code, market.Daily)
		if err != nil {
			t.Fatal(err)
		}
		total += n
		if _, _, ok, _ := s.Coverage(context.Background(), code, market.Daily); ok {
			covered++
		}
	}
	return total, covered
}

func TestBackfillWritesOnceThenNothing(t *testing.T) {
	env, dbPath, configPath, out := backfillEnv(t)
	want := demoDaily(t)
	args := []string{"-config", configPath, "-codes", "all", "-freq", "D", "-from", bfFrom, "-to", bfTo}
	if err := Backfill(context.Background(), env, args); err != nil {
		t.Fatalf("backfill: %v\n%s", err, out)
	}
	wantTotal := 0
	for _, n := range want {
		wantTotal += n
	}
	if wantTotal == 0 {
		t.Fatal("the demo market has no bars in the test range")
	}
	written, unchanged := summary(t, out.String())
	total, covered := storedDaily(t, dbPath, want)
	if written != wantTotal || unchanged != 0 || total != wantTotal || covered != len(want) {
		t.Fatalf("first run: written %d unchanged %d, stored %d in %d covered series; want %d bars in %d\n%s",
			written, unchanged, total, covered, wantTotal, len(want), out)
	}
	if !strings.Contains(out.String(), "done: 50 of 50 codes") {
		t.Fatalf("summary does not count the codes:\n%s", out)
	}

	out.Reset()
	if err := Backfill(context.Background(), env, args); err != nil {
		t.Fatalf("second backfill: %v\n%s", err, out)
	}
	if written, unchanged := summary(t, out.String()); written != 0 || unchanged != wantTotal {
		t.Fatalf("second run wrote %d (unchanged %d); want 0 and %d\n%s", written, unchanged, wantTotal, out)
	}
}

func TestBackfillNamedCodes(t *testing.T) {
	env, dbPath, configPath, out := backfillEnv(t)
	want := demoDaily(t)
	var picked []string
	named := map[market.Code]int{}
	for code, n := range want {
		if n > 0 && len(picked) < 2 {
			picked = append(picked, strings.ToLower(string(code.Exchange))+code.Symbol) // sh600519 form
			named[code] = n
		}
	}
	args := []string{"-db", dbPath, "-config", configPath, "-codes", strings.Join(picked, ","), "-from", bfFrom, "-to", bfTo}
	if err := Backfill(context.Background(), env, args); err != nil {
		t.Fatalf("backfill: %v\n%s", err, out)
	}
	total, covered := storedDaily(t, dbPath, want)
	wantTotal := 0
	for _, n := range named {
		wantTotal += n
	}
	if total != wantTotal || covered != 2 {
		t.Fatalf("stored %d bars in %d series; want %d in 2\n%s", total, covered, wantTotal, out)
	}
}

func TestBackfillResumesAfterInterrupt(t *testing.T) {
	env, dbPath, configPath, out := backfillEnv(t)
	want := demoDaily(t)
	args := []string{"-config", configPath, "-codes", "all", "-from", bfFrom, "-to", bfTo}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	err := backfill(ctx, env, args, func(done int) {
		if done == 10 {
			cancel() // as Ctrl-C would, in the middle of the run
		}
	})
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != 130 {
		t.Fatalf("interrupted run: %v; want exit 130\n%s", err, out)
	}
	firstWritten, _ := summary(t, out.String())
	if _, covered := storedDaily(t, dbPath, want); covered != 10 {
		t.Fatalf("%d codes covered after stopping at the 10th; want 10 (committed per code)\n%s", covered, out)
	}

	out.Reset()
	if err := Backfill(context.Background(), env, args); err != nil {
		t.Fatalf("resumed run: %v\n%s", err, out)
	}
	written, unchanged := summary(t, out.String())
	total, covered := storedDaily(t, dbPath, want)
	wantTotal := 0
	for _, n := range want {
		wantTotal += n
	}
	if firstWritten+written != wantTotal || unchanged != firstWritten || total != wantTotal || covered != len(want) {
		t.Fatalf("interrupted run wrote %d, resumed run %d (unchanged %d); stored %d in %d series; want %d in %d\n%s",
			firstWritten, written, unchanged, total, covered, wantTotal, len(want), out)
	}
}

func TestBackfillMinuteBarsInWindows(t *testing.T) {
	env, dbPath, configPath, out := backfillEnv(t)
	from, to := "2026-03-30", "2026-03-31"
	args := []string{"-db", dbPath, "-config", configPath, "-codes", "all", "-freq", "5m", "-from", from, "-to", to}
	if err := Backfill(context.Background(), env, args); err != nil {
		t.Fatalf("backfill: %v\n%s", err, out)
	}
	written, _ := summary(t, out.String())
	if written == 0 || written%48 != 0 {
		t.Fatalf("5m backfill of two days wrote %d bars; want a positive multiple of 48\n%s", written, out)
	}
	cal := market.DefaultCalendar()
	w := backfillWindows(cal, market.Min1, 20250102, 20261120)
	if len(w) < 2 || w[0].First != 20250102 || w[len(w)-1].Last != 20261120 {
		t.Fatalf("windows %v", w)
	}
	for i, s := range w {
		if n := len(cal.Between(s.First, s.Last)); n > minuteWindowDays {
			t.Fatalf("window %d holds %d trading days", i, n)
		}
		if i > 0 && cal.Next(w[i-1].Last) != s.First {
			t.Fatalf("windows %v and %v leave a gap", w[i-1], s)
		}
	}
	if got := backfillWindows(cal, market.Daily, 20250102, 20261120); len(got) != 1 {
		t.Fatalf("daily windows %v; want the whole range", got)
	}
	if got := backfillWindows(cal, market.Daily, 20261121, 20261122); got != nil {
		t.Fatalf("a weekend gave windows %v", got)
	}
}

func TestBackfillUsageErrors(t *testing.T) {
	env, _, configPath, out := backfillEnv(t)
	for _, args := range [][]string{
		{},
		{"-from", bfFrom},
		{"-codes", "all"},
		{"-codes", "not-a-code", "-from", bfFrom},
		{"-codes", "600519.SH,,000001.SZ", "-from", bfFrom},
		{"-codes", "all", "-from", "2026-13-01"},
		{"-codes", "all", "-from", bfFrom, "-to", "yesterday"},
		{"-codes", "all", "-from", bfTo, "-to", bfFrom},
		{"-codes", "all", "-freq", "2h", "-from", bfFrom},
		{"-codes", "all", "-from", bfFrom, "-bogus"},
		{"-codes", "all", "-from", bfFrom, "extra"},
	} {
		err := Backfill(context.Background(), env, append([]string{"-config", configPath}, args...))
		var ee *ExitError
		if !errors.As(err, &ee) || ee.Code != 2 {
			t.Errorf("args %q: %v; want a usage error (exit 2)", args, err)
		}
	}
	err := Backfill(context.Background(), env, []string{"-h"})
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != 0 || !strings.Contains(out.String(), "usage: mdqs backfill") {
		t.Errorf("-h: %v; want exit 0 and the usage\n%s", err, out)
	}
}

// A code the source does not know is an error, after the others are
// stored, naming it.
func TestBackfillOfAnUnknownCodeFails(t *testing.T) {
	env, dbPath, configPath, out := backfillEnv(t)
	known := map[market.Code]int{}
	for code, n := range demoDaily(t) {
		if n > 0 && len(known) == 0 {
			known[code] = n
		}
	}
	var unknown market.Code
	for i := 600000; ; i++ {
		c := market.MustCode(strconv.Itoa(i) + ".SH")
		if _, ok := demoDaily(t)[c]; !ok {
			unknown = c
			break
		}
	}
	var good market.Code
	for c := range known {
		good = c
	}
	args := []string{"-db", dbPath, "-config", configPath, "-codes", good.String() + "," + unknown.String(), "-from", bfFrom, "-to", bfTo}
	err := Backfill(context.Background(), env, args)
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != 1 || !strings.Contains(err.Error(), unknown.String()) || !strings.Contains(err.Error(), "unknown") {
		t.Fatalf("backfill of %v and unknown %v: %v; want exit 1 naming it\n%s", good, unknown, err, out)
	}
	if total, _ := storedDaily(t, dbPath, known); total != known[good] {
		t.Fatalf("the known code's bars: %d stored, want %d", total, known[good])
	}
}
