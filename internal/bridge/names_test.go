package bridge_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/internal/market"
	"mdqs/internal/secmaster"
	"mdqs/internal/tdx"
)

// writeNames rewrites the fake terminal's name files with headers of day
// (shDay for the SH one: a terminal mid-refresh), touched a second apart
// from the last write so the scan sees them changed.
func writeNames(t *testing.T, dir string, step int, shDay, szDay market.Day, sh, sz []tdx.Security) {
	t.Helper()
	for _, f := range []struct {
		name string
		day  market.Day
		secs []tdx.Security
	}{{"shm.tnf", shDay, sh}, {"szm.tnf", szDay, sz}} {
		var b bytes.Buffer
		if err := tdx.WriteTNF(&b, tdx.TNFHeader{Server: "fake", Date: f.day, Time: 153000}, tdx.TNF314, f.secs); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "T0002", "hq_cache", f.name)
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		at := time.Date(2026, 11, 23, 16, 0, step, 0, time.UTC)
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
}

// The name files are the terminal's own daily record: the bridge records
// them on the day their headers state, so the security master knows the
// universe and names of a day the quote list's record missed. Files of
// no single trading day, or older than the last recorded, say nothing.
func TestNameFilesAreRecordedOnTheirDay(t *testing.T) {
	b, store, dir := newBridge(t)
	ctx := context.Background()
	svc := secmaster.New(store, nil, market.DefaultCalendar(), market.NewFixedClock(time.Date(2026, 11, 23, 16, 0, 0, 0, market.Shanghai())),
		secmaster.Config{RecordAfter: 15*60 + 5})
	sec := func(c, name string) tdx.Security {
		return tdx.Security{Code: market.MustCode(c), Name: name, Decimals: 2, LotSize: 100}
	}
	steps := []struct {
		sh, sz   market.Day
		shSecs   []tdx.Security
		szSecs   []tdx.Security
		recorded []market.Day
	}{
		{20261119, 20261119, []tdx.Security{sec("600519.SH", "贵州茅台"), sec("600001.SH", "邯郸钢铁")}, []tdx.Security{sec("000001.SZ", "平安银行")},
			[]market.Day{20261119}},
		// 2026-11-21 is a Saturday: nothing recorded.
		{20261121, 20261121, []tdx.Security{sec("600519.SH", "贵州茅台")}, []tdx.Security{sec("000001.SZ", "平安银行")}, []market.Day{20261119}},
		// The files disagree (one was written a day later): nothing.
		{20261120, 20261123, []tdx.Security{sec("600519.SH", "贵州茅台")}, []tdx.Security{sec("000001.SZ", "平安银行")}, []market.Day{20261119}},
		// A rename and a warning, 600001 gone.
		{20261120, 20261120, []tdx.Security{sec("600519.SH", "茅台酒业")}, []tdx.Security{sec("000001.SZ", "ST平安")},
			[]market.Day{20261119, 20261120}},
		// An older install's files: nothing.
		{20261118, 20261118, []tdx.Security{sec("600519.SH", "贵州茅台")}, []tdx.Security{sec("000001.SZ", "平安银行")},
			[]market.Day{20261119, 20261120}},
	}
	for i, st := range steps {
		writeNames(t, dir, i+1, st.sh, st.sz, st.shSecs, st.szSecs)
		if _, err := b.Refresh(ctx, nil); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		for _, d := range []market.Day{20261118, 20261119, 20261120, 20261123} {
			ok, err := store.SecurityDayRecorded(ctx, secmaster.TerminalSource, d)
			want := false
			for _, r := range st.recorded {
				want = want || r == d
			}
			if err != nil || ok != want {
				t.Fatalf("step %d: %v recorded from the name files = %v, %v; want %v", i, d, ok, err, want)
			}
		}
	}
	// The security master answers those days from the terminal's record.
	u, rec, err := svc.Universe(ctx, 20261119, secmaster.Filter{})
	if err != nil || rec.Source != secmaster.TerminalSource || len(u) != 3 {
		t.Fatalf("universe of 2026-11-19 = %+v from %+v, %v; want the name files' three", u, rec, err)
	}
	warned := true
	u, _, err = svc.Universe(ctx, 20261120, secmaster.Filter{ST: &warned})
	if err != nil || len(u) != 1 || u[0].Code != market.MustCode("000001.SZ") || u[0].ST != "ST" {
		t.Fatalf("ST on 2026-11-20 = %+v, %v; want 000001 under its warning", u, err)
	}
	tl, err := svc.History(ctx, market.MustCode("600519.SH"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, sp := range tl.Spans {
		if sp.Field == "name" {
			names = append(names, sp.Value+" "+sp.First.String()+".."+sp.Last.String()+" "+sp.Source)
		}
	}
	if got := strings.Join(names, "|"); got != "贵州茅台 2026-11-19..2026-11-19 tnf|茅台酒业 2026-11-20..2026-11-20 tnf" {
		t.Fatalf("names of 600519 = %q", got)
	}
	// A code only the terminal's record saw gets its names from it; once
	// the quote list's record has the code too, the names are read from
	// that one alone (no name twice).
	if len(tl.Names) != 2 || tl.Names[0].Name != "贵州茅台" || tl.Names[1].Name != "茅台酒业" || tl.Names[1].Source != secmaster.TerminalSource {
		t.Fatalf("names of 600519 from the terminal's record = %+v", tl.Names)
	}
	if _, err := store.RecordSecurityDay(ctx, secmaster.Source, 20261120, []db.SecurityObservation{{Code: market.MustCode("600519.SH"), Name: "茅台酒业"}}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if tl, err = svc.History(ctx, market.MustCode("600519.SH")); err != nil || len(tl.Names) != 1 || tl.Names[0].Source != secmaster.Source {
		t.Fatalf("names of 600519 once the quote list recorded it = %+v, %v", tl.Names, err)
	}
	if _, _, err := svc.Universe(ctx, 20261123, secmaster.Filter{}); market.KindOf(err) != market.KindNotFound {
		t.Fatalf("a day no record holds: %v", err)
	}
}
