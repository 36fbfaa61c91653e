package db

import (
	"cmp"
	"context"
	"math"
	"slices"

	"mdqs/internal/market"
)

// Shares are a code's share counts after one share-count record of its
// corporate actions (a gbbq's categories 2, 3, 5, 7, 8, 9 and 10, whose
// third and fourth values are the float and total shares after the event,
// in 10,000 shares: shared/reference/adjust.md §3). They are in force from
// Day until the next record.
type Shares struct {
	Day      market.Day
	Category int
	Float    int64 // shares
	Total    int64 // shares
	Source   string
}

// shareFilter keeps the records that state share counts after the event,
// its columns prefixed by p ("a." for a table named a): category 4 holds
// zeros and 6 a placement's price and size, and a record with no float or
// no total after it (44 SME listings of 2006-07 state the total before
// any float exists) cannot give a turnover rate.
func shareFilter(p string) string {
	return p + "category IN (2, 3, 5, 7, 8, 9, 10) AND " + p + "f3 > 0 AND " + p + "f4 > 0"
}

// SharesOn is, for each code with a share-count record dated on or before
// day, the latest such record: the shares in force that day. A gbbq
// carries records announced for days ahead; they do not count before
// their day. Two records of one day are ordered as ShareHistory orders
// them; the last stands.
func (s *Store) SharesOn(ctx context.Context, day market.Day) (map[market.Code]Shares, error) {
	// Each code's latest day, then that day's records: a window function
	// over the 65,000 share records of a full gbbq sorts them all, and took
	// 150 ms against this join's 60 on SQLite (docs/performance.md).
	rows, err := s.r.QueryContext(ctx, `SELECT a.code, a.source, a.day, a.category, a.f3, a.f4 FROM corporate_actions a
		JOIN (SELECT code, max(day) AS day FROM corporate_actions WHERE day <= ? AND `+shareFilter("")+` GROUP BY code) latest
		ON a.code = latest.code AND a.day = latest.day
		WHERE `+shareFilter("a.")+` ORDER BY a.code, a.category, a.source, a.seq`, int64(day))
	if err != nil {
		return nil, classify(err, "read shares")
	}
	defer rows.Close()
	out := map[market.Code]Shares{}
	for rows.Next() {
		var code string
		var sh Shares
		var fl, total float64
		if err := rows.Scan(&code, &sh.Source, &sh.Day, &sh.Category, &fl, &total); err != nil {
			return nil, classify(err, "read shares")
		}
		c, err := market.ParseCode(code)
		if err != nil {
			return nil, market.Wrap(market.KindInternal, err, "shares: stored code %q", code)
		}
		sh.Float, sh.Total = sharesOf(fl), sharesOf(total)
		out[c] = sh
	}
	return out, classify(rows.Err(), "read shares")
}

// ShareHistory is every share-count record of code, oldest first (by day,
// category, source, then the source's order), those dated after today included:
// the history as the source holds it. None is an empty list, not an
// error: most codes other than stocks have none.
func (s *Store) ShareHistory(ctx context.Context, code market.Code) ([]Shares, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT source, day, category, f3, f4 FROM corporate_actions
		WHERE code = ? AND `+shareFilter("")+` ORDER BY day, category, source, seq`, code.String())
	if err != nil {
		return nil, classify(err, "read share history")
	}
	defer rows.Close()
	out := []Shares{}
	for rows.Next() {
		var sh Shares
		var fl, total float64
		if err := rows.Scan(&sh.Source, &sh.Day, &sh.Category, &fl, &total); err != nil {
			return nil, classify(err, "read share history")
		}
		sh.Float, sh.Total = sharesOf(fl), sharesOf(total)
		out = append(out, sh)
	}
	return out, classify(rows.Err(), "read share history")
}

// ShareHistories is ShareHistory of every code at once: an import of the
// terminal's 5,000 daily files reads them in one query (about 100 ms of a
// full gbbq) rather than one query a file (0.4 s).
func (s *Store) ShareHistories(ctx context.Context) (map[market.Code][]Shares, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT code, source, day, category, f3, f4 FROM corporate_actions
		WHERE `+shareFilter("")+` ORDER BY code, source, day, category, seq`)
	if err != nil {
		return nil, classify(err, "read share histories")
	}
	defer rows.Close()
	out := map[market.Code][]Shares{}
	var last string
	var c market.Code
	for rows.Next() {
		var code string
		var sh Shares
		var fl, total float64
		if err := rows.Scan(&code, &sh.Source, &sh.Day, &sh.Category, &fl, &total); err != nil {
			return nil, classify(err, "read share histories")
		}
		if code != last {
			sortShares(out[c])
			if c, err = market.ParseCode(code); err != nil {
				return nil, market.Wrap(market.KindInternal, err, "shares: stored code %q", code)
			}
			last = code
		}
		sh.Float, sh.Total = sharesOf(fl), sharesOf(total)
		out[c] = append(out[c], sh)
	}
	sortShares(out[c])
	return out, classify(rows.Err(), "read share histories")
}

// sortShares puts one code's records, read in the table's key order
// (source first), in ShareHistory's: the key order costs SQL no sort,
// and a store holds one source, whose records it leaves as they are.
func sortShares(list []Shares) {
	slices.SortStableFunc(list, func(a, b Shares) int {
		return cmp.Or(cmp.Compare(a.Day, b.Day), cmp.Compare(a.Category, b.Category))
	})
}

// SharesAt is the record in force on day among history (ShareHistory's
// order), and false when none is dated on or before it.
func SharesAt(history []Shares, day market.Day) (Shares, bool) {
	var out Shares
	ok := false
	for _, sh := range history {
		if sh.Day > day {
			break
		}
		out, ok = sh, true
	}
	return out, ok
}

// sharesOf turns a stored count of 10,000 shares into shares. The gbbq
// holds a float32, which the import stores as its shortest decimal
// (21724.373, never the 21724.373046875 it widens to): the count it means,
// to its seven significant digits.
func sharesOf(v float64) int64 { return int64(math.Round(v * 1e4)) }
