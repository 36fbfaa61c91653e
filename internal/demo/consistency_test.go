package demo

import (
	"context"
	"math"
	"testing"

	"mdqs/internal/market"
)

// aggregate folds bars the way a daily bar folds its minutes.
func aggregateBars(bs []market.Bar) market.Bar {
	a := bs[0]
	for _, b := range bs[1:] {
		a.High = math.Max(a.High, b.High)
		a.Low = math.Min(a.Low, b.Low)
		a.Close = b.Close
		a.Volume += b.Volume
		a.Amount += b.Amount
		a.LargeOrderNet += b.LargeOrderNet
	}
	return a
}

func sameOHLCV(a, b market.Bar) bool {
	return a.Open == b.Open && a.High == b.High && a.Low == b.Low && a.Close == b.Close &&
		a.Volume == b.Volume && a.Amount == b.Amount && a.LargeOrderNet == b.LargeOrderNet
}

func TestDailyBarIsTheAggregateOfItsMinutes(t *testing.T) {
	m, _ := newMarket(t, smallConfig(11), at(20270331, 16, 0, 0))
	days := []market.Day{20150105, 20190620, 20261120, 20261231, 20270104, 20270331}
	for _, c := range sample(m, 151) {
		for _, d := range days {
			daily := klines(t, m, c, market.Daily, d, d)
			one := klines(t, m, c, market.Min1, d, d)
			five := klines(t, m, c, market.Min5, d, d)
			if len(daily) == 0 {
				if len(one) != 0 {
					t.Fatalf("%v %v: minute bars without a daily bar", c, d)
				}
				continue // listed later
			}
			if len(one) != 240 || len(five) != 48 {
				t.Fatalf("%v %v: %d one-minute and %d five-minute bars, want 240 and 48", c, d, len(one), len(five))
			}
			if got := aggregateBars(one); !sameOHLCV(got, daily[0]) {
				t.Fatalf("%v %v: daily bar %+v, aggregate of minutes %+v", c, d, daily[0], got)
			}
			if got := aggregateBars(five); !sameOHLCV(got, daily[0]) {
				t.Fatalf("%v %v: daily bar %+v, aggregate of 5-minute bars %+v", c, d, daily[0], got)
			}
			for g := 0; g < 48; g++ {
				if got := aggregateBars(one[5*g : 5*g+5]); !sameOHLCV(got, five[g]) || five[g].TS != one[5*g+4].TS {
					t.Fatalf("%v %v: 5-minute bar %d is not its five minutes", c, d, g)
				}
			}
			// Labels: 09:31..11:30 and 13:01..15:00, the daily bar at 15:00.
			if one[0].TS != d.At(9, 31, 0).Unix() || one[119].TS != d.At(11, 30, 0).Unix() ||
				one[120].TS != d.At(13, 1, 0).Unix() || one[239].TS != d.At(15, 0, 0).Unix() ||
				five[0].TS != d.At(9, 35, 0).Unix() || daily[0].TS != d.At(15, 0, 0).Unix() {
				t.Fatalf("%v %v: bar labels wrong", c, d)
			}
			for i := 1; i < 240; i++ {
				if one[i].Open != one[i-1].Close {
					t.Fatalf("%v %v: minute %d opens at %v after a close of %v", c, d, i, one[i].Open, one[i-1].Close)
				}
			}
		}
	}
}

func TestQuoteIsThePathUpToTheInstant(t *testing.T) {
	now := at(20261120, 10, 47, 30)
	m, _ := newMarket(t, smallConfig(12), now)
	qs := quotesAt(t, m, now)
	byCode := map[market.Code]market.Quote{}
	for _, q := range qs {
		byCode[q.Code] = q
	}
	for _, c := range sample(m, 61) {
		q, ok := byCode[c]
		if !ok {
			t.Fatalf("%v missing from the quotes", c)
		}
		// With the clock at 10:47:30, K-lines hold the completed bars only.
		bars := klines(t, m, c, market.Min1, 20261120, 20261120)
		if len(bars) != 77 || bars[76].TS != at(20261120, 10, 47, 0).Unix() {
			t.Fatalf("%v: %d bars up to 10:47:30, want 77 ending 10:47", c, len(bars))
		}
		a := aggregateBars(bars)
		if q.Price != a.Close || q.Open != a.Open || q.High != a.High || q.Low != a.Low ||
			q.Volume != a.Volume || q.Amount != a.Amount || q.MainNet != a.LargeOrderNet {
			t.Fatalf("%v: quote %+v is not the path %+v", c, q, a)
		}
		if !q.At.Equal(at(20261120, 10, 47, 0)) {
			t.Fatalf("%v: At = %v, want 10:47:00", c, q.At)
		}
		if d := klines(t, m, c, market.Daily, 20261119, 0); len(d) != 1 || refClose(exMaps(m, c), 20261120, d[0].Close) != q.PrevClose {
			t.Fatalf("%v: daily bars %+v; want only yesterday's, closing at the quote's previous close %v", c, d, q.PrevClose)
		}
	}
}

func TestSectorIsTheAggregateOfItsMembers(t *testing.T) {
	ts := at(20261118, 13, 44, 0)
	m, _ := newMarket(t, smallConfig(13), at(20261120, 16, 0, 0))
	quotes := map[market.Code]market.Quote{}
	for _, q := range quotesAt(t, m, ts) {
		quotes[q.Code] = q
	}
	fs := map[market.Code]float64{}
	for _, s := range m.Stocks() {
		fs[s.Code] = float64(s.FloatShares)
	}
	for _, kind := range []market.SectorKind{market.Industry, market.Concept} {
		snap := sectorsAt(t, m, kind, ts)
		if snap.Source != Source || snap.Kind != kind || !snap.At.Equal(ts) {
			t.Fatalf("snapshot header %v %v %v", snap.Source, snap.Kind, snap.At)
		}
		boards := map[string]Board{}
		for _, b := range m.Boards(kind) {
			boards[b.Code] = b
		}
		if len(snap.Sectors) != len(boards) {
			t.Fatalf("%s: %d sectors, %d boards", kind, len(snap.Sectors), len(boards))
		}
		for _, s := range snap.Sectors {
			b := boards[s.Code]
			var amt, mf, vol, fsum, num, den float64
			up, down, flat := 0, 0, 0
			minP, maxP := math.Inf(1), math.Inf(-1)
			leaderIn := false
			traded := 0
			for _, c := range b.Members {
				q, listed := quotes[c]
				if !listed {
					continue // delisted since, or not listed yet
				}
				if math.IsNaN(q.Price) {
					// Suspended: its weight stays in the index at the
					// previous close; it neither rises, falls nor trades.
					den += fs[c] * q.PrevClose
					continue
				}
				traded++
				amt += q.Amount
				mf += q.MainNet
				vol += float64(q.Volume)
				fsum += fs[c]
				num += fs[c] * (q.Price - q.PrevClose)
				den += fs[c] * q.PrevClose
				switch {
				case q.Price > q.PrevClose:
					up++
				case q.Price < q.PrevClose:
					down++
				default:
					flat++
				}
				minP, maxP = math.Min(minP, q.Pct), math.Max(maxP, q.Pct)
				if c.Symbol == s.LeaderCode && q.Name == s.LeaderName && q.Pct == s.LeaderPct {
					leaderIn = true
				}
			}
			if s.Amount != amt || s.MainNet != mf {
				t.Errorf("%s %s: amount %v main %v; members sum to %v, %v", kind, s.Name, s.Amount, s.MainNet, amt, mf)
			}
			if s.Up != up || s.Down != down || s.Flat != flat || up+down+flat != traded {
				t.Errorf("%s %s: up/down/flat %d/%d/%d, members %d/%d/%d of %d trading", kind, s.Name, s.Up, s.Down, s.Flat, up, down, flat, traded)
			}
			if s.Pct < minP || s.Pct > maxP {
				t.Errorf("%s %s: pct %v outside its members' %v..%v", kind, s.Name, s.Pct, minP, maxP)
			}
			if w := num / den * 100; math.Abs(s.Pct-w) > 0.006 {
				t.Errorf("%s %s: pct %v, float-cap weighted member pct %v", kind, s.Name, s.Pct, w)
			}
			if w := vol / fsum * 100; math.Abs(s.Turnover-w) > 0.006 {
				t.Errorf("%s %s: turnover %v, members %v", kind, s.Name, s.Turnover, w)
			}
			if w := mf / amt * 100; math.Abs(s.MainNetRatio-w) > 0.006 {
				t.Errorf("%s %s: main-net ratio %v, members %v", kind, s.Name, s.MainNetRatio, w)
			}
			if !leaderIn || s.LeaderPct != maxP {
				t.Errorf("%s %s: leader %s %s %v is not the member with the top pct %v", kind, s.Name, s.LeaderCode, s.LeaderName, s.LeaderPct, maxP)
			}
		}
	}
}

// A board's index closes where the next day's pre-open starts, and moves
// with its pct during the day.
func TestBoardIndexCompoundsAcrossDays(t *testing.T) {
	m, _ := newMarket(t, smallConfig(14), at(20270331, 16, 0, 0))
	for _, d := range []market.Day{20240314, 20261230, 20261231, 20270301} {
		i, _ := m.index(d)
		pair := [2]market.Day{d, m.days[i+1]} // 2026-12-31 is followed by 2027-01-01: 2027 is not in the calendar
		for _, kind := range []market.SectorKind{market.Industry, market.Concept} {
			closing := sectorsAt(t, m, kind, at(pair[0], 15, 0, 0))
			next := sectorsAt(t, m, kind, at(pair[1], 9, 0, 0))
			noon := sectorsAt(t, m, kind, at(pair[1], 11, 0, 0))
			price := map[string]float64{}
			for _, s := range closing.Sectors {
				price[s.Code] = s.Price
			}
			for i, s := range next.Sectors {
				p, ok := price[s.Code]
				if !ok {
					continue // no member listed the day before
				}
				if math.Abs(s.Price-p) > 0.011 || s.Pct != 0 || s.Amount != 0 {
					t.Fatalf("%s %s %v: pre-open price %v pct %v amount %v; the previous close was %v", kind, s.Name, pair[1], s.Price, s.Pct, s.Amount, p)
				}
				n := noon.Sectors[i]
				if want := p * (1 + n.Pct/100); math.Abs(n.Price-want) > p*0.00006+0.011 {
					t.Fatalf("%s %s %v 11:00: price %v, previous close %v moved by %v %% is %v", kind, s.Name, pair[1], n.Price, p, n.Pct, want)
				}
			}
		}
	}
}

// The universe walk (snapshots) and one stock's walk (K-lines) are two
// computations of the same closes; they must agree on every day, on both
// sides of the anchor, and on a listing day.
func TestWalksAgree(t *testing.T) {
	m, _ := newMarket(t, smallConfig(15), at(20270331, 16, 0, 0))
	for _, d := range []market.Day{20150106, 20210726, 20261231, 20270201} {
		qs := quotesAt(t, m, at(d, 15, 0, 0))
		for i, q := range qs {
			if i%7 != 0 {
				continue
			}
			bars := klines(t, m, q.Code, market.Daily, m.days[m.onOrBefore(d.AddDays(-1))], d)
			last := bars[len(bars)-1]
			if last.Day != d || last.Close != q.Price || last.Volume != q.Volume || last.Amount != q.Amount {
				t.Fatalf("%v %v: quote %v/%d/%v, daily bar %+v", q.Code, d, q.Price, q.Volume, q.Amount, last)
			}
			// On an ex-date the previous close is yesterday's mapped to
			// its reference price.
			if len(bars) == 2 && refClose(exMaps(m, q.Code), d, bars[0].Close) != q.PrevClose {
				t.Fatalf("%v %v: previous close %v, yesterday's bar closed %v", q.Code, d, q.PrevClose, bars[0].Close)
			}
		}
	}
	// A stock listed inside the history: no quote the day before, a first
	// bar on its listing day opening from the issue price.
	for _, s := range m.Stocks() {
		if s.Listed <= 20160104 || s.Listed > 20260101 {
			continue
		}
		prevDay := m.days[m.onOrBefore(s.Listed.AddDays(-1))]
		for _, q := range quotesAt(t, m, at(prevDay, 15, 0, 0)) {
			if q.Code == s.Code {
				t.Fatalf("%v quoted on %v, before its listing day %v", s.Code, prevDay, s.Listed)
			}
		}
		bars := klines(t, m, s.Code, market.Daily, 0, 20261231)
		if bars[0].Day != s.Listed {
			t.Fatalf("%v: first bar %v, listed %v", s.Code, bars[0].Day, s.Listed)
		}
		var q market.Quote
		for _, x := range quotesAt(t, m, at(s.Listed, 15, 0, 0)) {
			if x.Code == s.Code {
				q = x
			}
		}
		if q.Price != bars[0].Close || !(q.PrevClose > 0) || !math.IsNaN(q.VolumeRatio) {
			t.Fatalf("%v listing day: quote %+v, bar %+v", s.Code, q, bars[0])
		}
		break
	}
}

func TestFundFlowMatchesTheBars(t *testing.T) {
	m, _ := newMarket(t, smallConfig(16), at(20261120, 16, 0, 0))
	for _, c := range sample(m, 113) {
		bars := klines(t, m, c, market.Daily, 20261001, 0)
		flows, err := m.FundFlowDaily(context.Background(), c, 20261001, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(flows) != len(bars) {
			t.Fatalf("%v: %d flow days, %d bars", c, len(flows), len(bars))
		}
		ev := exMaps(m, c)
		for i, f := range flows {
			b := bars[i]
			if f.Day != b.Day || f.MainNet != b.LargeOrderNet || f.SuperNet+f.LargeNet != f.MainNet || f.Close != b.Close {
				t.Fatalf("%v %v: flow %+v, bar %+v", c, f.Day, f, b)
			}
			if sum := f.MainNet + f.SmallNet + f.MediumNet; sum != 0 {
				t.Fatalf("%v %v: nets sum to %v, want 0", c, f.Day, sum)
			}
			if w := f.MainNet / b.Amount * 100; math.Abs(f.MainPct-w) > 0.006 || math.Abs(f.MainPct) > 100 {
				t.Fatalf("%v %v: main pct %v, want %v", c, f.Day, f.MainPct, w)
			}
			if i > 0 {
				if w := (b.Close/refClose(ev, b.Day, bars[i-1].Close) - 1) * 100; math.Abs(f.Pct-w) > 0.006 {
					t.Fatalf("%v %v: pct %v, closes say %v", c, f.Day, f.Pct, w)
				}
			}
		}
	}
}

// sameFundBar compares a fund's bars: their main-force net is unknown
// (NaN) on both sides, as the ETF list gives none.
func sameFundBar(a, b market.Bar) bool {
	return a.Open == b.Open && a.High == b.High && a.Low == b.Low && a.Close == b.Close &&
		a.Volume == b.Volume && a.Amount == b.Amount && math.IsNaN(a.LargeOrderNet) && math.IsNaN(b.LargeOrderNet)
}

// inThousandths says a price is a whole number of the funds' 0.001 tick.
func inThousandths(p float64) bool {
	return p > 0 && math.Abs(p*1000-math.Round(p*1000)) < 1e-6
}

// The demo's ETFs are instruments as its stocks are: a day's bar is the
// aggregate of its minutes and its 5-minute bars, each minute opens at
// the close before it, every price is a whole 0.001 inside the day's
// limits (10 %, 20 % for the ChiNext fund), and a
// day's previous close is the bar before's close.
func TestFundBarsAreTheAggregateOfTheirMinutes(t *testing.T) {
	m, clk := newMarket(t, smallConfig(11), at(20270331, 16, 0, 0))
	ctx := context.Background()
	days := []market.Day{20190620, 20200821, 20200824, 20261120, 20261231, 20270104}
	for _, def := range etfDefs() {
		c := market.MustCode(def.code)
		for _, d := range days {
			clk.Set(at(20270331, 16, 0, 0))
			daily := klines(t, m, c, market.Daily, d, d)
			one := klines(t, m, c, market.Min1, d, d)
			five := klines(t, m, c, market.Min5, d, d)
			if len(daily) != 1 || len(one) != 240 || len(five) != 48 {
				t.Fatalf("%v %v: %d daily, %d one-minute and %d five-minute bars, want 1, 240 and 48", c, d, len(daily), len(one), len(five))
			}
			if got := aggregateBars(one); !sameFundBar(got, daily[0]) {
				t.Fatalf("%v %v: daily bar %+v, aggregate of minutes %+v", c, d, daily[0], got)
			}
			if got := aggregateBars(five); !sameFundBar(got, daily[0]) {
				t.Fatalf("%v %v: daily bar %+v, aggregate of 5-minute bars %+v", c, d, daily[0], got)
			}
			for g := range 48 {
				if got := aggregateBars(one[5*g : 5*g+5]); !sameFundBar(got, five[g]) || five[g].TS != one[5*g+4].TS {
					t.Fatalf("%v %v: 5-minute bar %d is not its five minutes", c, d, g)
				}
			}
			if one[0].TS != d.At(9, 31, 0).Unix() || one[239].TS != d.At(15, 0, 0).Unix() || daily[0].TS != d.At(15, 0, 0).Unix() {
				t.Fatalf("%v %v: bar labels wrong", c, d)
			}
			clk.Set(at(d, 15, 30, 0))
			q, err := m.Quote(ctx, c)
			if err != nil {
				t.Fatal(err)
			}
			pct := 10.0
			if def.code == "159915.SZ" {
				pct = 20 // its index's ChiNext stocks are ±20 % on every demo day
			}
			up, down := math.Floor(q.PrevClose*(100+pct)*10+0.5)/1000, math.Floor(q.PrevClose*(100-pct)*10+0.5)/1000
			if math.Abs(q.LimitUp-up) > 1e-9 || math.Abs(q.LimitDown-down) > 1e-9 {
				t.Fatalf("%v %v: limits %v/%v from %v; want ±%v %%: %v/%v", c, d, q.LimitUp, q.LimitDown, q.PrevClose, pct, up, down)
			}
			for i, b := range one {
				if i > 0 && b.Open != one[i-1].Close {
					t.Fatalf("%v %v: minute %d opens at %v after a close of %v", c, d, i, b.Open, one[i-1].Close)
				}
				for _, p := range []float64{b.Open, b.High, b.Low, b.Close} {
					if !inThousandths(p) || p > q.LimitUp || p < q.LimitDown || b.High < max(b.Open, b.Close) || b.Low > min(b.Open, b.Close) {
						t.Fatalf("%v %v minute %d: %+v; a price off the 0.001 tick or outside %v..%v", c, d, i, b, q.LimitDown, q.LimitUp)
					}
				}
				if b.Volume <= 0 || b.Volume%100 != 0 || !(b.Amount >= float64(b.Volume)*b.Low-1) || !(b.Amount <= float64(b.Volume)*b.High+1) {
					t.Fatalf("%v %v minute %d: volume %d amount %v outside %v..%v", c, d, i, b.Volume, b.Amount, b.Low, b.High)
				}
			}
			prev := klines(t, m, c, market.Daily, m.days[m.onOrBefore(d.AddDays(-1))], m.days[m.onOrBefore(d.AddDays(-1))])
			if len(prev) != 1 || prev[0].Close != q.PrevClose || q.Price != daily[0].Close || q.Volume != daily[0].Volume {
				t.Fatalf("%v %v: quote %v/%v/%d; the bars say %+v, %+v", c, d, q.PrevClose, q.Price, q.Volume, prev, daily[0])
			}
		}
	}
}

// A fund's quote at an instant is its minutes so far, as a stock's is,
// and the ETF list at that instant says the same price, range, volume
// and amount; its 09:25 auction opens the first minute; trends2 holds
// the same minutes; the security master's history lists the funds.
func TestFundQuoteIsTheETFListAndThePathSoFar(t *testing.T) {
	d := market.Day(20261120)
	m, clk := newMarket(t, smallConfig(12), at(d, 10, 47, 30))
	ctx := context.Background()
	yesterday := m.days[m.onOrBefore(d.AddDays(-1))]
	for _, ts := range []struct{ hh, mm, bars int }{{9, 20, -1}, {9, 27, 0}, {10, 47, 77}, {13, 0, 120}, {15, 0, 240}} {
		now := at(d, ts.hh, ts.mm, 30)
		clk.Set(now)
		etfs, err := m.ETFs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(etfs) != len(etfDefs()) {
			t.Fatalf("%v: %d funds listed", now, len(etfs))
		}
		for _, e := range etfs {
			q, err := m.Quote(ctx, e.Code)
			if err != nil {
				t.Fatalf("%v: %v", e.Code, err)
			}
			if q.Name != e.Name || q.Price != e.Price || q.PrevClose != e.PrevClose || q.Volume != e.Volume || q.Amount != e.Amount ||
				!same(q.Open, e.Open) || !same(q.High, e.High) || !same(q.Low, e.Low) || q.Pct != e.Pct || q.Change != e.Change || !q.At.Equal(e.At) {
				t.Fatalf("%v at %v: quote %+v; the ETF list says %+v", e.Code, now, q, e)
			}
			if y := klines(t, m, e.Code, market.Daily, yesterday, yesterday); len(y) != 1 || y[0].Close != q.PrevClose {
				t.Fatalf("%v: previous close %v, yesterday's bar %+v", e.Code, q.PrevClose, y)
			}
			bars := klines(t, m, e.Code, market.Min1, d, d)
			full := klines(t, m, e.Code, market.Daily, d, d)
			switch {
			case ts.bars < 0:
				if len(bars) != 0 || q.Price != q.PrevClose || q.Volume != 0 || !math.IsNaN(q.Open) {
					t.Fatalf("%v pre-open: %d bars, quote %+v", e.Code, len(bars), q)
				}
			case ts.bars == 0:
				clk.Set(at(d, 16, 0, 0))
				first := klines(t, m, e.Code, market.Min1, d, d)[0]
				clk.Set(now)
				if len(bars) != 0 || q.Price != first.Open || q.Open != first.Open || q.Volume <= 0 || q.Volume >= first.Volume {
					t.Fatalf("%v auction: %d bars, quote %+v; the first minute %+v", e.Code, len(bars), q, first)
				}
			default:
				a := aggregateBars(bars)
				if len(bars) != ts.bars || q.Price != a.Close || q.Open != a.Open || q.High != a.High || q.Low != a.Low ||
					q.Volume != a.Volume || q.Amount != a.Amount || len(full) != map[bool]int{true: 1}[ts.bars == 240] {
					t.Fatalf("%v at %v: %d bars %+v, quote %+v", e.Code, now, len(bars), a, q)
				}
			}
			if ts.bars > 0 {
				tr, err := m.Trends(ctx, e.Code, 2)
				if err != nil {
					t.Fatal(err)
				}
				if len(tr) != 240+ts.bars || !sameFundBar(tr[len(tr)-1], bars[len(bars)-1]) || tr[len(tr)-1].TS != bars[len(bars)-1].TS || tr[239].Close != q.PrevClose {
					t.Fatalf("%v: %d trends, last %+v; K-lines %+v", e.Code, len(tr), tr[len(tr)-1], bars[len(bars)-1])
				}
			}
		}
	}
	names, halted := m.NamesOn(yesterday), m.SuspendedOn(yesterday)
	for _, def := range etfDefs() {
		if c := market.MustCode(def.code); names[c] != def.name || halted[c] {
			t.Errorf("%v on %v: named %q, suspended %v; want %q trading", c, yesterday, names[c], halted[c], def.name)
		}
	}
}

// same is equality that holds NaN equal to NaN.
func same(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }
