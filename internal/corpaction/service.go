// Package corpaction serves a code's corporate actions (除权除息, bonus and
// transfer shares, rights issues, share-capital changes) as the store holds
// them from the terminal's gbbq file (or the demo market's), and the
// adjustment schedules made from them (package adjust): the terminal's
// 前复权 and 后复权.
package corpaction

import (
	"context"
	"fmt"
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
	latest   Latest    // nil: the newest stored daily bar (see WithLatest)
}

func New(store *db.Store, cal *market.Calendar, clock market.Clock, window market.Window) *Service {
	return &Service{store: store, cal: cal, clock: clock, window: window}
}

// Latest says the day of a code's latest daily bar (kline.Service), 0 when
// none is known: 前复权's default anchor.
type Latest interface {
	LatestDay(ctx context.Context, code market.Code) (market.Day, error)
}

// WithLatest makes l say which bar is a code's latest; call it before
// serving. Without it the newest stored daily bar is.
func (s *Service) WithLatest(l Latest) *Service {
	s.latest = l
	return s
}

// Adjustment is what an adjusted answer needs: the schedule, its anchor,
// the price events it applies, where they came from, the code's listing
// day and what the answer should say of its anchor.
type Adjustment struct {
	Schedule adjust.Schedule
	Anchor   market.Day     // qfq: the as-of day; hfq: the listing day (0: unknown, every event applies)
	Events   []adjust.Event // the price events (category 1) the schedule applies, oldest first
	Source   string         // the actions' source ("tdx", "demo"); "" for a code without any
	// Listing is the code's listing day and ListingSource the source that
	// states it (ListingDay); 0 and "" when none does.
	Listing       market.Day
	ListingSource string
	// Note says, in words, what the answer's reader must know of its
	// anchor: a 前复权 anchored before the last complete trading day (a
	// stale store), a 后复权 without a known listing day; "" otherwise.
	Note string
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
// day of the code's latest bar, as the terminal anchors (an old range is
// shown as it is as of that bar, and events after it, which gbbq holds
// before they take effect or which a stale store has no bars for, are not
// applied), the current trading day when no bar is known; for hfq the
// listing day (0 when no source states it).
func (s *Service) DefaultAnchor(ctx context.Context, mode adjust.Mode, code market.Code, actions []db.Action) (market.Day, error) {
	switch mode {
	case adjust.QFQ:
		d, err := s.latestDay(ctx, code)
		if err != nil || d != 0 {
			return d, err
		}
		return s.window.CurrentTradingDay(s.cal, s.clock.Now()), nil
	case adjust.HFQ:
		d, _, err := s.ListingDay(ctx, code, actions)
		return d, err
	}
	return 0, nil
}

func (s *Service) latestDay(ctx context.Context, code market.Code) (market.Day, error) {
	if s.latest != nil {
		return s.latest.LatestDay(ctx, code)
	}
	bars, err := s.store.Bars(ctx, db.BarQuery{Code: code, Freq: market.Daily, Newest: true, Limit: 1})
	if err != nil || len(bars) == 0 {
		return 0, err
	}
	return bars[0].Day, nil
}

// ListingFromGBBQ names the listing day of the gbbq's listing record, as
// answers give it; the other sources are named as the store holds them
// (tdx.BaseDBFSource, the demo market's, the exchanges' lists).
const ListingFromGBBQ = "gbbq"

// ListingDay is code's listing day and where it came from: the gbbq's
// listing record (of the actions given, the code's), else the day the
// store holds from the other sources, the terminal's base.dbf (SSDATE)
// first (db.Store.ListingDay), named as stored; 0 and "" when none says
// (issue 32: 1,700 of 2,844 codes of a held-out install had no listing
// day, and 12 had price events before their listing).
func (s *Service) ListingDay(ctx context.Context, code market.Code, actions []db.Action) (market.Day, string, error) {
	if d, ok := tdx.ListingDay(asGBBQ(actions), code); ok {
		return d, ListingFromGBBQ, nil
	}
	d, src, err := s.store.ListingDay(ctx, code)
	switch {
	case err == nil:
		return d, src, nil
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
	out := Adjustment{}
	if out.Listing, out.ListingSource, err = s.ListingDay(ctx, code, all); err != nil {
		return Adjustment{}, err
	}
	defaulted := anchor == 0
	if defaulted {
		switch mode {
		case adjust.HFQ:
			anchor = out.Listing
		default:
			if anchor, err = s.DefaultAnchor(ctx, mode, code, all); err != nil {
				return Adjustment{}, err
			}
		}
	}
	events := PriceEvents(all)
	sched, err := adjust.Factors(events, mode, anchor)
	if err != nil {
		return Adjustment{}, market.Wrap(market.KindUnavailable, err, "the corporate actions of %s hold an event no adjustment can use (%v); re-import the terminal's gbbq", code, err)
	}
	// Rounded to the code's own tick: a fund's 0.001, not a stock's cent.
	sched.Decimals = tdx.ScaleFor(code).Decimals
	out.Schedule, out.Anchor, out.Events = sched, anchor, applied(events, mode, anchor)
	if len(all) > 0 {
		out.Source = all[0].Source
	}
	if defaulted {
		out.Note = s.note(code, mode, anchor, len(events) > 0)
	}
	return out, nil
}

// note is what a default anchor's answer says of it (Adjustment.Note).
func (s *Service) note(code market.Code, mode adjust.Mode, anchor market.Day, events bool) string {
	switch mode {
	case adjust.QFQ:
		now := s.clock.Now()
		last := market.DayOf(now) // the last trading day whose close has passed
		if !s.cal.IsTradingDay(last) || now.Before(s.window.End.On(last)) {
			last = s.cal.Prev(last)
		}
		if anchor < last {
			return fmt.Sprintf("前复权 as of %s, the latest bar held of %s (the last complete trading day is %s): events after it are not applied", anchor, code, last)
		}
	case adjust.HFQ:
		if anchor == 0 && events {
			return fmt.Sprintf("no source states the listing day of %s (the gbbq has no listing record, and neither the terminal's base.dbf nor a listing list names it): "+
				"后复权 applies every event, any before the listing too, which raises the whole level; give anchor=YYYY-MM-DD, the listing day", code)
		}
	}
	return ""
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
			F: a.F}
	}
	return out
}
