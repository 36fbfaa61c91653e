package db

import (
	"context"
	"database/sql"
	"slices"
	"time"

	"mdqs/internal/market"
)

// PublishedRow is one stock of a published limit pool (EastMoney's
// push2ex). Prices in yuan, money in yuan, rates in percent, NaN unknown;
// seal times in seconds after midnight Shanghai; -1 is a count or time the
// pool does not send.
type PublishedRow struct {
	Code        market.Code
	Name        string
	Industry    string
	Price       float64
	LimitPrice  float64
	ChangePct   float64
	Amount      float64
	FloatCap    float64
	Turnover    float64
	SealFund    float64
	Boards      int
	FirstSeal   int
	LastSeal    int
	OpenedTimes int
	CountDays   int
	CountUp     int
}

// PublishedPool is one kind's pool of a day: up, broken, down or
// yesterday. Total is the source's row count.
type PublishedPool struct {
	Kind  string
	Total int
	Rows  []PublishedRow
}

// PublishedDay is a day's imported pools. Day is the pools' own day (the
// source's qdate); Asked the date the import asked for it.
type PublishedDay struct {
	Day        market.Day
	Asked      market.Day
	Source     string
	ImportedAt time.Time
	Pools      []PublishedPool // in kind order as stored: broken, down, up, yesterday
}

// Pool is d's pool of kind; false when the day holds none of that kind.
func (d PublishedDay) Pool(kind string) (PublishedPool, bool) {
	for _, p := range d.Pools {
		if p.Kind == kind {
			return p, true
		}
	}
	return PublishedPool{}, false
}

// ReplacePublishedPools stores d's pools in one transaction, replacing
// every kind the store held for d.Day: a reader sees the old day or the
// new one, never a mix.
func (s *Store) ReplacePublishedPools(ctx context.Context, d PublishedDay) error {
	if d.Day == 0 || len(d.Pools) == 0 {
		return market.Errorf(market.KindInvalid, "published pools: a day and at least one pool are needed")
	}
	kinds := map[string]bool{}
	for _, p := range d.Pools {
		if p.Kind == "" || kinds[p.Kind] {
			return market.Errorf(market.KindInvalid, "published pools of %v: kind %q empty or twice", d.Day, p.Kind)
		}
		kinds[p.Kind] = true
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		day := int(d.Day)
		for _, t := range []string{"published_pool_rows", "published_pool_days"} {
			if _, err := tx.ExecContext(ctx, `DELETE FROM `+t+` WHERE day = ?`, day); err != nil {
				return classify(err, "replace published pools")
			}
		}
		ins, err := tx.PrepareContext(ctx, `INSERT INTO published_pool_rows(day, kind, code, name, industry, price, limit_price,
			change_pct, amount, float_cap, turnover, seal_fund, boards, first_seal, last_seal, opened_times, count_days, count_up)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return classify(err, "prepare published pool rows")
		}
		defer ins.Close()
		for _, p := range d.Pools {
			if _, err := tx.ExecContext(ctx, `INSERT INTO published_pool_days(day, kind, total, asked, source, imported_at)
				VALUES (?, ?, ?, ?, ?, ?)`, day, p.Kind, p.Total, int(d.Asked), d.Source, d.ImportedAt.UnixMilli()); err != nil {
				return classify(err, "record published pool")
			}
			for _, r := range p.Rows {
				if _, err := ins.ExecContext(ctx, day, p.Kind, r.Code.String(), r.Name, r.Industry, nullFloat(r.Price),
					nullFloat(r.LimitPrice), nullFloat(r.ChangePct), nullFloat(r.Amount), nullFloat(r.FloatCap),
					nullFloat(r.Turnover), nullFloat(r.SealFund), nullCount(r.Boards), nullCount(r.FirstSeal),
					nullCount(r.LastSeal), nullCount(r.OpenedTimes), nullCount(r.CountDays), nullCount(r.CountUp)); err != nil {
					return classify(err, "store published pool row")
				}
			}
		}
		return nil
	})
}

// PublishedPoolDays are the days from..to (either 0: open) holding
// imported pools, oldest first.
func (s *Store) PublishedPoolDays(ctx context.Context, from, to market.Day) ([]market.Day, error) {
	var f filter
	if from != 0 {
		f.and("day >= ?", int(from))
	}
	if to != 0 {
		f.and("day <= ?", int(to))
	}
	rows, err := s.r.QueryContext(ctx, `SELECT DISTINCT day FROM published_pool_days WHERE `+f.where()+` ORDER BY day`, f.args...)
	if err != nil {
		return nil, classify(err, "read published pool days")
	}
	defer rows.Close()
	out := []market.Day{}
	for rows.Next() {
		var d int
		if err := rows.Scan(&d); err != nil {
			return nil, classify(err, "read published pool days")
		}
		out = append(out, market.Day(d))
	}
	return out, classify(rows.Err(), "read published pool days")
}

// PublishedPools is day's imported pools, each kind's rows in code order;
// a day without an import is a not-found error.
func (s *Store) PublishedPools(ctx context.Context, day market.Day) (PublishedDay, error) {
	out := PublishedDay{Day: day}
	rows, err := s.r.QueryContext(ctx, `SELECT kind, total, asked, source, imported_at FROM published_pool_days WHERE day = ? ORDER BY kind`, int(day))
	if err != nil {
		return out, classify(err, "read published pools")
	}
	for rows.Next() {
		var p PublishedPool
		var asked int
		var at int64
		if err := rows.Scan(&p.Kind, &p.Total, &asked, &out.Source, &at); err != nil {
			rows.Close()
			return out, classify(err, "read published pools")
		}
		p.Rows = []PublishedRow{}
		out.Asked, out.ImportedAt = market.Day(asked), time.UnixMilli(at).In(market.Shanghai())
		out.Pools = append(out.Pools, p)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return out, classify(err, "read published pools")
	}
	if len(out.Pools) == 0 {
		return out, market.Errorf(market.KindNotFound, "the published limit pools of %v are not imported", day)
	}
	rows, err = s.r.QueryContext(ctx, `SELECT kind, code, name, industry, price, limit_price, change_pct, amount, float_cap, turnover,
		seal_fund, boards, first_seal, last_seal, opened_times, count_days, count_up FROM published_pool_rows WHERE day = ?
		ORDER BY kind, code`, int(day))
	if err != nil {
		return out, classify(err, "read published pool rows")
	}
	defer rows.Close()
	for rows.Next() {
		var kind, code string
		var r PublishedRow
		f := make([]sql.NullFloat64, 7)
		n := make([]sql.NullInt64, 6)
		if err := rows.Scan(&kind, &code, &r.Name, &r.Industry, &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6],
			&n[0], &n[1], &n[2], &n[3], &n[4], &n[5]); err != nil {
			return out, classify(err, "read published pool rows")
		}
		c, err := market.ParseCode(code)
		if err != nil {
			return out, market.Wrap(market.KindInternal, err, "stored published pool code %q", code)
		}
		r.Code = c
		r.Price, r.LimitPrice, r.ChangePct, r.Amount = floatOrNaN(f[0]), floatOrNaN(f[1]), floatOrNaN(f[2]), floatOrNaN(f[3])
		r.FloatCap, r.Turnover, r.SealFund = floatOrNaN(f[4]), floatOrNaN(f[5]), floatOrNaN(f[6])
		r.Boards, r.FirstSeal, r.LastSeal = countOrNone(n[0]), countOrNone(n[1]), countOrNone(n[2])
		r.OpenedTimes, r.CountDays, r.CountUp = countOrNone(n[3]), countOrNone(n[4]), countOrNone(n[5])
		i := slices.IndexFunc(out.Pools, func(p PublishedPool) bool { return p.Kind == kind })
		if i < 0 {
			return out, market.Errorf(market.KindInternal, "published pool rows of %v kind %q without their day record", day, kind)
		}
		out.Pools[i].Rows = append(out.Pools[i].Rows, r)
	}
	return out, classify(rows.Err(), "read published pool rows")
}

// nullCount stores a count or time, -1 (not sent) as NULL.
func nullCount(v int) sql.NullInt64 { return sql.NullInt64{Int64: int64(v), Valid: v >= 0} }

func countOrNone(v sql.NullInt64) int {
	if !v.Valid {
		return -1
	}
	return int(v.Int64)
}
