package lhb

import (
	"context"
	"math"
	"time"
	"unicode/utf8"

	"mdqs/db"
	"mdqs/internal/market"
	"mdqs/internal/upstream"
)

// Stock is one stock's listing on one day: its reasons (each with the
// billboard's amounts of that reason's window) and, when asked, its seats.
type Stock struct {
	Day      market.Day
	Code     market.Code
	Name     string
	Reasons  []db.LHBListing
	Buy      []db.LHBSeat // the top buying seats, largest first
	Sell     []db.LHBSeat
	HasSeats bool
}

// DayAnswer is GET /lhb?date=: the day's import record and its stocks.
type DayAnswer struct {
	Record db.LHBDay
	Stocks []Stock
}

// Coverage says which trading days of a range the store holds.
type Coverage struct {
	From, To    market.Day
	TradingDays int
	Imported    int
	Missing     []market.Day // trading days of the range not imported (at most the first 20)
	Source      string       // the newest imported day's source
	AsOf        time.Time    // the newest import of the range
	Latest      market.Day   // the newest imported day of the range
}

// StockAnswer is GET /lhb?code=: one stock's listings over a range.
type StockAnswer struct {
	Coverage
	Code   market.Code
	Stocks []Stock
}

// SeatTotals sum a seat's rows of a range.
type SeatTotals struct {
	Rows, Days, Stocks int
	Buy, Sell, Net     float64
}

// SeatAnswer is GET /lhb/seats: a seat's rows over a range, paged, and the
// totals of all of them.
type SeatAnswer struct {
	Coverage
	Name     string
	Totals   SeatTotals
	Items    []db.LHBSeat
	Page     int
	PageSize int
}

// Day answers the list of one day. A day not imported is 404 saying why
// (not a trading day; published after 18:00; the job has not got it yet;
// older than the job reaches: backfill it), or 503 when it is missing
// because the source is failing. A day imported without a list is an
// answer with no stocks.
func (s *Service) Day(ctx context.Context, day market.Day, seats bool) (DayAnswer, error) {
	rec, err := s.store.LHBDayRecord(ctx, day)
	if market.KindOf(err) == market.KindNotFound {
		return DayAnswer{}, s.missing(ctx, day)
	}
	if err != nil {
		return DayAnswer{}, err
	}
	stocks, err := s.stocks(ctx, market.Code{}, day, day, seats)
	if err != nil {
		return DayAnswer{}, err
	}
	return DayAnswer{Record: rec, Stocks: stocks}, nil
}

// missing is the error of a day the store does not hold.
func (s *Service) missing(ctx context.Context, day market.Day) error {
	now := s.clock.Now()
	today := market.DayOf(now)
	switch {
	case s.cal != nil && !s.cal.IsTradingDay(day):
		return market.Errorf(market.KindNotFound, "%v is not a trading day: no dragon-tiger list is published for it", day)
	case now.Before(s.Published(day)):
		when := "today"
		if day > today {
			when = "on " + day.String()
		}
		return market.Errorf(market.KindNotFound, "the dragon-tiger list of %v is not published yet: it comes out after %s Shanghai %s, and is imported then",
			day, s.cfg.PublishAt, when)
	}
	due := s.Due(now)
	if len(due) > 0 && day >= due[0] {
		if err := s.outage(ctx, "the dragon-tiger list of "+day.String()+" is not imported", day.String()); err != nil {
			return err
		}
		return market.Errorf(market.KindNotFound, "the dragon-tiger list of %v is not imported yet: the lhb job asks for it every %s from %s Shanghai until it appears",
			day, s.cfg.Interval, s.cfg.PublishAt)
	}
	return market.Errorf(market.KindNotFound, "the dragon-tiger list of %v is not imported: the daily job keeps the last %d trading days; `mdqs lhb backfill -from %v -to %v` imports older ones",
		day, s.cfg.CatchUpDays, day, day)
}

// outage is the 503 of an answer missing for the source's failure, nil
// when nothing says so (upstream.Outage): scope is the day's import runs.
func (s *Service) outage(ctx context.Context, what, scope string) error {
	now := s.clock.Now()
	ev := upstream.Evidence{Sources: []string{s.cfg.Source}, Statuses: s.Statuses()}
	run, err := s.store.LastImport(ctx, ImportKind, scope, false)
	switch {
	case err == nil:
		ev.LastError, ev.LastAt = run.Error, run.Finished
	case market.KindOf(err) != market.KindNotFound:
		return err
	}
	ev.NextImport = s.cfg.Interval
	return upstream.Outage(what, now, ev)
}

// stocks groups the listings of from..to (one stock or all) by day and
// stock, with their seats when asked.
func (s *Service) stocks(ctx context.Context, code market.Code, from, to market.Day, seats bool) ([]Stock, error) {
	ls, err := s.store.LHBListings(ctx, code, from, to)
	if err != nil {
		return nil, err
	}
	out := []Stock{}
	at := map[[2]string]int{}
	for _, l := range ls {
		k := [2]string{l.Day.String(), l.Code.String()}
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, Stock{Day: l.Day, Code: l.Code, Name: l.Name, Buy: []db.LHBSeat{}, Sell: []db.LHBSeat{}, HasSeats: seats})
		}
		out[i].Reasons = append(out[i].Reasons, l)
	}
	if !seats || len(out) == 0 {
		return out, nil
	}
	st, _, err := s.store.LHBSeats(ctx, db.LHBSeatQuery{Code: code, From: from, To: to})
	if err != nil {
		return nil, err
	}
	for _, x := range st {
		i, ok := at[[2]string{x.Day.String(), x.Code.String()}]
		if !ok {
			continue
		}
		if x.Side == "sell" {
			out[i].Sell = append(out[i].Sell, x)
		} else {
			out[i].Buy = append(out[i].Buy, x)
		}
	}
	return out, nil
}

// Range checks a query's start..end: both set, in order, at most
// MaxRangeDays long. Zero ends default to the last 90 days through today.
func (s *Service) Range(from, to market.Day) (market.Day, market.Day, error) {
	if to == 0 {
		to = market.DayOf(s.clock.Now())
	}
	if from == 0 {
		from = to.AddDays(-89)
	}
	switch {
	case from > to:
		return 0, 0, market.Errorf(market.KindInvalid, "start %v is after end %v", from, to)
	case to.EpochDays()-from.EpochDays()+1 > int64(s.cfg.MaxRangeDays):
		return 0, 0, market.Errorf(market.KindInvalid, "start..end spans %d days; at most %d: narrow the range",
			to.EpochDays()-from.EpochDays()+1, s.cfg.MaxRangeDays)
	}
	return from, to, nil
}

// coverage reads the import records of from..to. None imported is 404
// (or 503 when the source is failing): an empty answer then would read as
// "never listed".
func (s *Service) coverage(ctx context.Context, from, to market.Day) (Coverage, error) {
	c := Coverage{From: from, To: to}
	days, err := s.store.LHBDays(ctx, from, to)
	if err != nil {
		return c, err
	}
	held := map[market.Day]bool{}
	for _, d := range days {
		held[d.Day] = true
		if d.ImportedAt.After(c.AsOf) {
			c.AsOf = d.ImportedAt
		}
		c.Latest, c.Source = d.Day, d.Source
	}
	c.Imported = len(days)
	if s.cal != nil {
		now := s.clock.Now()
		for _, d := range s.cal.Between(from, to) {
			if now.Before(s.Published(d)) {
				break
			}
			c.TradingDays++
			if !held[d] && len(c.Missing) < 20 {
				c.Missing = append(c.Missing, d)
			}
		}
	}
	c.Missing = append([]market.Day{}, c.Missing...)
	if c.Imported == 0 {
		if err := s.outage(ctx, "no day of "+from.String()+".."+to.String()+" of the dragon-tiger list is imported", ""); err != nil {
			return c, err
		}
		return c, market.Errorf(market.KindNotFound, "no day of %v..%v of the dragon-tiger list is imported: the job keeps the last %d trading days; `mdqs lhb backfill -from %v -to %v` imports the range",
			from, to, s.cfg.CatchUpDays, from, to)
	}
	return c, nil
}

// Stock answers one stock's listings with seats over from..to (Range's
// defaults). Days the stock was not listed are simply absent; the coverage
// says which days were looked at.
func (s *Service) Stock(ctx context.Context, code market.Code, from, to market.Day) (StockAnswer, error) {
	from, to, err := s.Range(from, to)
	if err != nil {
		return StockAnswer{}, err
	}
	c, err := s.coverage(ctx, from, to)
	if err != nil {
		return StockAnswer{}, err
	}
	stocks, err := s.stocks(ctx, code, from, to, true)
	if err != nil {
		return StockAnswer{}, err
	}
	return StockAnswer{Coverage: c, Code: code, Stocks: stocks}, nil
}

// Seat answers the rows of the seats whose name contains name (at least 2
// characters) over from..to, by day, and their totals. Each row is one
// seat's trading in one stock-day on one side, its reasons merged, so the
// totals count nothing twice.
func (s *Service) Seat(ctx context.Context, name string, from, to market.Day, page, size int) (SeatAnswer, error) {
	if utf8.RuneCountInString(name) < 2 {
		return SeatAnswer{}, market.Errorf(market.KindInvalid, "name must be at least 2 characters of a seat's name, such as 拉萨 or 机构专用")
	}
	if page < 1 || size < 1 {
		return SeatAnswer{}, market.Errorf(market.KindInvalid, "page and page_size must be at least 1")
	}
	from, to, err := s.Range(from, to)
	if err != nil {
		return SeatAnswer{}, err
	}
	c, err := s.coverage(ctx, from, to)
	if err != nil {
		return SeatAnswer{}, err
	}
	rows, _, err := s.store.LHBSeats(ctx, db.LHBSeatQuery{Name: name, From: from, To: to})
	if err != nil {
		return SeatAnswer{}, err
	}
	t := SeatTotals{Rows: len(rows)}
	days, stocks := map[market.Day]bool{}, map[market.Code]bool{}
	// A seat among both the top buyers and the top sellers is on both
	// lists, each row carrying both amounts: its trading counts once.
	type key struct {
		day        market.Day
		code       market.Code
		seat, name string
		seq        int
	}
	type amounts struct{ buy, sell float64 }
	seen := map[key]*amounts{}
	var order []*amounts
	for _, r := range rows {
		days[r.Day], stocks[r.Code] = true, true
		k := key{r.Day, r.Code, r.SeatCode, r.SeatName, 0}
		a := seen[k]
		if a != nil && (sameAmount(a.buy, r.Buy) || math.IsNaN(a.buy) || math.IsNaN(r.Buy)) &&
			(sameAmount(a.sell, r.Sell) || math.IsNaN(a.sell) || math.IsNaN(r.Sell)) {
			a.buy, a.sell = max(zero(a.buy), zero(r.Buy)), max(zero(a.sell), zero(r.Sell))
			continue
		}
		for a != nil { // another seat of the same name (机构专用): its own entry
			k.seq++
			a = seen[k]
		}
		a = &amounts{r.Buy, r.Sell}
		seen[k] = a
		order = append(order, a)
	}
	for _, a := range order {
		t.Buy += zero(a.buy)
		t.Sell += zero(a.sell)
	}
	t.Buy, t.Sell = cents(t.Buy), cents(t.Sell)
	t.Days, t.Stocks, t.Net = len(days), len(stocks), cents(t.Buy-t.Sell)
	lo := min((page-1)*size, len(rows))
	return SeatAnswer{Coverage: c, Name: name, Totals: t, Items: rows[lo:min(lo+size, len(rows))], Page: page, PageSize: size}, nil
}

// cents rounds a sum of yuan amounts to the fen, dropping float noise.
func cents(v float64) float64 { return math.Round(v*100) / 100 }

func zero(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
}
