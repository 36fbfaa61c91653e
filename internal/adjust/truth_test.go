package adjust_test

import (
	"fmt"
	"math"
	"math/big"
	"strings"
	"testing"

	"mdqs/internal/adjust"
	"mdqs/internal/market"
	"mdqs/internal/tdx"
)

// Each ground-truth file's rows carry a check column saying what the
// published value is expected to do (testdata/README.md). The tests assert
// that expectation row by row and count the rows per outcome, so a change of
// result in either direction fails.

func codeOf(r map[string]string) string {
	ex := map[string]string{"0": "SZ", "1": "SH"}[r["market"]]
	return r["code"] + "." + ex
}

// TestEastMoneyQFQ: EastMoney push2his fqt=1 equals the terminal's affine
// qfq anchored at the recording's last day.
func TestEastMoneyQFQ(t *testing.T) {
	rows := readCSV(t, "eastmoney_fqt1_qfq.csv")
	got := map[string]int{}
	for _, r := range rows {
		name := fmt.Sprintf("%s/%s/asof%s", r["code"], r["date"], r["asof"])
		d, asOf := day(t, r["date"]), day(t, r["asof"])
		s := factors(t, eventsOf(t, codeOf(r)), adjust.QFQ, asOf)
		check := r["check"]
		switch {
		case check == "match":
			raw := barOn(t, barsOf(t, r["raw_file"]), d)
			adj := s.Apply([]market.Bar{raw})[0]
			for _, f := range ohlc {
				if r[f] == "" {
					continue // not shown by the source
				}
				if w := num(t, r["raw_"+f]); field(raw, f) != w {
					t.Errorf("%s: .day %s = %v, the source's unadjusted %v", name, f, field(raw, f), w)
				}
				if g, w := field(adj, f), num(t, r[f]); g != w {
					t.Errorf("%s: qfq %s = %v, want %v", name, f, g, w)
				}
			}
		case strings.HasPrefix(check, "partial_bar"):
			// Recorded during trading: open/high/low are final, the close
			// was not, and ours is the final close (no event after it).
			raw := barOn(t, barsOf(t, r["raw_file"]), d)
			adj := s.Apply([]market.Bar{raw})[0]
			for _, f := range []string{"open", "high", "low"} {
				if g, w := field(adj, f), num(t, r[f]); g != w {
					t.Errorf("%s: qfq %s = %v, want %v", name, f, g, w)
				}
			}
			if adj.Close != num(t, r["raw_close"]) || adj.Close == num(t, r["close"]) {
				t.Errorf("%s: close %v, want the final %s (the source's intraday %s differs)", name, adj.Close, r["raw_close"], r["close"])
			}
		case check == "no_raw_in_bundle":
			// 600519's listing week: no raw bars here, but the README gives
			// the coefficients both recordings imply.
			f := s.At(d)
			wantB := map[string]float64{"2021-06-09": -77.3101, "2021-07-21": -96.6031}[r["asof"]]
			if math.Abs(f.A-0.199013) > 5e-7 || math.Abs(f.B-wantB) > 5e-5 {
				t.Errorf("%s: A, B = %.7f, %.5f, want 0.199013, %v", name, f.A, f.B, wantB)
			}
			// The widely reported listing-day bar (34.51/35.55/37.78/32.85;
			// adjust README: inferred, not from a repository) reproduces the
			// published listing-day row.
			if r["date"] == "2001-08-27" {
				for f2, raw := range map[string]float64{"open": 34.51, "close": 35.55, "high": 37.78, "low": 32.85} {
					if g, w := adjust.Round(f.Price(raw)), num(t, r[f2]); g != w {
						t.Errorf("%s: qfq %s of %v = %v, want %v", name, f2, raw, g, w)
					}
				}
			}
		default:
			t.Fatalf("%s: unknown check %q", name, check)
		}
		got[strings.SplitN(check, "(", 2)[0]]++
	}
	want := map[string]int{"match": 39, "partial_bar": 1, "no_raw_in_bundle": 10}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("rows per check %v, want %v", got, want)
	}
}

// listingDay is the day of code's gbbq listing record, checked against the
// first bar of its full-history .day file.
func listingDay(t *testing.T, code, fullDay string) market.Day {
	t.Helper()
	all, err := gbbqEvents()
	if err != nil {
		t.Fatal(err)
	}
	d, ok := tdx.ListingDay(all, market.MustCode(code))
	if first := barsOf(t, fullDay)[0].Day; !ok || d != first {
		t.Fatalf("%s: listing record %s (%v), first bar %s", code, d, ok, first)
	}
	return d
}

// TestEastMoneyHFQ: EastMoney fqt=2 equals the affine hfq for 603777 and
// does not for 000001 (cause unknown, adjust.md §5): those rows are asserted
// to keep differing, and to equal the README's computed affine values.
func TestEastMoneyHFQ(t *testing.T) {
	listing := map[string]market.Day{
		"000001.SZ": listingDay(t, "000001.SZ", "raw/rustdx-2021/sz000001.day"),  // 1991-04-03
		"603777.SH": listingDay(t, "603777.SH", "raw/redmine-2023/sh603777.day"), // 2016-10-12
	}
	got := map[string]int{}
	for _, r := range readCSV(t, "eastmoney_fqt2_hfq.csv") {
		code := codeOf(r)
		name := code + "/" + r["date"]
		s := factors(t, eventsOf(t, code), adjust.HFQ, listing[code])
		raw := barOn(t, barsOf(t, r["raw_file"]), day(t, r["date"]))
		adj := s.Apply([]market.Bar{raw})[0]
		for _, f := range []string{"open", "close", "high"} {
			if w := num(t, r["raw_"+f]); field(raw, f) != w {
				t.Errorf("%s: .day %s = %v, the source's unadjusted %v", name, f, field(raw, f), w)
			}
			g, em, ours := field(adj, f), num(t, r[f]), num(t, r["tdx_affine_"+f])
			if g != ours {
				t.Errorf("%s: hfq %s = %v, want %v (README's affine)", name, f, g, ours)
			}
			switch r["check"] {
			case "match":
				if g != em {
					t.Errorf("%s: hfq %s = %v, EastMoney %v", name, f, g, em)
				}
			case "eastmoney_differs":
				if math.Abs(g-em) < 100 {
					t.Errorf("%s: hfq %s = %v is now near EastMoney's %v: the known divergence changed", name, f, g, em)
				}
			default:
				t.Fatalf("%s: unknown check %q", name, r["check"])
			}
		}
		got[r["check"]]++
	}
	if want := map[string]int{"match": 10, "eastmoney_differs": 10}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("rows per check %v, want %v", got, want)
	}
	// adjust.md §4.3: 000001's events since listing compose to 242.47·p + 47.71 in 2017.
	s := factors(t, eventsOf(t, "000001.SZ"), adjust.HFQ, listing["000001.SZ"])
	if f := s.At(20170301); math.Round(f.A*100) != 24247 || math.Round(f.B*100) != 4771 {
		t.Errorf("000001 hfq 2017 = %v·p + %v, want 242.47·p + 47.71", f.A, f.B)
	}
	// and 603777's to 1.4·p + 1.1 in 2021.
	s = factors(t, eventsOf(t, "603777.SH"), adjust.HFQ, listing["603777.SH"])
	if f := s.At(20210616); math.Abs(f.A-1.4) > 1e-6 || math.Abs(f.B-1.1) > 1e-6 {
		t.Errorf("603777 hfq 2021 = %v·p + %v, want 1.4·p + 1.1", f.A, f.B)
	}
}

// TestTerminalPoints: values read off the TDX desktop client.
func TestTerminalPoints(t *testing.T) {
	got := map[string]int{}
	var ties []string
	for _, r := range readCSV(t, "tdx_terminal_points.csv") {
		code := codeOf(r)
		name := code + "/" + r["date"] + "/" + r["field"]
		if r["check"] == "not_verified" {
			// Needs events after the bundled gbbq (2021-11-09). The bundle
			// has none of 002728 and only 600036's up to 2021-07-13, with
			// which the terminal's value is out of reach.
			if evs := bundled(t, code); len(evs) > 0 {
				last := evs[len(evs)-1].Day
				g := adjust.Round(factors(t, evs, adjust.QFQ, day(t, r["asof"])).At(day(t, r["date"])).Price(num(t, r["raw"])))
				if last > 20211109 || g == num(t, r["tdx_qfq"]) {
					t.Errorf("%s: bundled events up to %s give %v, terminal %s: now verifiable?", name, last, g, r["tdx_qfq"])
				}
			}
			got[r["check"]]++
			continue
		}
		events := eventsOf(t, code)
		used := r["events_used"]
		if strings.Contains(used, "extra") {
			events = withExtra(t, code, events, strings.Contains(used, "revision") || strings.Contains(used, "extra_events_after_gbbq.csv"))
		}
		d, asOf, raw := day(t, r["date"]), day(t, r["asof"]), num(t, r["raw"])
		g := factors(t, events, adjust.QFQ, asOf).Price(d, raw)
		tdxV, ours := num(t, r["tdx_qfq"]), num(t, r["affine_qfq_computed"])
		// What the terminal does at a tie, where a point sits on one.
		if v := exactBar(t, adjust.QFQ, events, asOf, d, raw); isTie(v) {
			ties = append(ties, fmt.Sprintf("%s %s → %s", name, v.FloatString(3), r["tdx_qfq"]))
		}
		if g != ours {
			t.Errorf("%s: qfq %v, want %v (README's affine)", name, g, ours)
		}
		switch r["check"] {
		case "match":
			if g != tdxV {
				t.Errorf("%s: qfq %v, terminal %v", name, g, tdxV)
			}
		case "off_by_0.01":
			// injoyai's one unexplained point (adjust.md §4.4).
			if math.Abs(math.Abs(g-tdxV)-0.01) > 1e-9 {
				t.Errorf("%s: qfq %v, terminal %v: no longer the known 0.01 quirk", name, g, tdxV)
			}
		default:
			t.Fatalf("%s: unknown check %q", name, r["check"])
		}
		got[r["check"]]++
		// Where the README gives the value without the 2006-05-24 revision,
		// the bundled event alone must give it.
		if _, without, ok := strings.Cut(used, "without the revision: "); ok {
			want := num(t, strings.TrimSuffix(without, ")"))
			plain := withExtra(t, code, eventsOf(t, code), false)
			gPlain := factors(t, plain, adjust.QFQ, asOf).Price(d, raw)
			if gPlain != want {
				t.Errorf("%s: without the revision %v, want %v", name, gPlain, want)
			}
			if r["check"] == "match" {
				got["match_with_revision"]++
				if gPlain != tdxV {
					got["match_only_with_revision"]++
				}
			}
		}
	}
	// 7 of the 11 matches use the 600519 2006-05-24 revision; for 4 of them
	// (2006-04-25) the bundled record alone misses the terminal by ~3.6.
	want := map[string]int{"match": 11, "match_with_revision": 7, "match_only_with_revision": 4, "off_by_0.01": 1, "not_verified": 2}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("rows per check %v, want %v", got, want)
	}
	// One point is an exact midpoint, and the terminal rounds it up, away
	// from zero: not to even (5.76), not toward zero. No point is a
	// negative tie, so up and away from zero are not told apart there.
	if want := []string{"000651.SZ/2015-07-02/close 5.765 → 5.77"}; fmt.Sprint(ties) != fmt.Sprint(want) {
		t.Errorf("terminal points on a midpoint: %q, want %q", ties, want)
	}
}

// isTie says whether v lies exactly halfway between two cents.
func isTie(v *big.Rat) bool {
	_, tie := roundHalfAway(v)
	return tie
}
