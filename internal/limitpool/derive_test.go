package limitpool

import (
	"testing"

	"mdqs/internal/adjust"
	"mdqs/internal/market"
)

func bar(day market.Day, name string, prev, open, high, low, close float64) DayBar {
	return DayBar{Day: day, Name: name, PrevClose: prev, Open: open, High: high, Low: low, Close: close, Volume: 1000}
}

// Hand-checked: prev·(1±pct) rounded half up to the cent, each day under
// its own board rule and name.
func TestStatusOf(t *testing.T) {
	catl, moutai, star := market.MustCode("300750.SZ"), market.MustCode("600519.SH"), market.MustCode("688001.SH")
	tests := []struct {
		name string
		code market.Code
		b    DayBar
		want Status
	}{
		{"ChiNext the last day at 10 %", catl, bar(20200821, "宁德时代", 10.00, 10, 11.00, 10, 11.00),
			Status{HasLimit: true, Pct: 10, Up: 11.00, Down: 9.00, TouchedUp: true, SealedUp: true}},
		{"ChiNext the first day at 20 %: +10 % is no limit", catl, bar(20200824, "宁德时代", 10.00, 10, 11.00, 10, 11.00),
			Status{HasLimit: true, Pct: 20, Up: 12.00, Down: 8.00}},
		{"ChiNext at 20 %", catl, bar(20200824, "宁德时代", 10.00, 10, 12.00, 10, 12.00),
			Status{HasLimit: true, Pct: 20, Up: 12.00, Down: 8.00, TouchedUp: true, SealedUp: true}},
		{"ChiNext ST before the reform: 5 %", market.MustCode("300001.SZ"), bar(20200820, "ST特锐", 10.00, 10, 10.50, 10, 10.50),
			Status{HasLimit: true, Pct: 5, Up: 10.50, Down: 9.50, TouchedUp: true, SealedUp: true}},
		{"main-board ST in 2024: 5 %, rounded half up", moutai, bar(20240923, "ST茅台", 3.33, 3.3, 3.50, 3.16, 3.50),
			Status{HasLimit: true, Pct: 5, Up: 3.50, Down: 3.16, TouchedUp: true, SealedUp: true, TouchedDown: true, BrokenDown: true}},
		{"main board rounded: 3.33 → 3.66 and 3.00", moutai, bar(20240923, "贵州茅台", 3.33, 3.3, 3.66, 3.00, 3.65),
			Status{HasLimit: true, Pct: 10, Up: 3.66, Down: 3.00, TouchedUp: true, BrokenUp: true, TouchedDown: true, BrokenDown: true}},
		{"sealed down", moutai, bar(20240923, "贵州茅台", 20.00, 19, 19.50, 18.00, 18.00),
			Status{HasLimit: true, Pct: 10, Up: 22.00, Down: 18.00, TouchedDown: true, SealedDown: true}},
		{"STAR at 20 %", star, bar(20240923, "华兴源创", 50.00, 50, 60.00, 50, 59.99),
			Status{HasLimit: true, Pct: 20, Up: 60.00, Down: 40.00, TouchedUp: true, BrokenUp: true}},
		{"a new listing's first day: no limit", moutai, bar(20240923, "N茅台", 0, 10, 40, 10, 40), Status{}},
		{"a new listing's second day: no limit", moutai, bar(20240924, "C茅台", 40, 40, 60, 40, 60), Status{}},
		{"main-board ST from 2025-06-27: the rule is not known here", moutai, bar(20250627, "ST茅台", 10, 10, 10.5, 10, 10.5), Status{}},
		{"suspended", moutai, DayBar{Day: 20240923, Name: "贵州茅台", PrevClose: 10, Close: 10}, Status{}},
	}
	for _, tt := range tests {
		if got := StatusOf(tt.code, tt.b, DefaultRule); got != tt.want {
			t.Errorf("%s: StatusOf = %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

// Hand-checked streaks: each day under its own rule, suspended days
// skipped, a day without a limit ending the streak.
func TestBoards(t *testing.T) {
	sz, chinext := market.MustCode("000004.SZ"), market.MustCode("300001.SZ")
	suspended := DayBar{Day: 20240920, Name: "国华网安"}
	tests := []struct {
		name         string
		code         market.Code
		bars         []DayBar
		want         int
		wantComplete bool
	}{
		{"not sealed today", sz, []DayBar{bar(20240919, "国华网安", 10, 10, 11, 10, 11), bar(20240920, "国华网安", 11, 11, 12.1, 11, 12)}, 0, true},
		{"three boards", sz, []DayBar{
			bar(20240917, "国华网安", 10, 10, 10.5, 10, 10.5),
			bar(20240918, "国华网安", 10.5, 10.5, 11.55, 10.5, 11.55),
			bar(20240919, "国华网安", 11.55, 11.55, 12.71, 11.55, 12.71),
			bar(20240920, "国华网安", 12.71, 13, 13.98, 13, 13.98)}, 3, true},
		{"ST the day before: its 5 % board counts", sz, []DayBar{
			bar(20240918, "ST国华", 10, 10, 10, 10, 10),
			bar(20240919, "ST国华", 10, 10, 10.5, 10, 10.5),
			bar(20240920, "国华网安", 10.5, 10.5, 11.55, 10.5, 11.55)}, 2, true},
		{"ST the day before, +5 % but judged at 10 % would not count; here 4.9 % is no board", sz, []DayBar{
			bar(20240918, "ST国华", 10, 10, 10, 10, 10),
			bar(20240919, "ST国华", 10, 10, 10.49, 10, 10.49),
			bar(20240920, "国华网安", 10.49, 10.49, 11.54, 10.49, 11.54)}, 1, true},
		{"a suspended day between boards neither breaks nor counts", sz, []DayBar{
			bar(20240918, "国华网安", 9, 9, 9.9, 9, 9.5),
			bar(20240919, "国华网安", 10, 10, 11, 10, 11),
			suspended,
			bar(20240923, "国华网安", 11, 11, 12.1, 11, 12.1)}, 2, true},
		{"the streak reaches the first bar given: incomplete", sz, []DayBar{
			bar(20240919, "国华网安", 10, 10, 11, 10, 11),
			bar(20240920, "国华网安", 11, 11, 12.1, 11, 12.1)}, 2, false},
		{"ChiNext across 2020-08-24: a 10 % board then a 20 % one", chinext, []DayBar{
			bar(20200820, "特锐德", 10, 10, 10.5, 10, 10.2),
			bar(20200821, "特锐德", 10.2, 10.2, 11.22, 10.2, 11.22),
			bar(20200824, "特锐德", 11.22, 11.22, 13.46, 11.22, 13.46)}, 2, true},
		{"ChiNext on 2020-08-24: +10 % is no longer a board", chinext, []DayBar{
			bar(20200820, "特锐德", 10, 10, 10.5, 10, 10.2),
			bar(20200821, "特锐德", 10.2, 10.2, 11.22, 10.2, 11.22),
			bar(20200824, "特锐德", 11.22, 11.22, 12.34, 11.22, 12.34)}, 0, true},
		{"a new listing: its first days have no limit and end the streak", sz, []DayBar{
			bar(20240917, "N国华", 0, 10, 40, 10, 40),
			bar(20240918, "C国华", 40, 40, 60, 40, 60),
			bar(20240919, "国华网安", 60, 60, 66, 60, 66)}, 1, true},
	}
	for _, tt := range tests {
		got, complete := Boards(tt.code, tt.bars, DefaultRule)
		if got != tt.want || complete != tt.wantComplete {
			t.Errorf("%s: Boards = %d, %v, want %d, %v", tt.name, got, complete, tt.want, tt.wantComplete)
		}
	}
}

func TestCountUp(t *testing.T) {
	sz := market.MustCode("000004.SZ")
	bars := []DayBar{
		bar(20240916, "国华网安", 10, 10, 11, 10, 11), // before the window
		bar(20240917, "国华网安", 11, 11, 12.1, 11, 12.1),
		bar(20240918, "国华网安", 12.1, 12, 12.5, 12, 12.2),
		bar(20240919, "国华网安", 12.2, 12.2, 13.42, 12.2, 13.42),
	}
	if got := CountUp(sz, bars, []market.Day{20240917, 20240918, 20240919}, DefaultRule); got != 2 {
		t.Errorf("CountUp = %d, want 2", got)
	}
}

// An ex-dividend day's limits start from the reference price: 1 yuan of
// cash a share off 20.00 is 19.00, whose +10 % is 20.90, not 22.00.
func TestChainMovesThePreviousCloseOnAnExDate(t *testing.T) {
	raw := []market.Bar{
		{Day: 20240919, Open: 19, High: 20, Low: 19, Close: 20, Volume: 100},
		{Day: 20240920, Volume: 0}, // suspended
		{Day: 20240923, Open: 19, High: 20.9, Low: 19, Close: 20.9, Volume: 100},
	}
	events := []adjust.Event{{Day: 20240921, CashPer10: 10}} // a Saturday: in force from Monday
	got := Chain(raw, func(market.Day) string { return "国华网安" }, events)
	if got[0].PrevClose != 0 || got[2].PrevClose != 19.00 {
		t.Fatalf("Chain prev closes = %v, %v, want 0, 19.00", got[0].PrevClose, got[2].PrevClose)
	}
	if s := StatusOf(market.MustCode("000004.SZ"), got[2], DefaultRule); !s.SealedUp || s.Up != 20.90 {
		t.Errorf("StatusOf the ex-date = %+v, want sealed at 20.90", s)
	}
	// 10 送 10: 20.00 → 10.00.
	// Half cents, which the exchanges round up: 10.36 − 0.055 = 10.305 (0.55
	// per 10 is stored as the float32 0.550000011920929, from which floats
	// gave 10.30) and 37.94 − 0.155 = 37.785 (floats give 37.78 even from
	// the written 1.55).
	for _, c := range []struct{ close, cash, want float64 }{{10.36, 0.55, 10.31}, {37.94, 1.55, 37.79}} {
		if got := ExPrevClose(c.close, 20200428, 20200429, []adjust.Event{{Day: 20200429, CashPer10: float64(float32(c.cash))}}); got != c.want {
			t.Errorf("ExPrevClose(%v, %v per 10) = %v, want %v", c.close, c.cash, got, c.want)
		}
	}
	if got := ExPrevClose(20, 20240919, 20240923, []adjust.Event{{Day: 20240923, BonusPer10: 10}}); got != 10 {
		t.Errorf("ExPrevClose with 10送10 = %v, want 10", got)
	}
}

func minutes(day market.Day, ohlc ...[4]float64) []market.Bar {
	out := make([]market.Bar, len(ohlc))
	at := 9*60 + 31
	for i, p := range ohlc {
		out[i] = market.Bar{Day: day, TS: market.TimeOfDay(at).On(day).Unix(), Open: p[0], High: p[1], Low: p[2], Close: p[3], Volume: 1}
		at++
	}
	return out
}

// Hand-checked seal times on minute bars named by their end, from 09:31.
func TestSealsOf(t *testing.T) {
	const d = market.Day(20240923)
	tests := []struct {
		name string
		bars []market.Bar
		lim  float64
		up   bool
		want Seals
	}{
		{"never", minutes(d, [4]float64{10, 10.5, 10, 10.4}), 11, true, Seals{}},
		{"touched, never closed a minute there", minutes(d, [4]float64{10, 11, 10, 10.9}, [4]float64{10.9, 11, 10.8, 10.9}), 11, true,
			Seals{}},
		{"the call auction at the limit, never opened", minutes(d, [4]float64{11, 11, 11, 11}, [4]float64{11, 11, 11, 11}), 11, true,
			Seals{Sealed: true, First: 9*60 + 25, Last: 9*60 + 25, AtClose: true}},
		{"sealed at 09:32, opened at 09:33, resealed 09:34, opened and resealed within 09:35", minutes(d,
			[4]float64{10, 10.5, 10, 10.5},
			[4]float64{10.5, 11, 10.5, 11},
			[4]float64{11, 11, 10.8, 10.9},
			[4]float64{10.9, 11, 10.9, 11},
			[4]float64{11, 11, 10.95, 11},
			[4]float64{11, 11, 11, 11}), 11, true,
			Seals{Sealed: true, First: 9*60 + 32, Last: 9*60 + 35, Opened: 2, AtClose: true}},
		{"sealed then broken at the close (炸板)", minutes(d,
			[4]float64{10.5, 11, 10.5, 11},
			[4]float64{11, 11, 10.7, 10.7}), 11, true,
			Seals{Sealed: true, First: 9*60 + 31, Last: 9*60 + 31, Opened: 1}},
		{"the auction at the limit, opened in the first minute, resealed by its end", minutes(d,
			[4]float64{11, 11, 10.9, 11}), 11, true,
			Seals{Sealed: true, First: 9*60 + 25, Last: 9*60 + 31, Opened: 1, AtClose: true}},
		{"limit-down", minutes(d,
			[4]float64{9.5, 9.5, 9, 9},
			[4]float64{9, 9.1, 9, 9}), 9, false,
			Seals{Sealed: true, First: 9*60 + 31, Last: 9*60 + 32, Opened: 1, AtClose: true}},
	}
	for _, tt := range tests {
		if got := SealsOf(tt.bars, tt.lim, tt.up); got != tt.want {
			t.Errorf("%s: SealsOf = %+v, want %+v", tt.name, got, tt.want)
		}
	}
}
