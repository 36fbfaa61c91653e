// Package indexmembers keeps the history of the main indices' members
// (issue 31): every terminal import records the member lists its block
// files give (spblock.dat, infoharbor_block.dat, block_zs.dat, in that
// order of precedence) as observations of a day, the store keeps them as
// spans, and the answers say which observation each rests on. The demo
// market records the members its index levels are computed from.
package indexmembers

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"mdqs/db"
	"mdqs/internal/market"
)

// WeightsNote says why answers carry no weights.
const WeightsNote = "no weights: the terminal's block files (spblock.dat, infoharbor_block.dat, block_zs.dat) list members without weights, " +
	"and the demo market's indices are float-cap weighted over their members without a published weight table"

// Service answers membership questions from the store.
type Service struct {
	store *db.Store
}

func New(store *db.Store) *Service { return &Service{store: store} }

// Members is an index's member list on a day.
type Members struct {
	Index    market.Code
	Name     string
	Date     market.Day       // the day asked
	Observed db.IndexObserved // the observation the list rests on: the latest on or before Date
	Next     market.Day       // the next observation after it, 0 when it is the latest
	First    market.Day       // the first observation of the index
	Last     market.Day       // the latest
	Count    int              // observations
	Members  []db.IndexMember
	Note     string
}

// Members answers an index's members on day (0: its latest observed day).
// An index never observed, or a day before its first observation, is a
// not-found error saying what is known.
func (s *Service) Members(ctx context.Context, index market.Code, day market.Day) (Members, error) {
	obs, err := s.observations(ctx, index)
	if err != nil {
		return Members{}, err
	}
	first, last := obs[0], obs[len(obs)-1]
	if day == 0 {
		day = last.Day
	}
	if day < first.Day {
		return Members{}, market.Errorf(market.KindNotFound, "the member history of %s starts on %s, its first observation; nothing is recorded of %s",
			index, first.Day, day)
	}
	at := 0
	for i, o := range obs {
		if o.Day <= day {
			at = i
		}
	}
	m := Members{Index: index, Name: nameOr(index, last.Block), Date: day, Observed: obs[at], First: first.Day, Last: last.Day, Count: len(obs)}
	if at+1 < len(obs) {
		m.Next = obs[at+1].Day
	}
	switch {
	case m.Observed.Day == day:
		m.Note = fmt.Sprintf("observed on %s from %s", day, m.Observed.File)
	case m.Next != 0:
		m.Note = fmt.Sprintf("%s was not observed: the list is the observation of %s (from %s); the next, of %s, shows whether anything changed in between",
			day, m.Observed.Day, m.Observed.File, m.Next)
	default:
		m.Note = fmt.Sprintf("%s was not observed: the list is the latest observation, of %s (from %s); later changes show with the next import",
			day, m.Observed.Day, m.Observed.File)
	}
	m.Members, err = s.store.IndexMembersOn(ctx, index, m.Observed.Day)
	return m, err
}

// Change is a member coming in or going out, as two observations show it.
type Change struct {
	Kind     string // in, out
	Code     market.Code
	Name     string
	Day      market.Day // the first observation showing the change
	After    market.Day // the observation before it: the change happened after After, by Day
	File     string     // the file of the observation of Day
	Observed db.IndexObserved
}

// Changes is an index's ins and outs between its first and latest
// observation.
type Changes struct {
	Index   market.Code
	Name    string
	First   market.Day
	Last    market.Day
	Count   int
	Latest  db.IndexObserved
	Changes []Change
}

// Changes lists the ins and outs of an index from from to to (0: open),
// oldest first. The first observation's list is where the history
// starts, not a day its members came in.
func (s *Service) Changes(ctx context.Context, index market.Code, from, to market.Day) (Changes, error) {
	obs, err := s.observations(ctx, index)
	if err != nil {
		return Changes{}, err
	}
	spans, err := s.store.IndexSpans(ctx, index)
	if err != nil {
		return Changes{}, err
	}
	pos := map[market.Day]int{}
	for i, o := range obs {
		pos[o.Day] = i
	}
	first, last := obs[0], obs[len(obs)-1]
	c := Changes{Index: index, Name: nameOr(index, last.Block), First: first.Day, Last: last.Day, Count: len(obs), Latest: last, Changes: []Change{}}
	add := func(kind string, sp db.IndexSpan, at int) {
		o := obs[at]
		if (from != 0 && o.Day < from) || (to != 0 && o.Day > to) {
			return
		}
		c.Changes = append(c.Changes, Change{Kind: kind, Code: sp.Code, Name: sp.Name, Day: o.Day, After: obs[at-1].Day, File: o.File, Observed: o})
	}
	for _, sp := range spans {
		if i, ok := pos[sp.First]; ok && i > 0 {
			add("in", sp, i)
		}
		if sp.Last != 0 {
			if i, ok := pos[sp.Last]; ok && i+1 < len(obs) {
				add("out", sp, i+1)
			}
		}
	}
	sortChanges(c.Changes)
	return c, nil
}

func (s *Service) observations(ctx context.Context, index market.Code) ([]db.IndexObserved, error) {
	obs, err := s.store.IndexObservations(ctx, index)
	if market.KindOf(err) == market.KindNotFound {
		all, aerr := s.store.IndexesObserved(ctx)
		if aerr != nil {
			return nil, aerr
		}
		if len(all) == 0 {
			return nil, market.Errorf(market.KindNotFound, "no index member list was recorded yet: they are recorded by each import of the terminal's block files (spblock.dat, infoharbor_block.dat, block_zs.dat)")
		}
		names := make([]string, len(all))
		for i, o := range all {
			names[i] = o.Index.String()
		}
		return nil, market.Errorf(market.KindNotFound, "no member list of %s was recorded; recorded: %s", index, strings.Join(names, ", "))
	}
	return obs, err
}

// Indices is the latest observation of every recorded index.
func (s *Service) Indices(ctx context.Context) ([]db.IndexObserved, error) {
	return s.store.IndexesObserved(ctx)
}

func nameOr(code market.Code, block string) string {
	if n := NameOf(code); n != "" {
		return n
	}
	return block
}

func sortChanges(cs []Change) {
	slices.SortFunc(cs, func(a, b Change) int {
		return cmp.Or(cmp.Compare(a.Day, b.Day), strings.Compare(a.Kind, b.Kind), strings.Compare(a.Code.String(), b.Code.String()))
	})
}
