// Package corpaction serves a code's corporate actions (除权除息, bonus and
// transfer shares, rights issues, share-capital changes) as the store holds
// them from the terminal's gbbq file (or the demo market's), and the
// adjustment schedules made from them (package adjust): the terminal's
// 前复权 and 后复权.
package corpaction

import (
	"context"
	"slices"

	"mdqs/db"
	"mdqs/internal/adjust"
	"mdqs/internal/market"
	"mdqs/internal/tdx"
)

// Method names how adjusted prices are made: the terminal's affine
// per-event map, composed, rounded to the cent only at the end
// (adjust.Factors), not the ratio method of other providers.
const Method = "tdx-affine"

// Service reads actions from the store; nothing is cached, since a
// schedule is a few dozen rows and every gbbq import may change it
// (adjust.md §1.3: never cache qfq across gbbq versions).
type Service struct {
	store    *db.Store
	cal      *market.Calendar
	clock    market.Clock
	window   market.Window
	upstream *Upstream // adjusted bars where no actions are imported; nil: none (see WithUpstream)
}

func New(store *db.Store, cal *market.Calendar, clock market.Clock, window market.Window) *Service {
	return &Service{store: store, cal: cal, clock: clock, window: window}
}

// Adjustment is what an adjusted answer needs: the schedule, its anchor,
// the price events it applies, and where they came from.
type Adjustment struct {
	Schedule adjust.Schedule
	Anchor   market.Day     // qfq: the as-of day; hfq: the listing day (0: unknown, every event applies)
	Events   []adjust.Event // the price events (category 1) the schedule applies, oldest first
	Source   string         // the actions' source ("tdx", "demo"); "" for a code without any
}

// Actions lists a code's actions between from and to (0: unbounded). A
// store that never imported any is an outage naming what to configure,
// not an empty list: no list is not the same as no events.
func (s *Service) Actions(ctx context.Context, code market.Code, from, to market.Day) ([]db.Action, error) {
	all, err := s.held(ctx, code)
	if err != nil {
		return nil, err
	}
	out := all[:0:0]
	for _, a := range all {
		if (from == 0 || a.Day >= from) && (to == 0 || a.Day <= to) {
			out = append(out, a)
		}
	}
	return out, nil
}

func (s *Service) held(ctx context.Context, code market.Code) ([]db.Action, error) {
	rev, err := s.store.ActionsRevision(ctx)
	if err != nil {
		return nil, err
	}
	if rev == 0 {
		return nil, market.Errorf(market.KindUnavailable,
			"no corporate actions imported: set tdx.dir to the terminal's folder (its T0002/hq_cache/gbbq is imported with the other terminal files) and refresh it")
	}
	return s.store.Actions(ctx, code)
}

// DefaultAnchor is the anchor a request without one gets: for qfq the
// current trading day (the terminal anchors at the latest bar, so an
// old range is shown as the terminal shows it today), for hfq the
// listing day (see ListingDay; 0 when no source says).
func (s *Service) DefaultAnchor(ctx context.Context, mode adjust.Mode, code market.Code, actions []db.Action) (market.Day, error) {
	switch mode {
	case adjust.QFQ:
		return s.window.CurrentTradingDay(s.cal, s.clock.Now()), nil
	case adjust.HFQ:
		d, _, err := s.ListingDay(ctx, code, actions)
		return d, err
	}
	return 0, nil
}

// Where a listing day came from, as answers name it.
const (
	ListingFromGBBQ    = "gbbq"            // the gbbq's listing record (a share change from zero)
	ListingFromBaseDBF = tdx.BaseDBFSource // the terminal's base.dbf, SSDATE
)

// ListingDay is code's listing day and where it came from: the gbbq's
// listing record (of the actions given, the code's), else the SSDATE of
// the terminal's base.dbf as imported; 0 and "" when neither says (held-out installs: 1,700 of 2,844 codes had no
// listing record in their gbbq).
func (s *Service) ListingDay(ctx context.Context, code market.Code, actions []db.Action) (market.Day, string, error) {
	if d, ok := tdx.ListingDay(asGBBQ(actions), code); ok {
		return d, ListingFromGBBQ, nil
	}
	d, _, err := s.store.ListingDay(ctx, code)
	switch {
	case err == nil:
		return d, ListingFromBaseDBF, nil
	case market.KindOf(err) == market.KindNotFound:
		return 0, "", nil
	}
	return 0, "", err
}

// Adjustment builds a code's schedule for mode, anchored at anchor (0:
// DefaultAnchor).
func (s *Service) Adjustment(ctx context.Context, code market.Code, mode adjust.Mode, anchor market.Day) (Adjustment, error) {
	all, err := s.held(ctx, code)
	if err != nil {
		return Adjustment{}, err
	}
	if anchor == 0 {
		if anchor, err = s.DefaultAnchor(ctx, mode, code, all); err != nil {
			return Adjustment{}, err
		}
	}
	events := PriceEvents(all)
	sched, err := adjust.Factors(events, mode, anchor)
	if err != nil {
		return Adjustment{}, market.Wrap(market.KindUnavailable, err, "the corporate actions of %s hold an event no adjustment can use (%v); re-import the terminal's gbbq", code, err)
	}
	// Rounded to the code's own tick: a fund's 0.001, not a stock's cent.
	sched.Decimals = tdx.ScaleFor(code).Decimals
	out := Adjustment{Schedule: sched, Anchor: anchor, Events: applied(events, mode, anchor)}
	if len(all) > 0 {
		out.Source = all[0].Source
	}
	return out, nil
}

// Affecting are the events that move at least one bar dated first..last:
// for qfq those after the first bar (a bar gets the events after its
// day), for hfq those up to the last bar.
func (a Adjustment) Affecting(first, last market.Day) []adjust.Event {
	out := []adjust.Event{}
	for _, e := range a.Events {
		switch a.Schedule.Mode {
		case adjust.QFQ:
			if e.Day > first {
				out = append(out, e)
			}
		case adjust.HFQ:
			if e.Day <= last {
				out = append(out, e)
			}
		}
	}
	return out
}

// PriceEvents are the actions that move prices (category 1), as adjust
// takes them: the stored float32 values, never rounded.
func PriceEvents(actions []db.Action) []adjust.Event {
	var out []adjust.Event
	for _, a := range actions {
		if a.Category != int(tdx.Dividend) {
			continue
		}
		out = append(out, adjust.Event{Day: a.Day, CashPer10: a.F[0], RightsPrice: a.F[1], BonusPer10: a.F[2], RightsPer10: a.F[3]})
	}
	return out
}

// applied keeps the events a schedule uses: qfq applies those on or
// before its anchor, hfq those after its anchor (the listing day).
func applied(events []adjust.Event, mode adjust.Mode, anchor market.Day) []adjust.Event {
	return slices.DeleteFunc(slices.Clone(events), func(e adjust.Event) bool {
		switch mode {
		case adjust.QFQ:
			return e.Day > anchor
		case adjust.HFQ:
			return e.Day <= anchor
		}
		return true
	})
}

func asGBBQ(actions []db.Action) []tdx.GBBQEvent {
	out := make([]tdx.GBBQEvent, len(actions))
	for i, a := range actions {
		out[i] = tdx.GBBQEvent{Code: a.Code, Day: a.Day, Category: tdx.GBBQCategory(a.Category),
			F: [4]float32{float32(a.F[0]), float32(a.F[1]), float32(a.F[2]), float32(a.F[3])}}
	}
	return out
}
