package db

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"mdqs/internal/market"
)

// EachDailySeries streams every code's daily bars from fromTS on, one code
// at a time in code order, in a single query: the end-of-day work over the
// whole market reads once instead of once per stock.
func (s *Store) EachDailySeries(ctx context.Context, fromTS int64, fn func(code string, bars []market.Bar) error) error {
	rows, err := s.r.QueryContext(ctx, `SELECT code, ts, trade_date, open, high, low, close, volume, amount, turnover_rate, large_order_net
		FROM bars WHERE freq = 1440 AND ts >= ? ORDER BY code, ts`, fromTS)
	if err != nil {
		return classify(err, "read daily bars")
	}
	defer rows.Close()
	var code string
	var series []market.Bar
	for rows.Next() {
		var c string
		var b market.Bar
		var day int
		var o, h, l, cl int64
		var turnover, large sql.NullFloat64
		if err := rows.Scan(&c, &b.TS, &day, &o, &h, &l, &cl, &b.Volume, &b.Amount, &turnover, &large); err != nil {
			return classify(err, "read daily bars")
		}
		if c != code && len(series) > 0 {
			if err := fn(code, series); err != nil {
				return err
			}
			series = series[:0]
		}
		code = c
		b.Day = market.Day(day)
		b.Open, b.High, b.Low, b.Close = fromPrice(o), fromPrice(h), fromPrice(l), fromPrice(cl)
		b.TurnoverRate, b.LargeOrderNet = floatOrNaN(turnover), floatOrNaN(large)
		series = append(series, b)
	}
	if err := rows.Err(); err != nil {
		return classify(err, "read daily bars")
	}
	if len(series) > 0 {
		return fn(code, series)
	}
	return nil
}

// Signal is one stock's daily derived signals.
type Signal struct {
	Code                 string
	Day                  market.Day
	Close, Pct           float64
	MicroVolRatio        float64
	VolAcc               float64
	TimeAdjustedVolRatio float64
	PriceSpeedRatio      float64
	TrendStrength        float64
	ComputedAt           time.Time
}

// SaveSignals replaces a day's signals in one transaction.
func (s *Store) SaveSignals(ctx context.Context, day market.Day, list []Signal) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM daily_signals WHERE trade_date = ?`, int(day)); err != nil {
			return classify(err, "clear signals")
		}
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO daily_signals(code, trade_date, close, pct, micro_vol_ratio, vol_acc,
			time_adjusted_vol_ratio, price_speed_ratio, trend_strength, computed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return classify(err, "prepare signals")
		}
		defer stmt.Close()
		for _, x := range list {
			if _, err := stmt.ExecContext(ctx, x.Code, int(day), nullFloat(x.Close), nullFloat(x.Pct), nullFloat(x.MicroVolRatio),
				nullFloat(x.VolAcc), nullFloat(x.TimeAdjustedVolRatio), nullFloat(x.PriceSpeedRatio), nullFloat(x.TrendStrength),
				x.ComputedAt.UnixMilli()); err != nil {
				return classify(err, "insert signal")
			}
		}
		return nil
	})
}

// LatestSignal is a stock's newest daily signals; none is a not-found error.
func (s *Store) LatestSignal(ctx context.Context, code market.Code) (Signal, error) {
	var x Signal
	var day int
	var closeV, pct, mvr, va, tavr, psr, ts sql.NullFloat64
	var computed int64
	err := s.r.QueryRowContext(ctx, `SELECT code, trade_date, close, pct, micro_vol_ratio, vol_acc, time_adjusted_vol_ratio,
		price_speed_ratio, trend_strength, computed_at FROM daily_signals WHERE code = ? ORDER BY trade_date DESC LIMIT 1`,
		code.String()).Scan(&x.Code, &day, &closeV, &pct, &mvr, &va, &tavr, &psr, &ts, &computed)
	if err == sql.ErrNoRows {
		return x, market.Errorf(market.KindNotFound, "no daily signals for %v yet (the end-of-day job computes them after the close)", code)
	}
	if err != nil {
		return x, classify(err, "read signal")
	}
	x.Day = market.Day(day)
	x.Close, x.Pct, x.MicroVolRatio, x.VolAcc = floatOrNaN(closeV), floatOrNaN(pct), floatOrNaN(mvr), floatOrNaN(va)
	x.TimeAdjustedVolRatio, x.PriceSpeedRatio, x.TrendStrength = floatOrNaN(tavr), floatOrNaN(psr), floatOrNaN(ts)
	x.ComputedAt = time.UnixMilli(computed)
	return x, nil
}

// Chip is one stock's chip metrics for a day and window.
type Chip struct {
	Code                                   string
	Name                                   string
	Days                                   int
	Close, AvgCost, ProfitRatio            float64
	Cost70Low, Cost70High, Concentration70 float64
	Cost90Low, Cost90High, Concentration90 float64
	PeakPrice                              float64
}

// SaveChips replaces a day's chip metrics of one window.
func (s *Store) SaveChips(ctx context.Context, day market.Day, window int, list []Chip, now time.Time) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM chip_metrics WHERE trade_date = ? AND window_days = ?`, int(day), window); err != nil {
			return classify(err, "clear chips")
		}
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO chip_metrics(trade_date, window_days, code, days, close, avg_cost, profit_ratio,
			cost70_low, cost70_high, concentration70, cost90_low, cost90_high, concentration90, peak_price, computed_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return classify(err, "prepare chips")
		}
		defer stmt.Close()
		for _, c := range list {
			if _, err := stmt.ExecContext(ctx, int(day), window, c.Code, c.Days, nullFloat(c.Close), nullFloat(c.AvgCost),
				nullFloat(c.ProfitRatio), nullFloat(c.Cost70Low), nullFloat(c.Cost70High), nullFloat(c.Concentration70),
				nullFloat(c.Cost90Low), nullFloat(c.Cost90High), nullFloat(c.Concentration90), nullFloat(c.PeakPrice),
				now.UnixMilli()); err != nil {
				return classify(err, "insert chip")
			}
		}
		return nil
	})
}

// ChipQuery selects a page of one day's chip metrics.
type ChipQuery struct {
	Day      market.Day // 0: the latest day with metrics of the window
	Window   int
	Exchange market.Exchange // "": every market
	Code     string          // "": every code
	Sort     string          // a column of ChipSortColumns
	Desc     bool
	Offset   int
	Limit    int
}

// ChipSortColumns are the sortable chip metrics, as API names.
var ChipSortColumns = map[string]string{
	"code": "c.code", "close": "c.close", "avg_cost": "c.avg_cost", "profit_ratio": "c.profit_ratio",
	"concentration70": "c.concentration70", "concentration90": "c.concentration90", "peak_price": "c.peak_price",
}

// Chips pages one day's chip metrics; it reports the day and the total.
func (s *Store) Chips(ctx context.Context, q ChipQuery) (day market.Day, total int, list []Chip, err error) {
	day = q.Day
	if day == 0 {
		var d sql.NullInt64
		if err := s.r.QueryRowContext(ctx, `SELECT max(trade_date) FROM chip_metrics WHERE window_days = ?`, q.Window).Scan(&d); err != nil {
			return 0, 0, nil, classify(err, "find chip day")
		}
		if !d.Valid {
			return 0, 0, nil, market.Errorf(market.KindNotFound, "no chip metrics of a %d-day window yet (the end-of-day job computes them)", q.Window)
		}
		day = market.Day(d.Int64)
	}
	col, ok := ChipSortColumns[q.Sort]
	if !ok {
		col = "c.code"
	}
	dir := "ASC"
	if q.Desc {
		dir = "DESC"
	}
	var f filter
	f.and("c.trade_date = ? AND c.window_days = ?", int(day), q.Window)
	if q.Exchange != "" {
		f.and("c.code LIKE ?", "%."+string(q.Exchange))
	}
	if q.Code != "" {
		f.and("c.code = ?", q.Code)
	}
	if total, err = s.count(ctx, "chip_metrics c", f, "count chips"); err != nil {
		return day, 0, nil, err
	}
	// The sort column comes from a fixed map, never from the request text.
	rows, err := s.r.QueryContext(ctx, fmt.Sprintf(`SELECT c.code, coalesce(s.name, ''), c.days, c.close, c.avg_cost, c.profit_ratio,
		c.cost70_low, c.cost70_high, c.concentration70, c.cost90_low, c.cost90_high, c.concentration90, c.peak_price
		FROM chip_metrics c LEFT JOIN stocks s ON s.code = c.code WHERE %s
		ORDER BY %s IS NULL, %s %s, c.code LIMIT ? OFFSET ?`, f.where(), col, col, dir), append(f.args, q.Limit, q.Offset)...)
	if err != nil {
		return day, total, nil, classify(err, "read chips")
	}
	defer rows.Close()
	for rows.Next() {
		var c Chip
		var v [10]sql.NullFloat64
		if err := rows.Scan(&c.Code, &c.Name, &c.Days, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]); err != nil {
			return day, total, nil, classify(err, "read chips")
		}
		c.Close, c.AvgCost, c.ProfitRatio = floatOrNaN(v[0]), floatOrNaN(v[1]), floatOrNaN(v[2])
		c.Cost70Low, c.Cost70High, c.Concentration70 = floatOrNaN(v[3]), floatOrNaN(v[4]), floatOrNaN(v[5])
		c.Cost90Low, c.Cost90High, c.Concentration90, c.PeakPrice = floatOrNaN(v[6]), floatOrNaN(v[7]), floatOrNaN(v[8]), floatOrNaN(v[9])
		list = append(list, c)
	}
	return day, total, list, classify(rows.Err(), "read chips")
}

// HasDerived reports whether a day's signals and chips are computed.
func (s *Store) HasDerived(ctx context.Context, day market.Day) (bool, error) {
	var n, m int
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM daily_signals WHERE trade_date = ?`, int(day)).Scan(&n); err != nil {
		return false, classify(err, "count signals")
	}
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM chip_metrics WHERE trade_date = ?`, int(day)).Scan(&m); err != nil {
		return false, classify(err, "count chips")
	}
	return n > 0 && m > 0, nil
}

// LatestSignals lists every stock's newest daily signals (of the latest day
// any stock has).
func (s *Store) LatestSignals(ctx context.Context) ([]Signal, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT code, trade_date, micro_vol_ratio, vol_acc, trend_strength FROM daily_signals
		WHERE trade_date = (SELECT max(trade_date) FROM daily_signals)`)
	if err != nil {
		return nil, classify(err, "read signals")
	}
	defer rows.Close()
	var out []Signal
	for rows.Next() {
		var x Signal
		var day int
		var mvr, va, ts sql.NullFloat64
		if err := rows.Scan(&x.Code, &day, &mvr, &va, &ts); err != nil {
			return nil, classify(err, "read signals")
		}
		x.Day, x.MicroVolRatio, x.VolAcc, x.TrendStrength = market.Day(day), floatOrNaN(mvr), floatOrNaN(va), floatOrNaN(ts)
		out = append(out, x)
	}
	return out, classify(rows.Err(), "read signals")
}
