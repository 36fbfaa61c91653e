package demo

import (
	"runtime"
	"testing"
	"time"

	"mdqs/internal/market"
)

func TestSameSeedGivesIdenticalMarkets(t *testing.T) {
	now := at(20261120, 16, 0, 0)
	a, _ := newMarket(t, smallConfig(42), now)
	b, _ := newMarket(t, smallConfig(42), now)
	instants := []time.Time{at(20261120, 9, 0, 0), at(20261120, 9, 27, 0), at(20261120, 10, 33, 20),
		at(20261120, 15, 0, 0), at(20240315, 14, 2, 0), at(20270222, 11, 0, 0)}
	// b is asked in a different order, so no cache can make them agree.
	for i := range instants {
		ta, tb := instants[i], instants[len(instants)-1-i]
		for _, kind := range []market.SectorKind{market.Industry, market.Concept} {
			sa, sb := sectorsAt(t, a, kind, ta), sectorsAt(t, b, kind, ta)
			if fa, fb := fingerprint(t, sa), fingerprint(t, sb); fa != fb {
				t.Fatalf("%s snapshot at %v differs between two markets of seed 42", kind, ta)
			}
			sectorsAt(t, b, kind, tb)
		}
		if fa, fb := fingerprint(t, quotesAt(t, a, ta)), fingerprint(t, quotesAt(t, b, ta)); fa != fb {
			t.Fatalf("quotes at %v differ between two markets of seed 42", ta)
		}
	}
	for _, c := range sample(a, 97) {
		ka := klines(t, a, c, market.Daily, 20250101, 0)
		kb := klines(t, b, c, market.Daily, 20250101, 0)
		if fingerprint(t, ka) != fingerprint(t, kb) {
			t.Fatalf("daily bars of %v differ between two markets of seed 42", c)
		}
	}
	if fingerprint(t, a.Stocks()) != fingerprint(t, b.Stocks()) {
		t.Fatal("universes differ for the same seed")
	}
	// Snapshots split their work over the cores; one core gives the same.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	c, _ := newMarket(t, smallConfig(42), now)
	ts := at(20261120, 13, 13, 0)
	if fingerprint(t, sectorsAt(t, c, market.Concept, ts)) != fingerprint(t, sectorsAt(t, a, market.Concept, ts)) {
		t.Fatal("the snapshot depends on GOMAXPROCS")
	}
}

func TestDifferentSeedGivesDifferentMarkets(t *testing.T) {
	now := at(20261120, 16, 0, 0)
	a, _ := newMarket(t, smallConfig(1), now)
	b, _ := newMarket(t, smallConfig(2), now)
	ts := at(20261120, 15, 0, 0)
	if fingerprint(t, sectorsAt(t, a, market.Industry, ts)) == fingerprint(t, sectorsAt(t, b, market.Industry, ts)) {
		t.Fatal("seeds 1 and 2 give the same industry snapshot")
	}
	if fingerprint(t, a.Stocks()) == fingerprint(t, b.Stocks()) {
		t.Fatal("seeds 1 and 2 give the same universe")
	}
	// The well-known stocks keep their names and codes whatever the seed.
	c := market.MustCode("600519.SH")
	qa, qb := a.Stocks()[a.u.byCode[c]], b.Stocks()[b.u.byCode[c]]
	if qa.Name != "贵州茅台" || qb.Name != "贵州茅台" {
		t.Fatalf("600519.SH is %q / %q, want 贵州茅台", qa.Name, qb.Name)
	}
}

// The same instant expressed in three zones, and a market built while the
// host's zone is New York, give the same bytes.
func TestTimeZoneIndependence(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	now := at(20261120, 16, 0, 0)
	ref, _ := newMarket(t, smallConfig(5), now)
	ts := at(20261120, 10, 41, 0)
	want := fingerprint(t, sectorsAt(t, ref, market.Concept, ts))
	wantQ := fingerprint(t, quotesAt(t, ref, ts))
	wantK := fingerprint(t, klines(t, ref, market.MustCode("600519.SH"), market.Min5, 20261119, 20261120))

	saved := time.Local
	time.Local = ny
	t.Cleanup(func() { time.Local = saved })
	m, _ := newMarket(t, smallConfig(5), now.In(ny))
	for _, x := range []time.Time{ts, ts.In(ny), ts.UTC(), ts.Local()} {
		if got := fingerprint(t, sectorsAt(t, m, market.Concept, x)); got != want {
			t.Fatalf("snapshot at %v (zone %s) differs from the same instant in Shanghai", x, x.Location())
		}
		if got := fingerprint(t, quotesAt(t, m, x)); got != wantQ {
			t.Fatalf("quotes at %v differ from the same instant in Shanghai", x)
		}
	}
	if got := fingerprint(t, klines(t, m, market.MustCode("600519.SH"), market.Min5, 20261119, 20261120)); got != wantK {
		t.Fatal("5-minute bars differ with time.Local = America/New_York")
	}
	// 2026-11-19 21:00 in New York is already Friday 10:00 in Shanghai.
	fri := time.Date(2026, 11, 19, 21, 0, 0, 0, ny)
	if s := sectorsAt(t, m, market.Industry, fri); !s.At.Equal(at(20261120, 10, 0, 0)) {
		t.Fatalf("At of a New York evening = %v, want Friday 10:00 Shanghai", s.At)
	}
}
