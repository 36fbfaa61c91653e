package db

import (
	"context"
	"database/sql"
	"math"
	"time"

	"mdqs/internal/market"
)

// ReportRecord is one stock's main indicators for one report period
// (cumulative for the year to date; NaN unknown).
type ReportRecord struct {
	Code         market.Code
	Name         string
	Period       market.Day // period end: 20240930 is 2024Q3
	NoticeDate   market.Day // 0 unknown
	Revenue      float64
	RevenueYoY   float64
	RevenueQoQ   float64
	NetProfit    float64
	NetProfitYoY float64
	NetProfitQoQ float64
	EPS          float64
	EPSDeducted  float64
	BPS          float64
	ROE          float64
	GrossMargin  float64
	OCFPerShare  float64
	Industry     string
	Source       string
	UpdatedAt    time.Time
}

func (r ReportRecord) values() []float64 {
	return []float64{r.Revenue, r.RevenueYoY, r.RevenueQoQ, r.NetProfit, r.NetProfitYoY, r.NetProfitQoQ, r.EPS, r.EPSDeducted,
		r.BPS, r.ROE, r.GrossMargin, r.OCFPerShare}
}

// same compares two records as the store holds them: NaN equals NaN
// (both NULL), and the rest exactly.
func (r ReportRecord) same(o ReportRecord) bool {
	if r.Name != o.Name || r.NoticeDate != o.NoticeDate || r.Industry != o.Industry || r.Source != o.Source {
		return false
	}
	a, b := r.values(), o.values()
	for i := range a {
		if math.IsNaN(a[i]) != math.IsNaN(b[i]) || !math.IsNaN(a[i]) && a[i] != b[i] {
			return false
		}
	}
	return true
}

const reportColumns = `code, period, name, notice_date, revenue, revenue_yoy, revenue_qoq, net_profit, net_profit_yoy,
	net_profit_qoq, eps, eps_deducted, bps, roe, gross_margin, ocf_per_share, industry, source, updated_at`

func scanReport(sc scanner) (ReportRecord, error) {
	var r ReportRecord
	var code string
	var period int
	var notice sql.NullInt64
	var updated int64
	v := make([]sql.NullFloat64, 12)
	if err := sc.Scan(&code, &period, &r.Name, &notice, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9],
		&v[10], &v[11], &r.Industry, &r.Source, &updated); err != nil {
		return ReportRecord{}, err
	}
	c, err := market.ParseCode(code)
	if err != nil {
		return ReportRecord{}, market.Wrap(market.KindInternal, err, "stored report code %q", code)
	}
	r.Code, r.Period, r.NoticeDate = c, market.Day(period), market.Day(notice.Int64)
	r.Revenue, r.RevenueYoY, r.RevenueQoQ = floatOrNaN(v[0]), floatOrNaN(v[1]), floatOrNaN(v[2])
	r.NetProfit, r.NetProfitYoY, r.NetProfitQoQ = floatOrNaN(v[3]), floatOrNaN(v[4]), floatOrNaN(v[5])
	r.EPS, r.EPSDeducted, r.BPS, r.ROE = floatOrNaN(v[6]), floatOrNaN(v[7]), floatOrNaN(v[8]), floatOrNaN(v[9])
	r.GrossMargin, r.OCFPerShare = floatOrNaN(v[10]), floatOrNaN(v[11])
	r.UpdatedAt = time.UnixMilli(updated).In(market.Shanghai())
	return r, nil
}

// UpsertReports stores rows in one transaction, keyed by (code, period):
// new rows are inserted, changed ones updated (a restated report), and
// identical ones left alone, so importing a period twice changes nothing.
func (s *Store) UpsertReports(ctx context.Context, rows []ReportRecord, now time.Time) (InfoCounts, error) {
	var c InfoCounts
	if len(rows) == 0 {
		return c, nil
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		c = InfoCounts{}
		sel, err := tx.PrepareContext(ctx, `SELECT `+reportColumns+` FROM financial_reports WHERE code = ? AND period = ?`)
		if err != nil {
			return classify(err, "prepare report read")
		}
		defer sel.Close()
		up, err := tx.PrepareContext(ctx, `INSERT INTO financial_reports(`+reportColumns+`)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT(code, period) DO UPDATE SET name = excluded.name, notice_date = excluded.notice_date,
				revenue = excluded.revenue, revenue_yoy = excluded.revenue_yoy, revenue_qoq = excluded.revenue_qoq,
				net_profit = excluded.net_profit, net_profit_yoy = excluded.net_profit_yoy, net_profit_qoq = excluded.net_profit_qoq,
				eps = excluded.eps, eps_deducted = excluded.eps_deducted, bps = excluded.bps, roe = excluded.roe,
				gross_margin = excluded.gross_margin, ocf_per_share = excluded.ocf_per_share, industry = excluded.industry,
				source = excluded.source, updated_at = excluded.updated_at`)
		if err != nil {
			return classify(err, "prepare report upsert")
		}
		defer up.Close()
		for _, r := range rows {
			old, err := scanReport(sel.QueryRowContext(ctx, r.Code.String(), int(r.Period)))
			switch {
			case err == sql.ErrNoRows:
				c.Inserted++
			case err != nil:
				return classify(err, "read report")
			case old.same(r):
				c.Unchanged++
				continue
			default:
				c.Updated++
			}
			notice := sql.NullInt64{Int64: int64(r.NoticeDate), Valid: r.NoticeDate != 0}
			if _, err := up.ExecContext(ctx, r.Code.String(), int(r.Period), r.Name, notice,
				nullFloat(r.Revenue), nullFloat(r.RevenueYoY), nullFloat(r.RevenueQoQ), nullFloat(r.NetProfit),
				nullFloat(r.NetProfitYoY), nullFloat(r.NetProfitQoQ), nullFloat(r.EPS), nullFloat(r.EPSDeducted),
				nullFloat(r.BPS), nullFloat(r.ROE), nullFloat(r.GrossMargin), nullFloat(r.OCFPerShare),
				r.Industry, r.Source, now.UnixMilli()); err != nil {
				return classify(err, "upsert report")
			}
		}
		return nil
	})
	return c, err
}

// ReportQuery selects report rows; zero fields do not filter. Period
// selects one period, otherwise From and To bound the periods. Rows come
// newest period first, then by code.
type ReportQuery struct {
	Codes    []market.Code
	Period   market.Day
	From, To market.Day
	Offset   int
	Limit    int // 0: all
}

// Reports lists the rows q selects and how many there are in all.
func (s *Store) Reports(ctx context.Context, q ReportQuery) ([]ReportRecord, int, error) {
	var f filter
	if q.Period != 0 {
		f.and("period = ?", int(q.Period))
	}
	if q.From != 0 {
		f.and("period >= ?", int(q.From))
	}
	if q.To != 0 {
		f.and("period <= ?", int(q.To))
	}
	f.codes("code", q.Codes)
	total, err := s.count(ctx, "financial_reports", f, "count reports")
	if err != nil || total == 0 {
		return []ReportRecord{}, 0, err
	}
	args := f.args
	query := `SELECT ` + reportColumns + ` FROM financial_reports WHERE ` + f.where() + ` ORDER BY period DESC, code`
	if q.Limit > 0 {
		query += ` LIMIT ? OFFSET ?`
		args = append(args, q.Limit, q.Offset)
	}
	rows, err := s.r.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, 0, classify(err, "read reports")
	}
	defer rows.Close()
	out := []ReportRecord{}
	for rows.Next() {
		r, err := scanReport(rows)
		if err != nil {
			return nil, 0, classify(err, "read reports")
		}
		out = append(out, r)
	}
	return out, total, classify(rows.Err(), "read reports")
}

// LatestReportPeriod is the newest period with stored reports (of the
// given codes, or of any). None is a not-found error.
func (s *Store) LatestReportPeriod(ctx context.Context, codes ...market.Code) (market.Day, error) {
	q, args := `SELECT max(period) FROM financial_reports`, []any{}
	if len(codes) > 0 {
		q += ` WHERE code IN (` + qmarks(len(codes)) + `)`
		for _, c := range codes {
			args = append(args, c.String())
		}
	}
	var p sql.NullInt64
	if err := s.r.QueryRowContext(ctx, q, args...).Scan(&p); err != nil {
		return 0, classify(err, "read latest report period")
	}
	if !p.Valid {
		return 0, market.E(market.KindNotFound, "not found")
	}
	return market.Day(p.Int64), nil
}
