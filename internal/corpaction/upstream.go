package corpaction

import (
	"context"

	"mdqs/internal/adjust"
	"mdqs/internal/kline"
	"mdqs/internal/market"
	"mdqs/internal/upstream"
)

// What an upstream answer says of its prices: EastMoney adjusted them
// itself (push2his fqt=1 or 2) from its own event table, which it does not
// publish with the K-lines. Its qfq equals the terminal's to the cent when
// the two event tables agree, and lags the terminal's gbbq revisions when
// they do not; its hfq starts from a base level of its own, which for some
// codes (000001) is not the terminal's (adjust.md §5).
const (
	UpstreamMethod  = "eastmoney-fqt"
	UpstreamActions = "eastmoney"
)

// AdjustedSource gives bars the source adjusted itself: EastMoney push2his
// kline/get with fqt=1 (qfq) or fqt=2 (hfq).
type AdjustedSource interface {
	KlinesAdjusted(ctx context.Context, code market.Code, freq market.Freq, from, to market.Day, fqt upstream.Fqt) ([]market.Bar, error)
}

// Finality says which days' bars are final (kline.Service).
type Finality interface {
	LastCompleteDay() market.Day
}

// Upstream is the adjusted K-lines of the live upstream, for a server
// whose store holds no corporate actions (no terminal configured). Its
// bars are never stored: the store holds unadjusted bars only.
type Upstream struct {
	src  AdjustedSource
	name string // the source's label, "push2his"
	days Finality
}

// NewUpstream wraps src, named name; days says which bars are final (today's
// forming bar is in EastMoney's daily K-line during the session).
func NewUpstream(src AdjustedSource, name string, days Finality) *Upstream {
	return &Upstream{src: src, name: name, days: days}
}

// WithUpstream makes u answer adjusted bars while the store holds no
// imported actions; call it before serving. Demo mode has none: the demo
// market's actions are always there, and demo never mixes with live.
func (s *Service) WithUpstream(u *Upstream) *Service {
	s.upstream = u
	return s
}

// FromUpstream reports whether adjusted bars come from the upstream: one is
// configured and no corporate actions were ever imported. The first gbbq
// import switches every code to the terminal's events.
func (s *Service) FromUpstream(ctx context.Context) (bool, error) {
	if s.upstream == nil {
		return false, nil
	}
	rev, err := s.store.ActionsRevision(ctx)
	if err != nil {
		return false, err
	}
	return rev == 0, nil
}

// UpstreamSeries is an adjusted series as the upstream made it, with what
// the answer says of its prices.
type UpstreamSeries struct {
	kline.Series
	// Anchor is EastMoney's qfq anchor, its latest bar: the current
	// trading day. 0 for hfq, whose base level is EastMoney's own.
	Anchor        market.Day
	Method        string // UpstreamMethod
	ActionsSource string // UpstreamActions
	Source        string // the upstream's label ("push2his")
}

// UpstreamSeries reads code's bars adjusted by the upstream in r (warm-up
// included), the bars after the last complete day marked provisional. Only
// the upstream's own anchor can be asked: anchor must be 0 or, for qfq,
// the current trading day; another needs the terminal's events.
func (s *Service) UpstreamSeries(ctx context.Context, code market.Code, freq market.Freq, mode adjust.Mode, anchor market.Day, r kline.Range) (UpstreamSeries, error) {
	if s.upstream == nil {
		return UpstreamSeries{}, market.Errorf(market.KindUnavailable, "adjusted prices from the upstream are not configured")
	}
	var fqt upstream.Fqt
	var at market.Day
	switch mode {
	case adjust.QFQ:
		fqt, at = upstream.FqtQFQ, s.window.CurrentTradingDay(s.cal, s.clock.Now())
	case adjust.HFQ:
		fqt = upstream.FqtHFQ
	default:
		return UpstreamSeries{}, market.Errorf(market.KindInvalid, "mode must be qfq or hfq")
	}
	if anchor != 0 && anchor != at {
		own := "hfq, from a base level of its own, which takes no anchor"
		if mode == adjust.QFQ {
			own = "qfq, anchored at its latest bar (" + at.String() + ", the default)"
		}
		return UpstreamSeries{}, market.Errorf(market.KindInvalid,
			"anchor %s needs the terminal's corporate actions: none are imported, so adjusted bars are EastMoney's %s; "+
				"set tdx.dir to the terminal's folder to import its gbbq", anchor, own)
	}
	warm, to := market.DayOf(r.Start()), market.DayOf(r.To)
	bars, err := s.upstream.src.KlinesAdjusted(ctx, code, freq, warm, to, fqt)
	if err != nil {
		return UpstreamSeries{}, upstreamErr(err, "EastMoney "+s.upstream.name+" "+mode.String()+" "+string(freq)+" bars of "+code.String())
	}
	last := s.upstream.days.LastCompleteDay()
	out := UpstreamSeries{Anchor: at, Method: UpstreamMethod, ActionsSource: UpstreamActions, Source: s.upstream.name}
	out.FinalThrough = min(to, last)
	from, until := r.Start().Unix(), r.To.Unix()
	for _, b := range bars {
		if b.TS < from || b.TS > until {
			continue
		}
		out.Bars = append(out.Bars, b)
		if b.Day > last {
			out.Provisional++ // the rows are ascending: these are the last ones
		}
	}
	if out.Provisional > 0 {
		out.RealtimeAsOf = s.clock.Now()
	}
	return out, nil
}

// upstreamErr classifies the upstream's failure to deliver what, as the
// K-line service does for unadjusted bars: an unknown security is 404, a
// refused argument 400, anything else 503 naming EastMoney and the way to
// serve adjusted bars without it.
func upstreamErr(err error, what string) error {
	switch k := upstream.KindOf(err); {
	case market.KindOf(err) == market.KindNotFound || market.KindOf(err) == market.KindInvalid:
		return err
	case k == upstream.KindRC || k == upstream.KindEmpty:
		return market.Wrap(market.KindNotFound, err, "no %s: the source does not know the security", what)
	default:
		return market.Wrap(market.KindUnavailable, err,
			"%s: %v (no corporate actions are imported, so adjusted bars come from EastMoney; set tdx.dir to compute them from the terminal's gbbq)", what, err)
	}
}
