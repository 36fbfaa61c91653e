package demo

import (
	"bytes"
	"reflect"
	"slices"
	"testing"
	"time"

	"mdqs/internal/market"
	"mdqs/internal/tdx"
)

// The demo's actions are what the package documents: dividends on many
// stocks, bonus shares on a few, one rights issue, listing records for
// stocks listed inside the history, ex-dates on trading days after a
// stock's first bar and at most announceDays ahead, some of them announced;
// and they are a valid gbbq.
func TestActionsAreAPlausibleGBBQ(t *testing.T) {
	monday := market.Day(20261123)
	m, _ := newMarket(t, smallConfig(7), at(monday, 16, 0, 0))
	var all []tdx.GBBQEvent
	var payers, bonus, announced int
	var rights []tdx.GBBQEvent
	for _, s := range m.Stocks() {
		ev := m.Actions(s.Code)
		paid, gave := false, false
		for i, e := range ev {
			if e.Code != s.Code {
				t.Fatalf("%v's actions hold %v", s.Code, e)
			}
			if i > 0 && (e.Day < ev[i-1].Day || e.Day == ev[i-1].Day && e.Category <= ev[i-1].Category) {
				t.Fatalf("%v's actions out of order or doubled: %v then %v", s.Code, ev[i-1], e)
			}
			if e.Day > monday.AddDays(announceDays) {
				t.Errorf("%v: ex-date %v is more than %d days after %v", s.Code, e.Day, announceDays, monday)
			}
			switch e.Category {
			case tdx.ShareChange:
				if e.Day != s.Listed || e.F[0] != 0 || e.F[1] != 0 || e.F[3] != tdx.Decimal32(float32(float64(s.TotalShares)/1e4)) {
					t.Errorf("%v listing record %v, listed %v", s.Code, e, s.Listed)
				}
				if day, ok := tdx.ListingDay(ev, s.Code); !ok || day != s.Listed {
					t.Errorf("%v: ListingDay = %v %v, want %v", s.Code, day, ok, s.Listed)
				}
			case tdx.Dividend:
				if !market.DefaultCalendar().IsTradingDay(e.Day) || e.Day <= s.Listed || e.Day <= m.days[0] {
					t.Errorf("%v: ex-date %v is not a trading day after its listing %v and the history's start", s.Code, e.Day, s.Listed)
				}
				paid = paid || e.F[0] > 0
				gave = gave || e.F[2] > 0
				if e.F[3] > 0 {
					rights = append(rights, e)
				}
				if e.Day > monday {
					announced++
				}
			default:
				t.Errorf("%v: category %v", s.Code, e.Category)
			}
		}
		if paid {
			payers++
		}
		if gave {
			bonus++
		}
		all = append(all, ev...)
	}
	n := len(m.Stocks())
	if payers < n/2 || bonus == 0 || bonus > n/8 || announced == 0 {
		t.Errorf("%d stocks: %d pay dividends, %d gave bonus shares, %d ex-dates announced; want many, a few, some", n, payers, bonus, announced)
	}
	if len(rights) != 1 || rights[0].F[1] <= 0 || rights[0].F[3] != 3 || rights[0].Day >= monday {
		t.Errorf("rights issues %v, want one past issue of 3 per 10 with its price", rights)
	}
	var b bytes.Buffer
	if err := tdx.WriteGBBQ(&b, all); err != nil {
		t.Fatal(err)
	}
	var back []tdx.GBBQEvent
	for e, err := range tdx.GBBQ(&b) {
		if err != nil {
			t.Fatalf("the demo's gbbq does not decode: %v", err)
		}
		back = append(back, e)
	}
	if !reflect.DeepEqual(back, all) {
		t.Errorf("the demo's gbbq decodes to %d events, want its %d", len(back), len(all))
	}
}

// Actions depend on the seed only: a later day adds events and changes
// none, and two markets of one seed agree.
func TestActionsOnlyGrowWithTheDay(t *testing.T) {
	a, _ := newMarket(t, smallConfig(7), at(20261123, 16, 0, 0))
	b, _ := newMarket(t, smallConfig(7), at(20270614, 16, 0, 0))
	other, _ := newMarket(t, smallConfig(8), at(20261123, 16, 0, 0))
	differ := false
	for _, s := range a.Stocks() {
		early, late := a.Actions(s.Code), b.Actions(s.Code)
		if !slices.Equal(late[:min(len(early), len(late))], early) {
			t.Fatalf("%v: as of 2027-06-14 %v; as of 2026-11-23 %v is not its start", s.Code, late, early)
		}
		if !slices.Equal(a.ActionsAsOf(s.Code, 20270614), late) {
			t.Fatalf("%v: ActionsAsOf disagrees with the clock's Actions", s.Code)
		}
		differ = differ || !slices.Equal(other.Actions(s.Code), early)
	}
	if !differ {
		t.Error("another seed gives the same actions")
	}
	if got := a.Actions(market.MustCode("999999.SH")); got != nil {
		t.Errorf("a code outside the universe has %v", got)
	}
}

// At the default scale the events of every stock take milliseconds, so
// the demo terminal's writer can make its gbbq at start.
func TestActionsOfTheDefaultMarketAreCheap(t *testing.T) {
	m, _ := newMarket(t, DefaultConfig(), at(20261123, 16, 0, 0))
	start := time.Now()
	n := 0
	for _, s := range m.Stocks() {
		n += len(m.Actions(s.Code))
	}
	if took := time.Since(start); n < 10_000 || took > time.Second {
		t.Errorf("%d events in %v", n, took)
	}
}
