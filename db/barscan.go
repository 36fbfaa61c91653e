package db

import (
	"context"
	"slices"
	"strings"

	"mdqs/internal/market"
)

// Streaming reads for mdqs export: a whole market's year of bars is 1.3 M
// rows (a year of its minutes, 300 M), which no slice should hold. Each
// series is read in time order a chunk at a time, and the chunk handed to
// the caller is reused for the next one.

// SourcedBars are bars read in a chunk, with each bar's source (the
// store keeps one per daily bar and one per stored minute day).
type SourcedBars struct {
	Bars    []market.Bar
	Sources []string // Sources[i] is Bars[i]'s
}

// barChunk is the rows one callback gets: a few pages of SQLite's, and
// nothing a whole market multiplies.
const barChunk = 4096

// EachBars reads the stored bars of code at freq from from to to (both
// included, trade days) in time order and calls fn with them a chunk at a
// time: a daily series in chunks of up to 4,096 bars, a minute series one
// stored day at a time. The chunk is read into buf (nil: a new one), which
// a caller reading series after series passes again: a whole market is
// then read into one buffer. The chunk is reused after fn returns; an
// error from fn stops the read and is returned.
func (s *Store) EachBars(ctx context.Context, code market.Code, freq market.Freq, from, to market.Day, buf *SourcedBars, fn func(SourcedBars) error) error {
	if buf == nil {
		buf = &SourcedBars{}
	}
	if isMinute(freq) {
		return s.eachMinuteBars(ctx, code, freq, from, to, buf, fn)
	}
	st, err := s.readStmt(ctx, `SELECT ts, trade_date, open, high, low, close, volume, amount, turnover_rate, large_order_net, source
		FROM bars WHERE code = ? AND freq = ? AND ts >= ? AND ts <= ? ORDER BY ts`)
	if err != nil {
		return classify(err, "read bars")
	}
	// The days as times: the primary key (code, freq, ts) bounds the
	// read to the rows returned (trade_date would scan the whole series).
	fromTS, toTS := from.Start().Unix(), to.AddDays(1).Start().Unix()-1
	rows, err := st.QueryContext(ctx, code.String(), FreqMinutes(freq), fromTS, toTS)
	if err != nil {
		return classify(err, "read bars")
	}
	defer rows.Close()
	chunk := SourcedBars{Bars: buf.Bars[:0], Sources: buf.Sources[:0]}
	defer func() { *buf = chunk }() // the grown buffer, for the next series
	var v [11]any
	dest := [11]any{&v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9], &v[10]}
	last := "" // one string for a run of bars of one source, not one per bar
	for rows.Next() {
		if err := rows.Scan(dest[:]...); err != nil {
			return classify(err, "read bars")
		}
		b := market.Bar{TS: anyInt(v[0]), Day: market.Day(anyInt(v[1])),
			Open: fromPrice(anyInt(v[2])), High: fromPrice(anyInt(v[3])), Low: fromPrice(anyInt(v[4])), Close: fromPrice(anyInt(v[5])),
			Volume: anyInt(v[6]), Amount: anyFloat(v[7]), TurnoverRate: anyFloat(v[8]), LargeOrderNet: anyFloat(v[9])}
		switch src := v[10].(type) {
		case string:
			if src != last {
				last = strings.Clone(src)
			}
		case []byte:
			if string(src) != last {
				last = string(src)
			}
		}
		chunk.Bars, chunk.Sources = append(chunk.Bars, b), append(chunk.Sources, last)
		if len(chunk.Bars) == barChunk {
			if err := fn(chunk); err != nil {
				return err
			}
			chunk.Bars, chunk.Sources = chunk.Bars[:0], chunk.Sources[:0]
		}
	}
	if err := rows.Err(); err != nil {
		return classify(err, "read bars")
	}
	if len(chunk.Bars) > 0 {
		return fn(chunk)
	}
	return nil
}

// eachMinuteBars is EachBars of an intraday frequency: one stored day at a
// time, decoded as it is read.
func (s *Store) eachMinuteBars(ctx context.Context, code market.Code, freq market.Freq, from, to market.Day, buf *SourcedBars, fn func(SourcedBars) error) error {
	st, err := s.readStmt(ctx, `SELECT day, data, source FROM minute_days WHERE code = ? AND freq = ? AND day >= ? AND day <= ? ORDER BY day`)
	if err != nil {
		return classify(err, "read minute days")
	}
	rows, err := st.QueryContext(ctx, code.String(), FreqMinutes(freq), int(from), int(to))
	if err != nil {
		return classify(err, "read minute days")
	}
	defer rows.Close()
	chunk := SourcedBars{Sources: buf.Sources[:0]}
	defer func() { buf.Sources = chunk.Sources }()
	for rows.Next() {
		var day int64
		var data []byte
		var source string
		if err := rows.Scan(&day, &data, &source); err != nil {
			return classify(err, "read minute days")
		}
		bars, err := decodeDay(code, freq, market.Day(day), data)
		if err != nil {
			return err
		}
		chunk.Bars = bars
		chunk.Sources = chunk.Sources[:0]
		for range bars {
			chunk.Sources = append(chunk.Sources, source)
		}
		if err := fn(chunk); err != nil {
			return err
		}
	}
	return classify(rows.Err(), "read minute days")
}

// SeriesCoverage is what the store holds of one series: the span of days
// complete in it, and where they came from.
type SeriesCoverage struct {
	Code   market.Code
	Span   Span
	Source string
}

// Covered lists every series of freq the store holds, in code order.
func (s *Store) Covered(ctx context.Context, freq market.Freq) ([]SeriesCoverage, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT code, first_day, last_day, source FROM bar_coverage WHERE freq = ? ORDER BY code`, FreqMinutes(freq))
	if err != nil {
		return nil, classify(err, "read coverage")
	}
	defer rows.Close()
	var out []SeriesCoverage
	for rows.Next() {
		var code, source string
		var first, last int
		if err := rows.Scan(&code, &first, &last, &source); err != nil {
			return nil, classify(err, "read coverage")
		}
		c, err := market.ParseCode(code)
		if err != nil {
			continue // not a code this build reads: not a series to export
		}
		out = append(out, SeriesCoverage{Code: c, Span: Span{First: market.Day(first), Last: market.Day(last)}, Source: source})
	}
	slices.SortFunc(out, func(a, b SeriesCoverage) int { return strings.Compare(a.Code.String(), b.Code.String()) })
	return out, classify(rows.Err(), "read coverage")
}
