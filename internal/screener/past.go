package screener

import (
	"context"
	"math"

	"mdqs/db"
	"mdqs/internal/market"
	"mdqs/internal/secmaster"
)

// Past is the security master (secmaster.Service): who was listed on a
// past day, under which name. A screen of a past date takes its universe
// from there, so stocks delisted since are screened and stocks listed
// later are not: a screen of today's list run on old bars would be
// survivorship-biased.
type Past interface {
	CheckDay(ctx context.Context, day market.Day) (db.RecordedDays, error)
	Universe(ctx context.Context, day market.Day, f secmaster.Filter) ([]secmaster.Security, db.RecordedDays, error)
}

// ReadPastFrom lets screens name a past date (universe.date), answered
// from p's universe of that day. Call before the frame is used.
func (f *Frame) ReadPastFrom(p Past) { f.past = p }

// RowsOn is every stock listed on a past trading day as a Row of that
// day's close: price, change, range and volume from its daily bar (none
// when it was suspended), the indicators from the bars through that day,
// the turnover rate and the market values from the share counts in force
// that day (secmaster: the gbbq's records; unknown without one), today's
// industry and concepts (the only membership known). What the store keeps
// only for the latest day (chips, signals, the hot rank) and what only a
// live quote carries (open, amount, P/E, flows) are unknown, NaN, so an
// expression using them matches nothing rather than something of another
// day.
func (f *Frame) RowsOn(ctx context.Context, day market.Day) ([]Row, error) {
	if err := f.CheckPastDay(ctx, day); err != nil {
		return nil, err
	}
	secs, _, err := f.past.Universe(ctx, day, secmaster.Filter{Type: market.TypeStock})
	if err != nil {
		return nil, err
	}
	d, err := f.pastPart(ctx, day)
	if err != nil {
		return nil, err
	}
	nan := math.NaN()
	rows := make([]Row, 0, len(secs))
	var buf indicatorBuf
	for _, sec := range secs {
		code := sec.Code.String()
		r := Row{Code: code, Name: sec.Name, Market: string(sec.Code.Exchange), Price: nan, Pct: nan, Open: nan, High: nan, Low: nan,
			PrevClose: nan, Volume: nan, Amount: nan, Turnover: nan, Amplitude: nan, VolumeRatio: nan, PE: nan, PB: nan,
			MarketCap: nan, FloatCap: nan, MainNet: nan, MainNetRatio: nan, HotRank: nan, HotHeat: nan}
		s, _ := d.hist.series(code)
		if n := len(s.close); n > 0 && s.last == day {
			r.Price, r.High, r.Low, r.Volume = s.close[n-1], s.high[n-1], s.low[n-1], s.vol[n-1]
			if n > 1 && s.close[n-2] > 0 {
				r.PrevClose = s.close[n-2]
				r.Pct = (r.Price/r.PrevClose - 1) * 100
				r.Amplitude = (r.High - r.Low) / r.PrevClose * 100
			}
			if sh := sec.Shares; sh.Float > 0 {
				r.Turnover = math.Round(r.Volume/float64(sh.Float)*1e4) / 100
				r.FloatCap, r.MarketCap = r.Price*float64(sh.Float), r.Price*float64(sh.Total)
			}
		}
		// A past part holds the membership only: chips and signals stay
		// unknown.
		st, ok := d.static[code]
		if !ok {
			st = unknownStatic()
		}
		r.Industry, r.Concepts = st.industry, st.concepts
		if r.Concepts == nil {
			r.Concepts = []string{}
		}
		r.AvgCost, r.ProfitRatio, r.Concentration70, r.Concentration90 = st.avgCost, st.profitRatio, st.conc70, st.conc90
		r.MicroVolRatio, r.VolAcc = st.microVolRatio, st.volAcc
		buf.indicators(&r, s, market.Quote{})
		rows = append(rows, r)
	}
	return rows, nil
}

// CheckPastDay says what is wrong with screening day, before a screen is
// queued: not a trading day before today, or a day the security master
// did not record.
func (f *Frame) CheckPastDay(ctx context.Context, day market.Day) error {
	if f.past == nil {
		return market.NotConfigured("screens of a past date need the security master, which this server does not run")
	}
	today := f.cal.OnOrBefore(market.DayOf(f.clock.Now()))
	if !f.cal.IsTradingDay(day) || day >= today {
		return market.Errorf(market.KindInvalid, "universe.date %v: want a trading day before %v (leave it out to screen today)", day, today)
	}
	_, err := f.past.CheckDay(ctx, day)
	return err
}

// pastPart is the daily part of a past day: the last one built is kept,
// since a client screening a day usually screens it more than once.
func (f *Frame) pastPart(ctx context.Context, day market.Day) (*dailyPart, error) {
	f.pastMu.Lock()
	defer f.pastMu.Unlock()
	if f.pastDay != nil && f.pastDay.day == day {
		return f.pastDay, nil
	}
	d, err := f.build(ctx, day, 0, f.pastDay, true)
	if err != nil {
		return nil, err
	}
	f.pastDay = d
	return d, nil
}
