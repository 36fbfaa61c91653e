package api

import (
	"cmp"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"mdqs/internal/adjust"
	"mdqs/internal/bridge"
	"mdqs/internal/corpaction"
	"mdqs/internal/indicator"
	"mdqs/internal/kline"
	"mdqs/internal/market"
)

func timeOf(ts int64) time.Time { return time.Unix(ts, 0) }

// round4 keeps indicator and ratio values to 4 decimals: more digits are
// float noise to a chart and cost bytes on the wire.
func round4(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	return math.Round(v*1e4) / 1e4
}

// klineRequest is the parameters of GET /v1/api/kline and
// /v1/api/kline/adjusted.
type klineRequest struct {
	tdx        bool // source=tdx: read the terminal's files, not the store
	code       market.Code
	freq       market.Freq
	from, to   time.Time
	fields     []string
	indicators []indicator.Spec
	mode       adjust.Mode // the adjusted endpoint's mode; None on /v1/api/kline
	anchor     market.Day  // the adjusted endpoint's anchor; 0: the mode's default
}

// parseFields reads a fields subset; absent is every field. optional are
// fields a request may ask for that are not in the default set.
func parseFields(q *query, optional ...string) []string {
	s := q.str("fields")
	if s == "" {
		return barFields
	}
	known := append(slices.Clone(barFields), optional...)
	var out []string
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(strings.ToLower(f))
		switch {
		case f == "" || f == "trade_date" || f == "ts" || f == "time":
			continue // always present
		case !slices.Contains(known, f):
			q.fail("", "unknown field %q in fields (known: %s; trade_date, ts and time are always present)", f, strings.Join(known, ","))
			return nil
		case !slices.Contains(out, f):
			out = append(out, f)
		}
	}
	return out
}

func (s *Server) parseKline(r *http.Request) (klineRequest, error) {
	return s.parseKlineOf(r, false)
}

// parseKlineOf reads a K-line request; adjusted is /v1/api/kline/adjusted,
// which takes mode and anchor where /v1/api/kline refuses adj=qfq|hfq.
func (s *Server) parseKlineOf(r *http.Request, adjusted bool) (klineRequest, error) {
	q := newQuery(r)
	var k klineRequest
	k.code, _ = q.code("code", true)
	k.freq = q.freq("freq", "")
	from, hasFrom := q.instant("start", false)
	to, hasTo := q.instant("end", true)
	if !hasFrom && q.Err() == nil {
		q.fail("", "start is required: YYYY-MM-DD, YYYYMMDD or YYYY-MM-DD HH:MM:SS")
	}
	if !hasTo && q.Err() == nil {
		q.fail("", "end is required: YYYY-MM-DD, YYYYMMDD or YYYY-MM-DD HH:MM:SS")
	}
	k.from, k.to = from, to
	if adjusted {
		switch mode := strings.ToLower(q.str("mode")); mode {
		case "qfq":
			k.mode = adjust.QFQ
		case "hfq":
			k.mode = adjust.HFQ
		case "":
			q.fail("", "mode is required: qfq (前复权, anchored at the latest bar) or hfq (后复权, anchored at the listing day)")
		default:
			q.fail("", "mode must be qfq or hfq, got %q", mode)
		}
		if q.has("anchor") {
			k.anchor, _ = q.day("anchor", "")
		}
		if q.has("adj") || q.has("source") {
			q.fail("", "adjusted bars take mode (qfq or hfq), not adj, and are read from the store (no source parameter)")
		}
	} else {
		switch adj := strings.ToLower(q.str("adj")); adj {
		case "", "none":
		case "qfq", "hfq":
			// The spec answers a parameter error, and existing clients rely
			// on it; adjusted bars are an endpoint beside it.
			q.fail("parameter error", "adj=%s is not supported here: /v1/api/kline serves unadjusted bars (adj=none); "+
				"ask GET /v1/api/kline/adjusted with mode=%s and the same code, freq, start and end", adj, adj)
		default:
			q.fail("", "adj must be none, got %q", adj)
		}
	}
	k.fields = parseFields(q, adjustFields...)
	if !adjusted {
		k.tdx = q.oneOf("source", "", "store", "store", "tdx") == "tdx"
	}
	if err := q.Err(); err != nil {
		return k, err
	}
	specs, err := indicator.ParseList(q.str("indicators"))
	if err != nil {
		return k, err
	}
	k.indicators = specs
	if k.from.After(k.to) {
		return k, market.Errorf(market.KindInvalid, "start %s is after end %s", market.FormatTime(k.from), market.FormatTime(k.to))
	}
	return k, nil
}

// warmup moves a range's start back far enough to hold n earlier bars of a
// frequency (indicator warm-up, and the previous close for pct).
func (s *Server) warmup(from time.Time, freq market.Freq, n int) time.Time {
	days := n
	switch freq {
	case market.Min1:
		days = n/240 + 1
	case market.Min5:
		days = n/48 + 1
	}
	d := market.DayOf(from)
	for range days + 1 {
		d = s.Calendar.Prev(d)
	}
	return d.Start()
}

// handleKline is GET /v1/api/kline: final bars from the store (fetched where
// the store lacks them), today's forming bars joined from the in-memory
// 1-minute series, the chosen fields and indicators.
func (s *Server) handleKline(w http.ResponseWriter, r *http.Request) error {
	k, err := s.parseKline(r)
	if err != nil {
		return err
	}
	return s.writeKline(w, r, k)
}

// writeKline answers a parsed K-line request: unadjusted, or adjusted when
// k.mode says so (the warm-up and today's forming bars adjusted too, so
// indicators and pct run on adjusted prices).
func (s *Server) writeKline(w http.ResponseWriter, r *http.Request, k klineRequest) error {
	var adj *corpaction.Adjustment
	if k.mode != adjust.None || wantsAdjFields(k.fields) {
		if s.Actions == nil {
			return market.Errorf(market.KindUnavailable, "adjusted prices are not served by this server")
		}
		mode := k.mode
		if mode == adjust.None {
			mode = adjust.QFQ // adj_factor and adj_offset are the qfq map, as the terminal shows
		}
		a, err := s.Actions.Adjustment(r.Context(), k.code, mode, k.anchor)
		if err != nil {
			return err
		}
		adj = &a
	}
	look := indicator.Lookback(k.indicators) + 1
	rng := kline.Range{From: k.from, To: k.to, WarmFrom: s.warmup(k.from, k.freq, look)}
	if len(k.indicators) == 0 {
		// pct needs the one close before the range. With indicators the
		// warm-up stays whole days: an EMA's value depends on how far back
		// it starts, and the days it starts from are part of the answer.
		rng.WarmBars = look
	}
	var ser kline.Series
	var err error
	if k.tdx {
		ser, err = s.terminalSeries(r, k.code, k.freq, rng)
	} else {
		ser, err = s.Klines.Series(r.Context(), k.code, k.freq, rng)
	}
	if err != nil {
		return err
	}
	if adj != nil && k.mode != adjust.None {
		// A copy: the series' slices may be a cache's.
		ser.Bars = adj.Schedule.Apply(ser.Bars)
	}
	var head func(b []byte, first, last market.Day) []byte
	if k.mode != adjust.None {
		head = func(b []byte, first, last market.Day) []byte {
			return appendAdjustment(b, adj, adj.Affecting(first, last))
		}
	}
	source := s.sourceLabel("store")
	if k.tdx {
		source = s.sourceLabel(bridge.Source)
	}
	var sched *adjust.Schedule
	if adj != nil {
		sched = &adj.Schedule
	}
	return s.encodeKline(w, k, ser, source, head, sched)
}

// encodeKline writes the answer to a K-line request from its series
// (warm-up bars included): head (nil: none) writes what an adjusted answer
// says of its prices given the first and last rows' days, source is the
// answer's source label, and sched (nil: not asked for) gives the
// adj_factor and adj_offset fields.
func (s *Server) encodeKline(w http.ResponseWriter, k klineRequest, ser kline.Series, source string,
	head func(b []byte, first, last market.Day) []byte, sched *adjust.Schedule) error {
	first := sort0(ser.Bars, k.from.Unix())
	cols, err := indicator.Eval(ser.Bars, k.indicators)
	if err != nil {
		return err
	}
	for i := range cols {
		cols[i].Values = cols[i].Values[first:]
	}
	prev := market.Unknown()
	if first > 0 {
		prev = ser.Bars[first-1].Close
	}
	bars := ser.Bars[first:]
	provFrom := len(bars) - min(ser.Provisional, len(bars))
	buf := getBuf(256 + len(bars)*(160+24*len(cols)))
	defer putBuf(buf)
	b := append((*buf)[:0], `{"code":1,"message":"OK","data":{"code":"`...)
	b = append(b, k.code.String()...)
	b = append(b, `","freq":"`...)
	b = append(b, k.freq...)
	b = append(b, `","adj":"`...)
	b = append(b, k.mode.String()...)
	b = append(b, '"')
	if head != nil {
		var first, last market.Day
		if len(bars) > 0 {
			first, last = bars[0].Day, bars[len(bars)-1].Day
		}
		b = head(b, first, last)
	}
	b = append(b, `,"source":"`...)
	b = append(b, source...)
	b = append(b, `","count":`...)
	b = strconv.AppendInt(b, int64(len(bars)), 10)
	b = append(b, `,"final_through":"`...)
	b = append(b, ser.FinalThrough.String()...)
	b = append(b, `","provisional_rows":`...)
	b = strconv.AppendInt(b, int64(len(bars)-provFrom), 10)
	b = append(b, `,"realtime_as_of":`...)
	if ser.Provisional > 0 {
		b = market.AppendJSONString(b, market.FormatTime(ser.RealtimeAsOf))
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"indicators":[`...)
	for i, c := range cols {
		if i > 0 {
			b = append(b, ',')
		}
		b = market.AppendJSONString(b, c.Name)
	}
	b = append(b, `],"rows":`...)
	rs := rowSet{bars: bars, prevClose: prev, fields: k.fields, columns: cols,
		provisional: func(i int) bool { return i >= provFrom }, adj: sched}
	b = appendRows(b, rs)
	b = append(b, "}}\n"...)
	writeBytes(w, http.StatusOK, jsonType, b)
	*buf = b
	return nil
}

// terminalSeries reads a range straight from the terminal's bar files
// (source=tdx): final bars only, whatever the terminal has downloaded.
func (s *Server) terminalSeries(r *http.Request, code market.Code, freq market.Freq, rng kline.Range) (kline.Series, error) {
	if err := s.bridgeReady(r); err != nil {
		return kline.Series{}, err
	}
	if n := s.Klines.Estimate(freq, market.DayOf(rng.Start()), market.DayOf(rng.To)); n > 20_000 {
		return kline.Series{}, market.Errorf(market.KindInvalid, "the range holds up to %d %s bars; narrow start/end", n, freq)
	}
	bars, err := s.Bridge.Bars(r.Context(), code, freq, market.DayOf(rng.Start()), market.DayOf(rng.To))
	if err != nil {
		return kline.Series{}, err
	}
	out := kline.Series{}
	for _, b := range bars {
		if b.TS >= rng.Start().Unix() && b.TS <= rng.To.Unix() {
			out.Bars = append(out.Bars, b)
		}
	}
	if len(out.Bars) > 0 {
		out.FinalThrough = out.Bars[len(out.Bars)-1].Day
	}
	return out, nil
}

// sort0 is the index of the first bar at or after ts.
func sort0(bars []market.Bar, ts int64) int {
	i, _ := slices.BinarySearchFunc(bars, ts, func(b market.Bar, t int64) int { return cmp.Compare(b.TS, t) })
	return i
}
