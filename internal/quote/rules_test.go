package quote

import (
	"math"
	"testing"
	"time"

	"mdqs/internal/market"
)

func TestLimits(t *testing.T) {
	before, after := market.Day(20250626), market.Day(20261123)
	for _, tt := range []struct {
		code, name string
		day        market.Day
		prev       float64
		up, down   float64 // 0: no limits
	}{
		{"600519.SH", "贵州茅台", after, 1500, 1650, 1350},
		// The pair a real clist page gave for 平安银行 (f350/f351 12.49/10.22).
		{"000001.SZ", "平安银行", after, 11.35, 12.49, 10.22},
		// 美尔雅 closed at its limit on 2024-08-08: 3.35 × 1.1 = 3.685, half up to 3.69.
		{"600107.SH", "美尔雅", after, 3.35, 3.69, 3.02},
		{"300750.SZ", "宁德时代", after, 200.01, 240.01, 160.01},
		{"301001.SZ", "某创业", after, 10.05, 12.06, 8.04},
		{"688981.SH", "中芯国际", after, 50.05, 60.06, 40.04},
		{"689009.SH", "九号公司", after, 40, 48, 32},
		{"831445.BJ", "龙竹科技", after, 3.83, 4.98, 2.68},
		{"920001.BJ", "某北交", after, 10, 13, 7},
		{"430047.BJ", "诺思兰德", after, 9.99, 12.99, 6.99},
		{"600107.SH", "ST美尔雅", before, 3.35, 3.52, 3.18},
		{"000040.SZ", "*ST东旭", before, 1.01, 1.06, 0.96},
		// From the exchanges' 2025-06-27 proposal to move ST to ±10 %, whose
		// effective day is not confirmed here: no rule-based limit at all.
		{"600107.SH", "ST美尔雅", after, 3.35, 0, 0},
		{"000040.SZ", "*ST东旭", 20250627, 1.01, 0, 0},
		{"300001.SZ", "ST特锐", before, 10, 12, 8}, // ChiNext keeps 20 % under ST
		// Before ChiNext's registration reform (2020-08-24) it followed the
		// main boards: ±10 %, ±5 % under a risk warning.
		{"300750.SZ", "宁德时代", 20200821, 150, 165, 135},
		{"300001.SZ", "ST特锐", 20200821, 10, 10.5, 9.5},
		{"300750.SZ", "宁德时代", 20200824, 150, 180, 120},
		{"000001.SH", "上证指数", after, 3812.02, 0, 0},
		{"399006.SZ", "创业板指", after, 2180, 0, 0},
		{"510300.SH", "沪深300ETF", after, 4.001, 0, 0},
		{"001389.SZ", "N广合", after, 17.43, 0, 0},
		{"688799.SH", "C华纳", after, 30, 0, 0},
		{"000001.SZ", "平安银行", after, 0.01, 0.01, 0.01},
	} {
		c := market.MustCode(tt.code)
		pct, ok := LimitPct(c, tt.name, tt.day)
		var up, down float64
		if ok {
			up, down, ok = Limits(tt.prev, pct)
		}
		if !ok {
			up, down = 0, 0
		}
		if up != tt.up || down != tt.down {
			t.Errorf("limits of %s %s from %v on %v = %v / %v, want %v / %v", tt.code, tt.name, tt.prev, tt.day, up, down, tt.up, tt.down)
		}
	}
	if _, _, ok := Limits(math.NaN(), 10); ok {
		t.Error("a NaN previous close has limits")
	}
}

func TestStatusAt(t *testing.T) {
	cal := market.DefaultCalendar()
	mon := market.Day(20261123)
	at := func(d market.Day, hh, mm int) time.Time { return d.At(hh, mm, 0) }
	traded := market.Quote{Code: market.MustCode("600519.SH"), Price: 1500, Volume: 100}
	none := market.Quote{Code: market.MustCode("600519.SH"), Price: math.NaN(), Volume: -1}
	index := market.Quote{Code: market.MustCode("000001.SH"), Price: 3800, Volume: 0}
	for _, tt := range []struct {
		at          time.Time
		q           market.Quote
		want        Status
		wantPhase   string
		description string
	}{
		{at(20261121, 10, 0), traded, Closed, market.PhaseClosed, "a Saturday"},
		{at(20261001, 10, 0), traded, Closed, market.PhaseClosed, "national day"},
		{at(mon, 9, 14), traded, Closed, market.PhaseClosed, "before the auction"},
		{at(mon, 9, 15), traded, Auction, market.PhasePreAuction, "the auction opens"},
		{at(mon, 9, 20), none, Auction, market.PhasePreAuction, "nothing matched yet is not a suspension"},
		{at(mon, 9, 27), traded, Auction, market.PhasePreOpen, "matched, before continuous trading"},
		{at(mon, 9, 30), traded, Trading, market.PhaseMorning, "continuous trading"},
		{at(mon, 11, 29), traded, Trading, market.PhaseMorning, ""},
		{at(mon, 11, 30), traded, Break, market.PhaseLunch, "lunch"},
		{at(mon, 13, 0), traded, Trading, market.PhaseAfternoon, ""},
		{at(mon, 14, 58), traded, Trading, market.PhaseCloseCall, "the closing call"},
		{at(mon, 15, 0), traded, Closed, market.PhaseClosed, "closed"},
		{at(mon, 10, 0), none, Suspended, market.PhaseMorning, "no trade in the session"},
		{at(mon, 12, 0), none, Suspended, market.PhaseLunch, ""},
		{at(mon, 16, 0), none, Suspended, market.PhaseClosed, "the day's session ran without it"},
		{at(20261124, 8, 0), none, Closed, market.PhaseClosed, "the next morning"},
		{at(mon, 10, 0), index, Trading, market.PhaseMorning, "an index is never suspended"},
	} {
		got, phase := StatusAt(cal, tt.at, tt.q)
		if got != tt.want || phase != tt.wantPhase {
			t.Errorf("StatusAt(%s, %s) = %s %s, want %s %s (%s)", market.FormatTime(tt.at), tt.q.Code, got, phase, tt.want, tt.wantPhase, tt.description)
		}
	}
}
