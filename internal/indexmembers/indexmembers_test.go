package indexmembers_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/indexmembers"
	"mdqs/internal/market"
	"mdqs/internal/tdx"
)

// terminal makes a terminal folder holding the real 2017 spblock.dat and
// the real 2022 block_zs.dat and tdxbk.cfg, each with the given mtime.
func terminal(t *testing.T, mtime time.Time) *tdx.Terminal {
	t.Helper()
	dir := t.TempDir()
	hq := filepath.Join(dir, "T0002", "hq_cache")
	if err := os.MkdirAll(hq, 0o755); err != nil {
		t.Fatal(err)
	}
	for dst, src := range map[string]string{
		"spblock.dat":  "../tdx/testdata/spblock/spblock_2017-01-19.dat",
		"block_zs.dat": "../tdx/testdata/mootdx-2022/T0002/hq_cache/block_zs.dat",
		"tdxbk.cfg":    "../tdx/testdata/mootdx-2022/T0002/hq_cache/tdxbk.cfg",
	} {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(hq, dst)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	term, err := tdx.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return term
}

// The real files: spblock.dat's 中证500 and 深证成指 (500 each) win;
// block_zs.dat gives the indices spblock.dat does not list, and its
// 中证500/800/1000, written empty because they exceed the cap, are left
// out; its 39-member 深证成指 disagrees and is not taken.
func TestObserveRealFiles(t *testing.T) {
	mtime := time.Date(2026, 12, 14, 9, 0, 0, 0, market.Shanghai())
	o := indexmembers.Observe(terminal(t, mtime), "tdx", 20261215, false)
	if len(o.Problems) != 0 {
		t.Fatalf("problems: %v", o.Problems)
	}
	got := map[string]string{}
	for _, l := range o.Lists {
		if l.Day != 20261214 || l.Source != "tdx" {
			t.Errorf("%v: day %v source %q, want the file's day 2026-12-14 and tdx", l.Index, l.Day, l.Source)
		}
		got[l.Index.String()] = l.File + ":" + strconv.Itoa(len(l.Members))
	}
	for code, want := range map[string]string{
		"000905.SH": "spblock.dat:500", "399001.SZ": "spblock.dat:500", "000300.SH": "block_zs.dat:300", "000016.SH": "block_zs.dat:50",
		"000688.SH": "block_zs.dat:50", "399006.SZ": "block_zs.dat:100", "399330.SZ": "block_zs.dat:100", "000010.SH": "block_zs.dat:180",
	} {
		if got[code] != want {
			t.Errorf("%s = %q, want %q", code, got[code], want)
		}
	}
	for _, code := range []string{"000852.SH", "000906.SH"} {
		if _, ok := got[code]; ok {
			t.Errorf("%s was taken from block_zs.dat's empty block", code)
		}
	}
	if len(o.Disagree) != 1 || o.Disagree[0].Index != market.MustCode("399001.SZ") || o.Disagree[0].Members != 39 || o.Disagree[0].File != "block_zs.dat" {
		t.Errorf("disagreements = %+v, want block_zs.dat's 39-member 深证成指", o.Disagree)
	}
	if left := strings.Join(o.ZSLeftOut, " "); left != "中证500 中证800 中证1000" {
		t.Errorf("left out of block_zs.dat = %q", left)
	}
	// A file dated after today (a clock behind) counts as today; the demo
	// terminal's lists are always today's.
	if o := indexmembers.Observe(terminal(t, mtime), "demo", 20261211, false); o.Lists[0].Day != 20261211 {
		t.Errorf("a file newer than today is dated %v", o.Lists[0].Day)
	}
	if o := indexmembers.Observe(terminal(t, mtime), "demo", 20261216, true); o.Lists[0].Day != 20261216 {
		t.Errorf("the demo terminal's list is dated %v, want today", o.Lists[0].Day)
	}
}

type history map[market.Day]map[market.Code][]market.Code

func (h history) IndexMembersOn(d market.Day) map[market.Code][]market.Code {
	var best market.Day
	for k := range h {
		if k <= d && k > best {
			best = k
		}
	}
	return h[best]
}

func cs(s ...string) []market.Code {
	out := make([]market.Code, len(s))
	for i, c := range s {
		out[i] = market.MustCode(c)
	}
	return out
}

// Members and changes answer from the spans: a day between observations
// rests on the earlier one and says so, a day before the first is not
// found with the day history starts, ins and outs carry the observations
// that show them; the backfill records a market's history day by day.
func TestMembersAndChanges(t *testing.T) {
	s := dbtest.Open(t)
	ctx := context.Background()
	cal := market.DefaultCalendar()
	hs := market.MustCode("000300.SH")
	h := history{
		20261201: {hs: cs("600000.SH", "600010.SH", "000001.SZ"), market.MustCode("399006.SZ"): cs("300750.SZ")},
		20261214: {hs: cs("600000.SH", "000001.SZ", "300750.SZ"), market.MustCode("399006.SZ"): cs("300750.SZ")},
		20261216: {hs: cs("600000.SH", "000001.SZ", "300750.SZ", "600010.SH"), market.MustCode("399006.SZ"): cs("300750.SZ")},
	}
	now := time.Date(2026, 12, 17, 8, 0, 0, 0, time.UTC)
	rec, err := indexmembers.Backfill(ctx, s, h, cal, "demo", 20261217, 10, now)
	if err != nil || rec.Recorded != 20 {
		t.Fatalf("Backfill = %+v, %v; want 10 days of 2 indices", rec, err)
	}
	if rec, err := indexmembers.Backfill(ctx, s, h, cal, "demo", 20261217, 10, now); err != nil || rec.Recorded != 0 {
		t.Errorf("a second Backfill = %+v, %v; want nothing new", rec, err)
	}
	svc := indexmembers.New(s)
	m, err := svc.Members(ctx, hs, 0)
	if err != nil || m.Date != 20261216 || m.Observed.Day != 20261216 || len(m.Members) != 4 || m.First != 20261203 || m.Next != 0 {
		t.Fatalf("Members(latest) = %+v, %v", m, err)
	}
	m, err = svc.Members(ctx, hs, 20261213) // a Sunday: Friday's observation
	if err != nil || m.Observed.Day != 20261211 || m.Next != 20261214 || len(m.Members) != 3 || !strings.Contains(m.Note, "2026-12-13 was not observed") {
		t.Fatalf("Members(Sunday) = %+v, %v", m, err)
	}
	if _, err := svc.Members(ctx, hs, 20261130); market.KindOf(err) != market.KindNotFound || !strings.Contains(err.Error(), "starts on 2026-12-03") {
		t.Errorf("Members before the history = %v, want not found naming 2026-12-03", err)
	}
	if _, err := svc.Members(ctx, market.MustCode("000905.SH"), 0); market.KindOf(err) != market.KindNotFound ||
		!strings.Contains(err.Error(), "recorded: 000300.SH, 399006.SZ") {
		t.Errorf("Members of an index never observed = %v", err)
	}
	ch, err := svc.Changes(ctx, hs, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range ch.Changes {
		got = append(got, c.Kind+" "+c.Code.String()+" "+c.Day.String()+" after "+c.After.String()+" "+c.File)
	}
	want := []string{"in 300750.SZ 2026-12-14 after 2026-12-11 demo market", "out 600010.SH 2026-12-14 after 2026-12-11 demo market",
		"in 600010.SH 2026-12-16 after 2026-12-15 demo market"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("changes =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if ch, _ := svc.Changes(ctx, hs, 20261215, 0); len(ch.Changes) != 1 {
		t.Errorf("changes from 2026-12-15 = %+v, want the one in", ch.Changes)
	}
	if ch, _ := svc.Changes(ctx, market.MustCode("399006.SZ"), 0, 0); len(ch.Changes) != 0 || ch.Count != 10 {
		t.Errorf("an index that never changed: %+v", ch)
	}
}

// A terminal import after the backfill goes on from it: block_zs.dat's
// capped lists never follow spblock.dat's, so the spblock list stands.
func TestCappedNeverFollowsUncapped(t *testing.T) {
	s := dbtest.Open(t)
	ctx := context.Background()
	idx := market.MustCode("399001.SZ")
	now := time.Now()
	if _, err := s.RecordIndexObservations(ctx, []db.IndexObservation{{Index: idx, Day: 20261214, Source: "tdx", File: "spblock.dat", Block: "深证成指",
		Members: cs("000001.SZ", "000002.SZ")}}, now); err != nil {
		t.Fatal(err)
	}
	rec, err := s.RecordIndexObservations(ctx, []db.IndexObservation{{Index: idx, Day: 20261215, Source: "tdx", File: "block_zs.dat", Block: "深证成指",
		Capped: true, Members: cs("000001.SZ")}}, now)
	if err != nil || len(rec.Skipped) != 1 {
		t.Fatalf("capped after uncapped = %+v, %v", rec, err)
	}
	m, _ := indexmembers.New(s).Members(ctx, idx, 20261215)
	if len(m.Members) != 2 {
		t.Errorf("members = %+v, want spblock.dat's two", m.Members)
	}
}
