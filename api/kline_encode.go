package api

import (
	"slices"
	"strconv"

	"mdqs/internal/adjust"
	"mdqs/internal/corpaction"
	"mdqs/internal/indicator"
	"mdqs/internal/market"
)

// barFields are the selectable fields of a K-line row; trade_date, ts and
// provisional are always present.
var barFields = []string{"open", "high", "low", "close", "volume", "amount", "pct", "turnover_rate", "large_order_net"}

// rowSet is bars ready to encode: the bars, the indicator columns aligned
// with them, and extra per-row values (trend_strength).
type rowSet struct {
	bars        []market.Bar
	prevClose   float64 // the close before the first bar (NaN: unknown), for pct
	fields      []string
	columns     []indicator.Column
	extra       []indicator.Column
	provisional func(i int) bool
	// newestFirst: the bars run newest first, so a bar's previous close is
	// the next bar's, and prevClose is the close of the bar older than the
	// last one.
	newestFirst bool
	// adj is the qfq schedule whose map the adj_factor and adj_offset
	// fields give; nil when no such field is asked for.
	adj *adjust.Schedule
}

// adjustFields are the optional fields of a K-line row, never in the
// default set: the qfq map of the bar's day, qfq = round(adj_factor·price
// + adj_offset) to the code's tick (0.01, a fund's 0.001). The terminal's
// adjustment is affine, so one factor
// cannot carry it once a cash dividend is paid.
var adjustFields = []string{"adj_factor", "adj_offset"}

func wantsAdjFields(fields []string) bool {
	for _, f := range adjustFields {
		if slices.Contains(fields, f) {
			return true
		}
	}
	return false
}

// appendAdjustment writes what an adjusted answer says of its prices: the
// method, the anchor, the code's listing day and its source, a note on the
// anchor, where the events came from and the events that moved its bars.
func appendAdjustment(b []byte, a *corpaction.Adjustment, events []adjust.Event) []byte {
	b = append(b, `,"adj_method":"`...)
	b = append(b, corpaction.Method...)
	b = append(b, '"')
	b = appendAnchor(b, a.Anchor, a.Listing, a.ListingSource, a.Note)
	b = append(b, `,"actions_source":`...)
	b = market.AppendJSONString(b, a.Source)
	b = append(b, `,"events":[`...)
	for i, e := range events {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"date":"`...)
		b = append(b, e.Day.String()...)
		b = append(b, `","cash_per_10":`...)
		b = market.AppendJSONFloat(b, e.CashPer10)
		b = append(b, `,"bonus_per_10":`...)
		b = market.AppendJSONFloat(b, e.BonusPer10)
		b = append(b, `,"rights_per_10":`...)
		b = market.AppendJSONFloat(b, e.RightsPer10)
		b = append(b, `,"rights_price":`...)
		b = market.AppendJSONFloat(b, e.RightsPrice)
		b = append(b, '}')
	}
	return append(b, ']')
}

// appendAnchor writes an adjusted answer's anchor, listing_day,
// listing_day_source and anchor_note, each null when unknown or empty.
func appendAnchor(b []byte, anchor, listing market.Day, listingSource, note string) []byte {
	day := func(b []byte, d market.Day) []byte {
		if d == 0 {
			return append(b, "null"...)
		}
		return market.AppendJSONString(b, d.String())
	}
	str := func(b []byte, s string) []byte {
		if s == "" {
			return append(b, "null"...)
		}
		return market.AppendJSONString(b, s)
	}
	b = day(append(b, `,"anchor":`...), anchor)
	b = day(append(b, `,"listing_day":`...), listing)
	b = str(append(b, `,"listing_day_source":`...), listingSource)
	return str(append(b, `,"anchor_note":`...), note)
}

// Field codes: appendRows resolves each field name once per answer, not
// once per row (a string switch per field per row was measurable on 1,000-row
// answers).
const (
	fOpen = iota
	fHigh
	fLow
	fClose
	fVolume
	fAmount
	fPct
	fTurnover
	fLargeNet
	fAdjFactor
	fAdjOffset
)

var fieldCodes = map[string]int{"open": fOpen, "high": fHigh, "low": fLow, "close": fClose, "volume": fVolume,
	"amount": fAmount, "pct": fPct, "turnover_rate": fTurnover, "large_order_net": fLargeNet,
	"adj_factor": fAdjFactor, "adj_offset": fAdjOffset}

// appendRows writes the rows as a JSON array, by hand: 250 rows with
// indicators are on the K-line hot path, and unknown values (NaN) must be
// null, which encoding/json refuses.
func appendRows(b []byte, rs rowSet) []byte {
	type field struct {
		code int
		key  string // ,"name":
	}
	fields := make([]field, 0, len(rs.fields))
	for _, f := range rs.fields {
		if c, ok := fieldCodes[f]; ok {
			fields = append(fields, field{c, `,"` + f + `":`})
		}
	}
	var colKeys []string
	for _, cols := range [][]indicator.Column{rs.columns, rs.extra} {
		for _, c := range cols {
			colKeys = append(colKeys, `,"`+c.Name+`":`)
		}
	}
	b = append(b, '[')
	prev := rs.prevClose
	for i, bar := range rs.bars {
		if rs.newestFirst {
			prev = rs.prevClose
			if i+1 < len(rs.bars) {
				prev = rs.bars[i+1].Close
			}
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"trade_date":"`...)
		b = bar.Day.AppendTo(b)
		b = append(b, `","ts":`...)
		b = strconv.AppendInt(b, bar.TS, 10)
		b = append(b, `,"time":"`...)
		b = market.AppendTime(b, bar.TS)
		b = append(b, '"')
		for _, f := range fields {
			b = append(b, f.key...)
			switch f.code {
			case fOpen:
				b = market.AppendJSONFloat(b, bar.Open)
			case fHigh:
				b = market.AppendJSONFloat(b, bar.High)
			case fLow:
				b = market.AppendJSONFloat(b, bar.Low)
			case fClose:
				b = market.AppendJSONFloat(b, bar.Close)
			case fVolume:
				b = strconv.AppendInt(b, bar.Volume, 10)
			case fAmount:
				b = market.AppendJSONFloat(b, bar.Amount)
			case fPct:
				pct := market.Unknown()
				if prev > 0 {
					pct = round4((bar.Close/prev - 1) * 100)
				}
				b = market.AppendJSONFloat(b, pct)
			case fTurnover:
				b = market.AppendJSONFloat(b, bar.TurnoverRate)
			case fLargeNet:
				b = market.AppendJSONFloat(b, bar.LargeOrderNet)
			case fAdjFactor:
				b = market.AppendJSONFloat(b, rs.adj.At(bar.Day).A)
			case fAdjOffset:
				b = market.AppendJSONFloat(b, rs.adj.At(bar.Day).B)
			}
		}
		k := 0
		for _, cols := range [][]indicator.Column{rs.columns, rs.extra} {
			for _, c := range cols {
				b = append(b, colKeys[k]...)
				k++
				b = market.AppendJSONFloat(b, round4(c.Values[i]))
			}
		}
		if rs.provisional != nil && rs.provisional(i) {
			b = append(b, `,"provisional":true}`...)
		} else {
			b = append(b, `,"provisional":false}`...)
		}
		prev = bar.Close
	}
	return append(b, ']')
}
