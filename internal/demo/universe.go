package demo

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"mdqs/internal/market"
)

// listBoard is the listing board, which sets the daily limit and the
// typical size, price and volatility of a stock.
type listBoard uint8

const (
	boardMain listBoard = iota
	boardChiNext
	boardSTAR
	boardBJ
)

func (b listBoard) letter() byte { return "MCSB"[b] }

// stock is one security of the universe with its model parameters.
type stock struct {
	code      market.Code
	name      string
	key       uint64 // seeds the stock's streams; a function of seed and code only
	lb        listBoard
	st        bool
	limit     int32   // daily limit, percent
	ind       int32   // industry index
	concepts  []int32 // concept indices, ascending
	listed    market.Day
	first     int   // first timeline index with a bar (set by New)
	last      int   // last timeline index listed (set by New)
	wk        bool  // a well-known stock, real name, no events
	life      *life // renames, warnings, suspensions, delisting; nil: none
	fs, total int64 // float and total shares
	fsF       float64
	base      int32 // cents: the close at the anchor, or the issue price when listed after it

	beta   float64 // loading on the market factor
	gamma  float64 // loading on the industry factor
	dc     float64 // loading on each concept factor (already divided by sqrt(#concepts))
	sigma  float64 // idiosyncratic daily volatility
	sigTot float64 // total daily volatility
	sigMin float64 // idiosyncratic one-minute volatility
	jumpP  float64 // daily probability of a news jump
	turn   float64 // typical daily turnover, percent of float
	pe     float64 // price at the anchor over eps (negative: a loss)
	net    float64 // net margin of 2026, percent of revenue (negative: a loss)
	eps    float64 // yuan per share per year (negative: a loss)
	bvps   float64 // book value per share

	ex          []exEvent // price events by day (exrights.go; set by New)
	shareEvents bool      // some of them change the share count
	baseIdx     int       // the timeline index whose close is base (set by New)
}

// board is an industry or concept board.
type board struct {
	code    string
	name    string
	kind    market.SectorKind
	members []int32 // stock indices, ascending, which is code order
	base    float64 // index level at the anchor close
}

type universe struct {
	stocks     []stock // sorted by code
	industries []board
	concepts   []board
	byCode     map[market.Code]int32
	styles     []string // company-name style per industry
	colliding  []string
}

func buildUniverse(cfg Config) (*universe, error) {
	seed := uint64(cfg.Seed)
	u := &universe{byCode: map[market.Code]int32{}}
	inds := industryList(cfg.Industries)
	indIdx := map[string]int32{}
	for i, spec := range inds {
		indIdx[spec.name] = int32(i)
	}
	wk, covered := pickWellKnown(cfg.Stocks, inds, indIdx)
	used := map[market.Code]bool{}
	for _, w := range wk {
		c, err := market.ParseCode(w.code)
		if err != nil {
			return nil, fmt.Errorf("demo: well-known code %q: %w", w.code, err)
		}
		used[c] = true
	}
	rs := newStream(hash2(seed, tagUniverse), 1)
	gens, err := generateCodes(&rs, cfg, cfg.Stocks-len(wk), used)
	if err != nil {
		return nil, err
	}
	gInd := assignIndustries(&rs, gens, inds, covered)

	usedNames := map[string]bool{}
	for _, w := range wk {
		c, _ := market.ParseCode(w.code)
		listed, _ := market.ParseDay(w.listed)
		s := stock{code: c, name: w.name, lb: boardOf(c), ind: indIdx[w.industry], listed: listed, wk: true,
			fs: int64(math.Round(w.float * 1e8)), total: int64(math.Round(w.total * 1e8)),
			base: roundCents(mul(w.price, 100)), pe: w.pe, net: w.net}
		usedNames[w.name] = true
		u.stocks = append(u.stocks, s)
	}
	for gi, g := range gens {
		spec := inds[gInd[gi]]
		ns := newStream(hash3(seed, tagStock, codeKey(g.code)), 1)
		st := g.lb == boardMain && !financial(spec.style) && ns.unit() < 0.025
		name := companyName(&ns, spec.style, usedNames)
		if st {
			if ns.unit() < 0.5 {
				name = "*ST" + name
			} else {
				name = "ST" + name
			}
		}
		usedNames[name] = true
		u.stocks = append(u.stocks, stock{code: g.code, name: name, lb: g.lb, st: st, ind: gInd[gi], listed: g.listed})
	}
	slices.SortFunc(u.stocks, func(a, b stock) int { return cmp.Compare(a.code.String(), b.code.String()) })
	for i := range u.stocks {
		s := &u.stocks[i]
		s.key = hash3(seed, tagStock, codeKey(s.code))
		u.byCode[s.code] = int32(i)
		setParams(s, inds[s.ind])
	}

	u.styles = make([]string, len(inds))
	for i, spec := range inds {
		u.styles[i] = spec.style
	}
	formerNames(u, seed)
	u.industries = industryBoards(seed, inds, u.stocks)
	if err := u.buildConcepts(seed, cfg.Concepts, inds); err != nil {
		return nil, err
	}
	for i := range u.stocks {
		s := &u.stocks[i]
		if n := len(s.concepts); n > 0 {
			ns := newStream(s.key, 7)
			s.dc = ns.between(0.35, 0.9) / math.Sqrt(float64(n))
		}
		s.sigTot = math.Sqrt(mul(mul(s.beta, s.beta), mktVol*mktVol) + mul(mul(s.gamma, s.gamma), indVol*indVol) +
			mul(mul(s.dc, s.dc), float64(len(s.concepts))*conVol*conVol) + mul(s.sigma, s.sigma))
	}
	return u, nil
}

func financial(style string) bool { return style == "bank" || style == "broker" || style == "insure" }

// pickWellKnown keeps the well-known stocks whose industry exists at this
// scale, as long as enough stocks remain to give every other industry a
// member. covered lists the industries they already fill.
func pickWellKnown(stocks int, inds []industrySpec, indIdx map[string]int32) (wk []wellKnownSpec, covered map[string]bool) {
	covered = map[string]bool{}
	for _, w := range wellKnown {
		if _, ok := indIdx[w.industry]; !ok {
			continue
		}
		uncovered := len(inds) - len(covered)
		if !covered[w.industry] {
			uncovered--
		}
		if len(wk)+1+uncovered <= stocks {
			wk = append(wk, w)
			covered[w.industry] = true
		}
	}
	return wk, covered
}

// assignIndustries gives every industry not yet covered one member, then
// draws the rest by industry size among the industries that list on each
// stock's board.
func assignIndustries(rs *stream, gens []genCode, inds []industrySpec, covered map[string]bool) []int32 {
	gInd := make([]int32, len(gens))
	for i := range gInd {
		gInd[i] = -1
	}
	order := rs.perm(len(gens))
	for ii, spec := range inds {
		if covered[spec.name] {
			continue
		}
		found := false
		for _, gi := range order {
			if gInd[gi] < 0 && strings.IndexByte(spec.boards, gens[gi].lb.letter()) >= 0 {
				gInd[gi], found = int32(ii), true
				break
			}
		}
		for _, gi := range order {
			if !found && gInd[gi] < 0 {
				gInd[gi], found = int32(ii), true // no stock of its boards is left
			}
		}
	}
	// Weights: an industry's size divided by the market share of the boards
	// it lists on, so that a main-board-only industry such as banking gets
	// its full size from the main boards.
	var reach [4]float64
	for _, bs := range boardShares {
		reach[bs.lb] += bs.share
	}
	var cum [4][]float64
	for b := range cum {
		cum[b] = make([]float64, len(inds))
		total := 0.0
		for ii, spec := range inds {
			if strings.IndexByte(spec.boards, listBoard(b).letter()) >= 0 {
				share := 0.0
				for _, l := range []byte(spec.boards) {
					share += reach[strings.IndexByte("MCSB", l)]
				}
				total += float64(spec.size) / share
			}
			cum[b][ii] = total
		}
	}
	for gi := range gens {
		if gInd[gi] >= 0 {
			continue
		}
		c := cum[gens[gi].lb]
		if c[len(c)-1] == 0 {
			gInd[gi] = 0 // no industry lists on this board at this scale
			continue
		}
		x := mul(rs.unit(), c[len(c)-1])
		ii, _ := slices.BinarySearch(c, x)
		for ii < len(c)-1 && c[ii] <= x {
			ii++
		}
		gInd[gi] = int32(ii)
	}
	return gInd
}

func boardOf(c market.Code) listBoard {
	switch {
	case c.Exchange == market.BJ:
		return boardBJ
	case strings.HasPrefix(c.Symbol, "688") || strings.HasPrefix(c.Symbol, "689"):
		return boardSTAR
	case strings.HasPrefix(c.Symbol, "30"):
		return boardChiNext
	}
	return boardMain
}

// industryList is the first n industry specs, repeating the list with the
// Ⅱ and Ⅲ suffixes past its end.
func industryList(n int) []industrySpec {
	out := make([]industrySpec, 0, n)
	for lvl := 0; len(out) < n; lvl++ {
		for _, spec := range industrySpecs {
			if len(out) == n {
				break
			}
			spec.name += industryLevels[lvl]
			if lvl > 0 {
				spec.size = max(3, spec.size/3)
			}
			out = append(out, spec)
		}
	}
	return out
}

// industryBoards builds the industry boards with their codes, members and
// base levels.
func industryBoards(seed uint64, inds []industrySpec, stocks []stock) []board {
	taken := map[int]bool{}
	for _, spec := range inds {
		if n := realIndustryCode(spec.name); n > 0 {
			taken[n] = true
		}
	}
	next := 420
	out := make([]board, len(inds))
	for i, spec := range inds {
		n := realIndustryCode(spec.name)
		if n == 0 {
			for taken[next] {
				next++
			}
			n = next
			taken[n] = true
		}
		bs := newStream(hash3(seed, tagUniverse, uint64(n)), 3)
		out[i] = board{code: fmt.Sprintf("BK%04d", n), name: spec.name, kind: market.Industry,
			base: roundLevel(clampF(mul(3000, ratio(bs.norm(), 1.2)), 600, 40000))}
	}
	for si := range stocks {
		b := &out[stocks[si].ind]
		b.members = append(b.members, int32(si))
	}
	return out
}

func roundLevel(x float64) float64 { return round2(x) }
