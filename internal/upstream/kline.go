package upstream

import (
	"fmt"
	"math"
	"strings"
	"time"

	"mdqs/internal/market"
)

// The CSV rows of push2his are positional, in the order of the fields2 we
// send; only these parsers know the positions.

const minuteLayout = "2006-01-02 15:04"

// parseKlineRow reads a kline/get row, fields2=f51..f61:
// date,open,close,high,low,volume,amount[,amplitude,pct,change,turnover].
// Close comes before high and low. The first seven are required (a fields2
// subset such as f51..f58 gives eight); turnover is read when present.
// Daily rows carry YYYY-MM-DD and close at 15:00; minute rows carry
// "YYYY-MM-DD HH:MM", the minute the bar ends.
func parseKlineRow(s string, minute bool) (market.Bar, error) {
	f := strings.Split(s, ",")
	if len(f) < 7 {
		return market.Bar{}, fmt.Errorf("want at least 7 comma-separated fields, got %d", len(f))
	}
	b := market.Bar{TurnoverRate: math.NaN(), LargeOrderNet: math.NaN()}
	var err error
	if b.Day, b.TS, err = rowTime(f[0], minute); err != nil {
		return market.Bar{}, err
	}
	if err := ohlcva(&b, f[1], f[3], f[4], f[2], f[5], f[6], false); err != nil {
		return market.Bar{}, err
	}
	if len(f) > 10 {
		v, st := parseNumText(f[10])
		if st == bad {
			return market.Bar{}, fmt.Errorf("turnover %q is not a number", clip(f[10], 20))
		}
		b.TurnoverRate = v
	}
	return b, nil
}

// parseTrendRow reads a trends2 row,
// "YYYY-MM-DD HH:MM,open,close,high,low,volume,amount,avg". The open may be
// 0.00 (days before the latest when ndays > 1); fixTrendOpens rebuilds it.
func parseTrendRow(s string) (market.Bar, error) {
	f := strings.Split(s, ",")
	if len(f) < 7 {
		return market.Bar{}, fmt.Errorf("want at least 7 comma-separated fields, got %d", len(f))
	}
	b := market.Bar{TurnoverRate: math.NaN(), LargeOrderNet: math.NaN()}
	var err error
	if b.Day, b.TS, err = rowTime(f[0], true); err != nil {
		return market.Bar{}, err
	}
	if err := ohlcva(&b, f[1], f[3], f[4], f[2], f[5], f[6], true); err != nil {
		return market.Bar{}, err
	}
	return b, nil
}

func rowTime(s string, minute bool) (market.Day, int64, error) {
	s = strings.TrimSpace(s)
	if !minute {
		d, err := market.ParseDay(s)
		if err != nil || len(s) != 10 {
			return 0, 0, fmt.Errorf("date %q: want YYYY-MM-DD", clip(s, 24))
		}
		return d, d.At(15, 0, 0).Unix(), nil
	}
	if len(s) == len(minuteLayout)+3 { // tolerate seconds, "YYYY-MM-DD HH:MM:SS"
		s = s[:len(minuteLayout)]
	}
	t, err := time.ParseInLocation(minuteLayout, s, market.Shanghai())
	if err != nil {
		return 0, 0, fmt.Errorf("time %q: want YYYY-MM-DD HH:MM", clip(s, 24))
	}
	return market.DayOf(t), t.Unix(), nil
}

// ohlcva fills prices, volume (lots -> shares) and amount. Prices and
// volume must be numbers: a bar without them is no bar. zeroOpen allows an
// open of 0 (trends2's earlier days).
func ohlcva(b *market.Bar, open, high, low, close, vol, amount string, zeroOpen bool) error {
	for _, p := range []struct {
		name string
		text string
		dst  *float64
	}{{"open", open, &b.Open}, {"high", high, &b.High}, {"low", low, &b.Low}, {"close", close, &b.Close}, {"amount", amount, &b.Amount}} {
		v, st := parseNumText(p.text)
		if st != ok {
			return fmt.Errorf("%s %q is not a number", p.name, clip(p.text, 20))
		}
		*p.dst = v
	}
	if b.Open == 0 && !zeroOpen {
		return fmt.Errorf("open is 0")
	}
	v, st := parseNumText(vol)
	if st != ok || v < 0 || v > 9e16 {
		return fmt.Errorf("volume %q is not a lot count", clip(vol, 20))
	}
	b.Volume = lotsToShares(v)
	return nil
}

// fixTrendOpens replaces the 0.00 open that trends2 gives every point of
// the days before the latest one (ndays > 1). A zero open would read as a
// crash to 0. The opening-auction point (09:30) trades at one price, so its
// open is its close; any other point opens where the previous point closed,
// clamped into its own high-low range. The result is derived, not reported.
func fixTrendOpens(bars []market.Bar) {
	for i := range bars {
		b := &bars[i]
		if b.Open > 0 {
			continue
		}
		ref := b.Close
		if i > 0 && !isAuction(*b) {
			ref = bars[i-1].Close
		}
		b.Open = math.Min(math.Max(ref, b.Low), b.High)
	}
}

func isAuction(b market.Bar) bool {
	t := time.Unix(b.TS, 0).In(market.Shanghai())
	return t.Hour() == 9 && t.Minute() == 30
}

// foldAuction merges the 09:30 opening-auction point into the first bar of
// the session, so a minute series has 240 bars a day labelled 09:31..15:00
// (the 09:31 bar covers 09:30-09:31, as market.Bar and the terminal label
// it): open from the auction, high/low widened, volume and amount added.
// An auction point with no bar after it on its day (fetched at 09:30:30)
// becomes that first bar itself.
func foldAuction(bars []market.Bar, step time.Duration) []market.Bar {
	out := bars[:0]
	for i := 0; i < len(bars); i++ {
		b := bars[i]
		if !isAuction(b) {
			out = append(out, b)
			continue
		}
		if i+1 < len(bars) && bars[i+1].Day == b.Day && bars[i+1].TS == b.TS+int64(step/time.Second) {
			n := &bars[i+1]
			n.Open = b.Open
			n.High = math.Max(n.High, b.High)
			n.Low = math.Min(n.Low, b.Low)
			n.Volume += b.Volume
			n.Amount += b.Amount
			if market.IsKnown(n.TurnoverRate) && market.IsKnown(b.TurnoverRate) {
				n.TurnoverRate += b.TurnoverRate
			}
			continue
		}
		b.TS += int64(step / time.Second)
		out = append(out, b)
	}
	return out
}

// FundFlowDay is one day of a security's fund flow (push2his
// fflow/daykline). Money is in yuan, ratios in percent of the day's amount.
// Main = large + super-large orders, the figure market.Bar.LargeOrderNet
// holds. Unknown values ("-", or columns a shorter row lacks) are NaN.
type FundFlowDay struct {
	Day                                              market.Day
	MainNet, SmallNet, MediumNet, LargeNet, SuperNet float64
	MainPct, SmallPct, MediumPct, LargePct, SuperPct float64
	Close, Pct                                       float64
}

// parseFundFlowRow reads "date,main,small,medium,large,super,main%,small%,
// medium%,large%,super%,close,pct[,-,-]". Date and the five nets are
// required positions; real replies have 13 or 15 fields.
func parseFundFlowRow(s string) (FundFlowDay, error) {
	f := strings.Split(s, ",")
	if len(f) < 6 {
		return FundFlowDay{}, fmt.Errorf("want at least 6 comma-separated fields, got %d", len(f))
	}
	var d FundFlowDay
	var err error
	if d.Day, _, err = rowTime(f[0], false); err != nil {
		return FundFlowDay{}, err
	}
	dst := []*float64{&d.MainNet, &d.SmallNet, &d.MediumNet, &d.LargeNet, &d.SuperNet,
		&d.MainPct, &d.SmallPct, &d.MediumPct, &d.LargePct, &d.SuperPct, &d.Close, &d.Pct}
	for i, p := range dst {
		*p = math.NaN()
		if i+1 >= len(f) {
			continue
		}
		v, st := parseNumText(f[i+1])
		if st == bad {
			return FundFlowDay{}, fmt.Errorf("field %d %q is not a number", i+1, clip(f[i+1], 20))
		}
		*p = v
	}
	return d, nil
}

// ApplyFundFlow copies each day's main net into LargeOrderNet of the daily
// bar of that day; bars without a matching day keep NaN.
func ApplyFundFlow(bars []market.Bar, flows []FundFlowDay) {
	byDay := make(map[market.Day]float64, len(flows))
	for _, f := range flows {
		byDay[f.Day] = f.MainNet
	}
	for i := range bars {
		if v, ok := byDay[bars[i].Day]; ok {
			bars[i].LargeOrderNet = v
		}
	}
}
