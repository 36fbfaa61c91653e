package api

import (
	"net/http"
	"slices"
	"strconv"

	"mdqs/db"
	"mdqs/internal/indicator"
	"mdqs/internal/kline"
	"mdqs/internal/market"
)

// maxPageSize bounds with_realtime pages (spec 8).
const maxPageSize = 500

// handleKlineWithRealtime is GET /v1/api/kline/with_realtime: the series
// newest first, page by page. Page 1 comes from a cache of the newest 100
// bars (today's forming bars first); later pages continue from SQLite
// strictly before the cached screen's oldest bar, so pages meet exactly.
func (s *Server) handleKlineWithRealtime(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r)
	code, _ := q.code("code", true)
	freq := q.freq("freq", "")
	page := q.intIn("page", 1, 1, 1_000_000)
	size := q.intIn("page_size", 100, 1, maxPageSize)
	if err := q.Err(); err != nil {
		return err
	}
	trendN := indicator.DefaultTrendPeriod
	p, err := s.Pager.Get(r.Context(), code, freq, page, size, trendN-1)
	if err != nil {
		return err
	}
	// Oldest first for the maths: the context (older) bars, then the page.
	oldestFirst := make([]market.Bar, 0, len(p.Bars)+len(p.Context))
	for i := len(p.Context) - 1; i >= 0; i-- {
		oldestFirst = append(oldestFirst, p.Context[i])
	}
	for i := len(p.Bars) - 1; i >= 0; i-- {
		oldestFirst = append(oldestFirst, p.Bars[i])
	}
	closes := make([]float64, len(oldestFirst))
	for i, b := range oldestFirst {
		closes[i] = b.Close
	}
	trend, err := indicator.TrendStrength(nil, closes, trendN)
	if err != nil {
		return err
	}
	// Back to newest first, the page's rows only.
	tv := make([]float64, len(p.Bars))
	for i := range p.Bars {
		tv[i] = trend[len(trend)-1-i]
	}
	prev := market.Unknown()
	if len(p.Context) > 0 {
		prev = p.Context[0].Close
	}
	b := make([]byte, 0, 512+len(p.Bars)*220)
	b = append(b, `{"code":1,"message":"OK","data":{"code":"`...)
	b = append(b, code.String()...)
	b = append(b, `","freq":"`...)
	b = append(b, freq...)
	b = append(b, `","source":"`...)
	b = append(b, s.sourceLabel("store")...)
	b = append(b, `","order":"newest_first","page":`...)
	b = strconv.AppendInt(b, int64(page), 10)
	b = append(b, `,"page_size":`...)
	b = strconv.AppendInt(b, int64(size), 10)
	b = append(b, `,"count":`...)
	b = strconv.AppendInt(b, int64(len(p.Bars)), 10)
	b = append(b, `,"has_more":`...)
	b = strconv.AppendBool(b, p.More)
	b = append(b, `,"from_cache":`...)
	b = strconv.AppendBool(b, page == 1 && p.FromCache)
	b = append(b, `,"provisional_rows":`...)
	b = strconv.AppendInt(b, int64(p.Provisional), 10)
	b = append(b, `,"as_of":`...)
	b = market.AppendJSONString(b, market.FormatTime(p.AsOf))
	b = append(b, `,"rows":`...)
	b = appendRows(b, rowSet{bars: p.Bars, prevClose: prev, fields: barFields, newestFirst: true,
		extra:       []indicator.Column{{Name: "trend_strength", Values: tv}},
		provisional: func(i int) bool { return i < p.Provisional }})
	b = append(b, "}}\n"...)
	writeBytes(w, http.StatusOK, jsonType, b)
	return nil
}

// handleIntraday is GET /v1/api/intraday/kline: the latest session's
// 1-minute (or 5-minute) bars of a code, from memory.
func (s *Server) handleIntraday(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r)
	code, _ := q.code("code", true)
	freq := q.freq("freq", market.Min1)
	if q.Err() == nil && freq == market.Daily {
		q.fail("", "freq must be 1m or 5m")
	}
	if err := q.Err(); err != nil {
		return err
	}
	sess, err := s.Klines.Intraday().Get(r.Context(), code)
	if err != nil {
		return err
	}
	if len(sess.Bars) == 0 {
		return market.Errorf(market.KindNotFound, "no intraday bars of %v", code)
	}
	day := sess.Bars[len(sess.Bars)-1].Day
	bars := kline.Aggregate(sess.Day(day), freq)
	final := day <= s.Klines.LastCompleteDay()
	prev := market.Unknown()
	if prior := sess.Day(s.Calendar.Prev(day)); len(prior) > 0 {
		prev = prior[len(prior)-1].Close
	}
	b := make([]byte, 0, 256+len(bars)*200)
	b = append(b, `{"code":1,"message":"OK","data":{"code":"`...)
	b = append(b, code.String()...)
	b = append(b, `","freq":"`...)
	b = append(b, freq...)
	b = append(b, `","source":"`...)
	b = append(b, s.sourceLabel("push2his")...)
	b = append(b, `","day":"`...)
	b = append(b, day.String()...)
	b = append(b, `","as_of":`...)
	b = market.AppendJSONString(b, market.FormatTime(sess.Fetched))
	b = append(b, `,"final":`...)
	b = strconv.AppendBool(b, final)
	b = append(b, `,"count":`...)
	b = strconv.AppendInt(b, int64(len(bars)), 10)
	b = append(b, `,"rows":`...)
	b = appendRows(b, rowSet{bars: bars, prevClose: prev, fields: barFields, provisional: func(int) bool { return !final }})
	b = append(b, "}}\n"...)
	writeBytes(w, http.StatusOK, jsonType, b)
	return nil
}

// macdWarmup is how many bars before the first point the B/S/A state
// machine runs: its marks depend on where it starts, so a fixed warm-up
// makes them the same on every request.
const macdWarmup = 250

// handleMACDBS is GET /v1/api/indicators/macd_bs.
func (s *Server) handleMACDBS(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r)
	code, _ := q.code("code", true)
	freq := q.freq("freq", market.Daily)
	limit := q.intIn("limit", 120, 1, 1000)
	to, hasTo := q.instant("end", true)
	from, hasFrom := q.instant("start", false)
	if err := q.Err(); err != nil {
		return err
	}
	if !hasTo {
		to = s.Clock.Now()
	}
	if !hasFrom {
		from = s.warmup(to, freq, limit)
	}
	ser, err := s.Klines.Series(r.Context(), code, freq, kline.Range{From: from, To: to, WarmFrom: s.warmup(from, freq, macdWarmup)})
	if err != nil {
		return err
	}
	var out indicator.MACDBS
	p := indicator.DefaultMarkParams()
	if err := indicator.MACDMarks(&out, ser.Bars, p); err != nil {
		return err
	}
	first := sort0(ser.Bars, from.Unix())
	if !hasFrom && len(ser.Bars)-first > limit {
		first = len(ser.Bars) - limit
	}
	type point struct {
		TradeDate   string     `json:"trade_date"`
		TS          int64      `json:"ts"`
		Close       market.Num `json:"close"`
		Volume      int64      `json:"volume"`
		DIF         market.Num `json:"dif"`
		DEA         market.Num `json:"dea"`
		MACD        market.Num `json:"macd"`
		VolTrend    market.Num `json:"vol_trend"`
		Heat        market.Num `json:"heat"`
		Mark        string     `json:"mark"`
		Provisional bool       `json:"provisional"`
	}
	points := make([]point, 0, len(ser.Bars)-first)
	marks := []point{}
	provFrom := len(ser.Bars) - ser.Provisional
	for i := first; i < len(ser.Bars); i++ {
		bar := ser.Bars[i]
		pt := point{TradeDate: bar.Day.String(), TS: bar.TS, Close: market.Num(bar.Close), Volume: bar.Volume,
			DIF: market.Num(round4(out.DIF[i])), DEA: market.Num(round4(out.DEA[i])), MACD: market.Num(round4(out.Hist[i])),
			VolTrend: market.Num(round4(out.VolTrend[i])), Heat: market.Num(round4(out.Heat[i])), Mark: out.Marks[i].String(),
			Provisional: i >= provFrom}
		points = append(points, pt)
		if pt.Mark != "" {
			marks = append(marks, pt)
		}
	}
	return ok(w, map[string]any{
		"code": code.String(), "freq": freq, "source": s.sourceLabel("store"),
		"params": map[string]any{"fast": p.MACD.Fast, "slow": p.MACD.Slow, "signal": p.MACD.Signal, "vol_fast": p.VolFast,
			"vol_slow": p.VolSlow, "heat_period": p.HeatPeriod, "heat_threshold": p.HeatThreshold, "warmup_bars": macdWarmup},
		"points": points, "marks": marks,
	})
}

// handleMicroMomentum is GET /v1/api/indicators/micro_momentum: freq=1m
// from the latest 6 completed 1-minute bars in memory, freq=D from the
// daily derived-signal snapshot the end-of-day job stores.
func (s *Server) handleMicroMomentum(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r)
	code, _ := q.code("code", true)
	freq := q.freq("freq", market.Min1)
	if q.Err() == nil && freq == market.Min5 {
		q.fail("", "freq must be 1m or D")
	}
	if err := q.Err(); err != nil {
		return err
	}
	if freq == market.Daily {
		sig, err := s.Store.LatestSignal(r.Context(), code)
		if err != nil {
			return err
		}
		return ok(w, map[string]any{
			"code": code.String(), "freq": "D", "source": s.sourceLabel("store"), "trade_date": sig.Day.String(), "computed_at": market.FormatTime(sig.ComputedAt),
			"close": market.Num(sig.Close), "pct": market.Num(round4(sig.Pct)),
			"micro_vol_ratio": market.Num(round4(sig.MicroVolRatio)), "vol_acc": market.Num(round4(sig.VolAcc)),
			"time_adjusted_vol_ratio": market.Num(round4(sig.TimeAdjustedVolRatio)), "price_speed_ratio": market.Num(round4(sig.PriceSpeedRatio)),
			"trend_strength": market.Num(round4(sig.TrendStrength)),
		})
	}
	sess, err := s.Klines.Intraday().Get(r.Context(), code)
	if err != nil {
		return err
	}
	if len(sess.Bars) < indicator.MomentumBars {
		return market.Errorf(market.KindNotFound, "%v has %d completed 1-minute bars in memory; micro momentum needs %d", code, len(sess.Bars), indicator.MomentumBars)
	}
	last := sess.Bars[len(sess.Bars)-indicator.MomentumBars:]
	m, err := indicator.MicroMomentum(last, market.Min1, nil)
	if err != nil {
		return err
	}
	type bar struct {
		Time   string     `json:"time"`
		Close  market.Num `json:"close"`
		Volume int64      `json:"volume"`
	}
	bars := make([]bar, len(last))
	for i, b := range last {
		bars[i] = bar{Time: market.FormatTime(timeOf(b.TS)), Close: market.Num(b.Close), Volume: b.Volume}
	}
	return ok(w, map[string]any{
		"code": code.String(), "freq": "1m", "source": s.sourceLabel("push2his"), "as_of": market.FormatTime(sess.Fetched), "bars": bars,
		"micro_vol_ratio": market.Num(round4(m.MicroVolRatio)), "vol_acc": market.Num(round4(m.VolAcc)),
		"time_adjusted_vol_ratio": market.Num(round4(m.TimeAdjustedVolRatio)), "price_speed_ratio": market.Num(round4(m.PriceSpeedRatio)),
	})
}

// handleChipMetrics is GET /v1/api/monitor/chip_metrics.
func (s *Server) handleChipMetrics(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r)
	sorts := make([]string, 0, len(db.ChipSortColumns))
	for k := range db.ChipSortColumns {
		sorts = append(sorts, k)
	}
	slices.Sort(sorts)
	sort := q.oneOf("sort", "invalid sort field", "profit_ratio", sorts...)
	window := q.intIn("window_days", 120, 1, 1000)
	if q.Err() == nil && !slices.Contains(kline.ChipWindows, window) {
		q.fail("", "window_days must be one of %v", kline.ChipWindows)
	}
	desc := q.oneOf("order", "", "desc", "asc", "desc") == "desc"
	var exchange market.Exchange
	if m := q.str("market"); m != "" {
		e, err := market.ParseExchange(m)
		if err != nil {
			q.fail("", "market must be SH, SZ or BJ")
		}
		exchange = e
	}
	code, hasCode := q.code("code", false)
	day, _ := q.day("day", "")
	page := q.intIn("page", 1, 1, 1_000_000)
	size := q.intIn("page_size", 50, 1, maxPageSize)
	if err := q.Err(); err != nil {
		return err
	}
	cq := db.ChipQuery{Day: day, Window: window, Exchange: exchange, Sort: sort, Desc: desc, Offset: (page - 1) * size, Limit: size}
	if hasCode {
		cq.Code = code.String()
	}
	d, total, list, err := s.Store.Chips(r.Context(), cq)
	if err != nil {
		return err
	}
	type item struct {
		Code            string     `json:"code"`
		Name            string     `json:"name"`
		Days            int        `json:"days"`
		Close           market.Num `json:"close"`
		AvgCost         market.Num `json:"avg_cost"`
		ProfitRatio     market.Num `json:"profit_ratio"`
		Cost70Low       market.Num `json:"cost70_low"`
		Cost70High      market.Num `json:"cost70_high"`
		Concentration70 market.Num `json:"concentration70"`
		Cost90Low       market.Num `json:"cost90_low"`
		Cost90High      market.Num `json:"cost90_high"`
		Concentration90 market.Num `json:"concentration90"`
		PeakPrice       market.Num `json:"peak_price"`
	}
	items := make([]item, len(list))
	for i, c := range list {
		items[i] = item{c.Code, c.Name, c.Days, market.Num(c.Close), market.Num(round4(c.AvgCost)), market.Num(round4(c.ProfitRatio)),
			market.Num(round4(c.Cost70Low)), market.Num(round4(c.Cost70High)), market.Num(round4(c.Concentration70)),
			market.Num(round4(c.Cost90Low)), market.Num(round4(c.Cost90High)), market.Num(round4(c.Concentration90)), market.Num(round4(c.PeakPrice))}
	}
	if total == 0 && hasCode {
		return market.Errorf(market.KindNotFound, "no chip metrics for %v on %v", code, d)
	}
	return ok(w, map[string]any{"day": d.String(), "source": s.sourceLabel("store"), "window_days": window, "sort": sort, "items": items, "total": total, "page": page, "page_size": size})
}
