package secmaster

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"mdqs/db"
	"mdqs/internal/market"
	"mdqs/internal/upstream"
)

// NameChangeLists are the exchanges' lists of short-name changes
// (upstream.Exchanges): the names a code had before the first record.
type NameChangeLists interface {
	NameChangeSources() []string
	NameChangesFrom(ctx context.Context, source string) ([]upstream.NameChange, error)
}

// WithNameChanges has the import read lists too, on the same schedule as
// the delisted lists and from the same exchanges.
func (d *Delisted) WithNameChanges(lists NameChangeLists) *Delisted {
	d.changes = lists
	return d
}

// importNameChanges is Import's part for the name-change lists: each list
// due is read whole and replaces its stored rows; one that fails keeps
// them.
func (d *Delisted) importNameChanges(ctx context.Context) error {
	if d.changes == nil {
		return nil
	}
	var errs []error
	for _, src := range d.changes.NameChangeSources() {
		at, err := d.store.NameChangesFetched(ctx, src)
		switch {
		case err == nil && d.clock.Now().Sub(at) < d.every:
			continue
		case err != nil && market.KindOf(err) != market.KindNotFound:
			errs = append(errs, err)
			continue
		}
		rows, err := d.changes.NameChangesFrom(ctx, src)
		if err != nil {
			errs = append(errs, fmt.Errorf("the %s list of short-name changes: %w", src, err))
			continue
		}
		out := make([]db.NameChange, len(rows))
		for i, r := range rows {
			out[i] = db.NameChange{Code: r.Code, Day: r.Day, Before: r.Before, After: r.After}
		}
		if err := d.store.ReplaceNameChanges(ctx, src, out, d.clock.Now()); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// NameSpan is a name a code had and the days a source states it: From 0
// when the source does not say since when, To 0 while it is the name.
type NameSpan struct {
	Name     string
	From, To market.Day
	Source   string
}

// addNames completes t with every name its code is known to have had.
func (s *Service) addNames(ctx context.Context, t *Timeline) error {
	changes, err := s.store.NameChanges(ctx, t.Code)
	if err != nil {
		return err
	}
	t.Names = namesOf(*t, changes, s.cal)
	t.Spans = append(t.Spans, warningsOf(t.Code, t.Names)...)
	slices.SortStableFunc(t.Spans, func(a, b db.SecuritySpan) int { return int(a.First) - int(b.First) })
	return nil
}

// warningsOf are the risk-warning spells a change list's names state: an
// exchange marks a warning in the short name (ST, *ST), so SZSE's list
// of name changes carries the spells back before the record. Only spells
// whose both ends the list dates are kept; the record states its own
// days.
func warningsOf(code market.Code, names []NameSpan) []db.SecuritySpan {
	var out []db.SecuritySpan
	for _, n := range names {
		if n.Source == Source || n.Source == HistorySource || n.From == 0 || n.To == 0 {
			continue
		}
		if st := STOf(n.Name); st != "" {
			out = append(out, db.SecuritySpan{Code: code, Field: db.FieldST, Value: st, First: n.From, Last: n.To, Source: n.Source})
		}
	}
	return out
}

// namesOf joins the record's names with those the change lists imply. The
// record is the fact for the days it covers; the lists fill the days
// before it (and after it, for a change made once recording stopped).
//
// A change on day D from A to B says A was the name until the session
// before D and B from D. The first name's start is not known (the list
// begins with a change, and changes before the list began are not in
// it); nor is the start of a recorded name already in effect on the first
// recorded day, unless the code listed that day.
func namesOf(t Timeline, changes []db.NameChange, cal *market.Calendar) []NameSpan {
	rec := t.Recorded
	var recorded []NameSpan
	firstSeen := market.Day(0)
	// The quote list's record is the one the names are read against; the
	// terminal's (TerminalSource) gives the names only of a code that
	// record never saw.
	spans := t.Spans
	if slices.ContainsFunc(spans, func(sp db.SecuritySpan) bool { return sp.Source != TerminalSource && sp.Field == db.FieldName }) {
		spans = slices.DeleteFunc(slices.Clone(spans), func(sp db.SecuritySpan) bool { return sp.Source == TerminalSource })
	}
	for _, sp := range spans {
		switch {
		case sp.Field == db.FieldName && sp.Value != "":
			from := sp.First
			if sp.First == rec.First && t.Listed.Day != sp.First {
				from = 0
			}
			recorded = append(recorded, NameSpan{Name: sp.Value, From: from, To: sp.Last, Source: sp.Source})
		case sp.Field == db.FieldListed && (firstSeen == 0 || sp.First < firstSeen):
			firstSeen = sp.First
		}
	}
	slices.SortStableFunc(recorded, func(a, b NameSpan) int { return int(a.To) - int(b.To) })

	var before, after []NameSpan
	for _, n := range listNames(changes, t.Delisted.Day, cal) {
		switch {
		case rec.Count == 0:
			before = append(before, n)
		case n.From > rec.Last:
			after = append(after, n)
		case n.From == 0 || n.From < rec.First:
			// A code that entered the record after its first day was not
			// listed before: the list has nothing to add there.
			if firstSeen > rec.First {
				continue
			}
			if n.To == 0 || n.To >= rec.First {
				n.To = cal.Prev(rec.First)
			}
			before = append(before, n)
		}
	}
	// The last recorded name is still the name unless the code left, was
	// delisted, or a list states a change after the record.
	if k := len(recorded) - 1; k >= 0 && recorded[k].To == rec.Last && t.Delisted.Day == 0 && len(after) == 0 {
		recorded[k].To = 0
	}
	out := slices.Concat(before, recorded, after)
	if out == nil {
		out = []NameSpan{}
	}
	return out
}

// listNames are the names the dated changes imply, oldest first. A
// change the list gives no day for is placed nowhere. Where the changes
// do not chain (a change's old name is not the previous one's new name),
// each change's new name counts from its day.
func listNames(changes []db.NameChange, delisted market.Day, cal *market.Calendar) []NameSpan {
	dated := make([]db.NameChange, 0, len(changes))
	for _, c := range changes {
		if c.Day != 0 && c.After != "" && c.Before != c.After {
			dated = append(dated, c)
		}
	}
	if len(dated) == 0 {
		return nil
	}
	slices.SortStableFunc(dated, func(a, b db.NameChange) int { return int(a.Day) - int(b.Day) })
	chainWithinDays(dated)
	var out []NameSpan
	if first := dated[0]; first.Before != "" {
		out = append(out, NameSpan{Name: first.Before, To: cal.Prev(first.Day), Source: first.Source})
	}
	for i, c := range dated {
		var to market.Day
		switch {
		case i+1 < len(dated):
			to = cal.Prev(dated[i+1].Day)
		case delisted != 0:
			to = cal.Prev(delisted)
		}
		// A name given and changed again on one day held no session.
		if to != 0 && to < c.Day {
			continue
		}
		out = append(out, NameSpan{Name: c.After, From: c.Day, To: to, Source: c.Source})
	}
	return out
}

// chainWithinDays orders the changes of one day so that each starts from
// the name the one before it gave (世纪星源 → ST星源 → *ST星源), whatever
// order the list gave them in.
func chainWithinDays(cs []db.NameChange) {
	for i := 0; i < len(cs); {
		j := i
		for j < len(cs) && cs[j].Day == cs[i].Day {
			j++
		}
		day := cs[i:j]
		// Start from the change whose old name no other change of the day gives.
		for k := range day {
			if !slices.ContainsFunc(day, func(o db.NameChange) bool { return o.After == day[k].Before }) {
				day[0], day[k] = day[k], day[0]
				break
			}
		}
		for k := 1; k < len(day); k++ {
			if n := slices.IndexFunc(day[k:], func(o db.NameChange) bool { return o.Before == day[k-1].After }); n > 0 {
				day[k], day[k+n] = day[k+n], day[k]
			}
		}
		i = j
	}
}
