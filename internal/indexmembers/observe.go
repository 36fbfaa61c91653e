package indexmembers

import (
	"fmt"
	"slices"

	"mdqs/db"
	"mdqs/internal/market"
	"mdqs/internal/tdx"
)

// The files index members come from, in the order they win: spblock.dat
// (real files seen, market given, no cap), infoharbor_block.dat (market
// given, no cap, but its layout is known from third-party parsers only),
// block_zs.dat (no market, and capped: a list of 400 may be cut and an
// index larger than that is written empty).
const (
	FileSPBlock    = "spblock.dat"
	FileInfoHarbor = "infoharbor_block.dat"
	FileBlockZS    = "block_zs.dat"
	FileDemo       = "demo market"
)

// Disagreement is a lower-ranked file whose list of an index differs from
// the list taken.
type Disagreement struct {
	Index   market.Code
	File    string // the file not taken
	Path    string
	Members int
	Taken   string // the file taken
	TakenN  int
}

func (d Disagreement) String() string {
	return fmt.Sprintf("%s (%s): %d members here, %d in %s, which is taken", NameOf(d.Index), d.Index, d.Members, d.TakenN, d.Taken)
}

// Observed is what a terminal folder says of index membership: one list
// per index, from the best file that lists it, each with the path it came
// from.
type Observed struct {
	Lists        []db.IndexObservation
	Paths        []string // Lists[i] came from Paths[i]
	Disagree     []Disagreement
	Problems     []error
	ZSLeftOut    []string // block_zs.dat blocks of known indices left out: empty or at the cap
	ZSLeftOutWhy []string
}

// candidate is one file's list of one index.
type candidate struct {
	rank    int
	file    string
	path    string
	block   string
	capped  bool
	day     market.Day
	members []market.Code
}

// Observe reads the terminal's index lists. Each list is dated by its
// file's modification day in Shanghai (the day the terminal wrote it), or
// today when that is later than today or when sameDay is set (the demo
// terminal, whose folder is written for the clock's day). source is the
// store's source (tdx, demo).
func Observe(t *tdx.Terminal, source string, today market.Day, sameDay bool) Observed {
	var out Observed
	byIndex := map[market.Code][]candidate{}
	dayOf := func(f tdx.File) market.Day {
		d := market.DayOf(f.ModTime)
		if sameDay || d > today {
			d = today
		}
		return d
	}
	add := func(c candidate, name string) {
		code, ok := CodeOf(name)
		if !ok {
			return
		}
		byIndex[code] = append(byIndex[code], c)
	}
	if f, ok := t.First(tdx.KindSPBlock); ok {
		list, err := tdx.ReadSPBlock(f.Path)
		if err != nil {
			out.Problems = append(out.Problems, err)
		}
		for _, b := range list {
			add(candidate{rank: 0, file: FileSPBlock, path: f.Path, block: b.Name, day: dayOf(f), members: b.Members}, b.Name)
		}
	}
	if f, ok := t.First(tdx.KindInfoHarbor); ok {
		list, err := tdx.ReadInfoHarbor(f.Path)
		if err != nil {
			out.Problems = append(out.Problems, err)
		}
		for _, b := range list {
			if b.Kind == "ZS" {
				add(candidate{rank: 1, file: FileInfoHarbor, path: f.Path, block: b.Name, day: dayOf(f), members: b.Members}, b.Name)
			}
		}
	}
	if f, ok := t.First(tdx.KindBlockZS); ok {
		full := map[string]string{}
		if bk, ok := t.First(tdx.KindBK); ok {
			list, err := tdx.ReadBKCfg(bk.Path)
			if err != nil {
				out.Problems = append(out.Problems, err)
			}
			for _, e := range list {
				if e.Kind == tdx.KindBlockZS {
					full[e.Short] = e.Full
				}
			}
		}
		list, err := tdx.ReadBlockDat(f.Path)
		if err != nil {
			out.Problems = append(out.Problems, err)
		}
		for _, b := range list {
			name := b.Name
			if n, ok := full[name]; ok {
				name = n
			}
			if _, ok := CodeOf(name); !ok {
				continue
			}
			// The cap: a list of 400 may be cut; a larger index is written
			// with no member at all (中证500/800/1000 in the 2022 file).
			if b.Truncated || len(b.Codes) == 0 {
				why := "empty"
				if b.Truncated {
					why = fmt.Sprintf("at the %d-member cap", tdx.MaxBlockMembers)
				}
				out.ZSLeftOut = append(out.ZSLeftOut, name)
				out.ZSLeftOutWhy = append(out.ZSLeftOutWhy, why)
				continue
			}
			add(candidate{rank: 2, file: FileBlockZS, path: f.Path, block: b.Name, capped: true, day: dayOf(f), members: b.Codes}, name)
		}
	}
	codes := make([]market.Code, 0, len(byIndex))
	for c := range byIndex {
		codes = append(codes, c)
	}
	slices.SortFunc(codes, func(a, b market.Code) int { return compareCode(a, b) })
	for _, code := range codes {
		cs := byIndex[code]
		slices.SortStableFunc(cs, func(a, b candidate) int { return a.rank - b.rank })
		win := cs[0]
		for _, c := range cs[1:] {
			if !sameSet(c.members, win.members) {
				out.Disagree = append(out.Disagree, Disagreement{Index: code, File: c.file, Path: c.path, Members: len(c.members), Taken: win.file, TakenN: len(win.members)})
			}
		}
		out.Lists = append(out.Lists, db.IndexObservation{Index: code, Day: win.day, Source: source, File: win.file, Block: win.block,
			Capped: win.capped, Members: win.members})
		out.Paths = append(out.Paths, win.path)
	}
	return out
}

func compareCode(a, b market.Code) int {
	switch x, y := a.String(), b.String(); {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

func sameSet(a, b []market.Code) bool {
	if len(a) != len(b) {
		return false
	}
	in := make(map[market.Code]bool, len(a))
	for _, c := range a {
		in[c] = true
	}
	for _, c := range b {
		if !in[c] {
			return false
		}
	}
	return true
}
