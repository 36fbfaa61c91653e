// Package sources builds the configured market-data sources (the EastMoney
// and AKTools clients, and the demo market) once, for the server and for the
// command-line tools, and hands each consumer the interface it needs.
package sources

import (
	"context"
	"strings"

	"mdqs/db"
	"mdqs/internal/board"
	"mdqs/internal/config"
	"mdqs/internal/corpaction"
	"mdqs/internal/demo"
	"mdqs/internal/etf"
	"mdqs/internal/kline"
	"mdqs/internal/market"
	"mdqs/internal/quote"
	"mdqs/internal/screener"
	"mdqs/internal/upstream"
)

// Set is every source of one configuration. The clients dial nothing until
// first used, so a demo configuration never reaches the network.
type Set struct {
	Mode string // sources.default
	// Limiters holds one rate limiter per upstream host for the whole
	// process: every client of EastMoney, here or elsewhere, shares its cap.
	Limiters *upstream.Limiters
	Push2    *upstream.Push2
	Push2His *upstream.Push2His
	AKShare  *upstream.AKShare
	Demo     *demo.Market // the demo market in demo mode, else nil
}

func New(cfg config.Config, cal *market.Calendar, clock market.Clock) (*Set, error) {
	lims := upstream.NewLimiters()
	def := upstream.DefaultConfig()
	p2cfg := def.Push2
	p2cfg.SourceConfig = cfg.Sources.Push2.Source(def.Push2.SourceConfig)
	p2cfg.ETFBoards = strings.Join(cfg.ETF.Boards, ",")
	s := &Set{Mode: cfg.Sources.Default, Limiters: lims}
	var err error
	if s.Push2, err = upstream.NewPush2(p2cfg, lims, clock); err != nil {
		return nil, err
	}
	if s.Push2His, err = upstream.NewPush2His(cfg.Sources.Push2His.Source(def.Push2His), lims, clock); err != nil {
		return nil, err
	}
	if s.AKShare, err = upstream.NewAKShare(cfg.Sources.AKShare.Source(def.AKShare), lims, clock); err != nil {
		return nil, err
	}
	if cfg.DemoMode() {
		if s.Demo, err = demo.New(demo.Config{Seed: cfg.Demo.Seed, Stocks: cfg.Demo.Stocks, Industries: cfg.Demo.Industries,
			Concepts: cfg.Demo.Concepts, Calendar: cal}, clock); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// IsDemo reports whether the default source is the demo market.
func (s *Set) IsDemo() bool { return s.Mode == board.SourceDemo && s.Demo != nil }

// Sectors are the sector sources by name: the demo market alone in demo
// mode, the live upstreams alone otherwise, so that a ?source= can neither
// put demo rows into a live store nor make a demo server call the internet.
func (s *Set) Sectors() map[string]board.SectorSource {
	if s.IsDemo() {
		return map[string]board.SectorSource{board.SourceDemo: s.Demo}
	}
	return map[string]board.SectorSource{board.SourcePush2: s.Push2, board.SourceAKShare: s.AKShare}
}

// Bars is the source of K-lines and its name: the demo market in demo
// mode, else push2his with its daily fund flow joined.
func (s *Set) Bars() (kline.BarSource, string) {
	if s.IsDemo() {
		return s.Demo, board.SourceDemo
	}
	return kline.WithFundFlow(s.Push2His, s.Push2His), upstream.SourcePush2His
}

// AdjustedBars is the source of K-lines the upstream adjusted itself
// (push2his fqt=1 for qfq, 2 for hfq) and its name, for adjusted prices
// while no terminal's corporate actions are imported; nil in demo mode,
// which never mixes with live data.
func (s *Set) AdjustedBars() (corpaction.AdjustedSource, string) {
	if s.IsDemo() {
		return nil, ""
	}
	return s.Push2His, upstream.SourcePush2His
}

// Trends is the source of the intraday 1-minute series.
func (s *Set) Trends() kline.TrendSource {
	if s.IsDemo() {
		return s.Demo
	}
	return s.Push2His
}

// Quotes is the source of the all-stock quote list.
func (s *Set) Quotes() kline.QuoteSource {
	if s.IsDemo() {
		return s.Demo
	}
	return s.Push2
}

// SingleQuotes is the source of one security's quote, for the codes the
// snapshot leaves out (indices, funds), and the name answers give both:
// the demo market in demo mode, else push2's stock/get.
func (s *Set) SingleQuotes() (quote.Single, string) {
	if s.IsDemo() {
		return s.Demo, board.SourceDemo
	}
	return s.Push2, upstream.SourcePush2
}

// ETFs is the source of the ETF list and its name: the demo market in
// demo mode, else push2's ETF boards.
func (s *Set) ETFs() (etf.Source, string) {
	if s.IsDemo() {
		return s.Demo, board.SourceDemo
	}
	return s.Push2, upstream.SourcePush2
}

// Statuses reports every upstream client's state for the health endpoint.
func (s *Set) Statuses() []upstream.Status {
	out := []upstream.Status{s.Push2.Status(), s.Push2His.Status(), s.AKShare.Status()}
	if s.Demo != nil {
		out = append(out, s.Demo.Status())
	}
	return out
}

// Membership is each stock's industry and concepts: the demo market's
// boards in demo mode; otherwise the stored blocks (filled by the terminal
// bridge), since the upstreams publish sectors without their members.
func (s *Set) Membership(store *db.Store) screener.Membership {
	if !s.IsDemo() {
		return screener.StoreMembership{Store: store}
	}
	return screener.MembershipFunc(func(ctx context.Context) (map[string]string, map[string][]string, error) {
		ind, con := map[string]string{}, map[string][]string{}
		for _, b := range s.Demo.Boards(market.Industry) {
			for _, c := range b.Members {
				ind[c.String()] = b.Name
			}
		}
		for _, b := range s.Demo.Boards(market.Concept) {
			for _, c := range b.Members {
				con[c.String()] = append(con[c.String()], b.Name)
			}
		}
		return ind, con, nil
	})
}
