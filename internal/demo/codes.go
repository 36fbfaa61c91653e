package demo

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"mdqs/internal/market"
)

// Stock codes: the exchanges' code blocks, how many stocks each board
// gets, and when each listed.

// codeRange is a block of exchange codes and the years its stocks listed.
type codeRange struct {
	lo, hi   int
	ex       market.Exchange
	lb       listBoard
	from, to market.Day
	share    float64 // of the board's generated stocks
}

// The exchanges' code blocks. Codes within a block are roughly in listing
// order, so a stock's listing day follows its position in the block.
var codeRanges = [...]codeRange{
	{600000, 600999, market.SH, boardMain, 19930104, 20071228, 0.50},
	{601000, 601999, market.SH, boardMain, 20060601, 20171229, 0.15},
	{603000, 603999, market.SH, boardMain, 20110104, 20240628, 0.28},
	{605000, 605599, market.SH, boardMain, 20200601, 20221230, 0.07},
	{1, 999, market.SZ, boardMain, 19910403, 20001229, 0.30},
	{1201, 1399, market.SZ, boardMain, 20210601, 20250630, 0.04},
	{2001, 2999, market.SZ, boardMain, 20040601, 20210630, 0.63},
	{3000, 3043, market.SZ, boardMain, 20201001, 20210430, 0.03},
	{300001, 300999, market.SZ, boardChiNext, 20091030, 20210630, 0.75},
	{301001, 301600, market.SZ, boardChiNext, 20200901, 20251231, 0.25},
	{688001, 688799, market.SH, boardSTAR, 20190722, 20251231, 1.00},
	{920000, 920999, market.BJ, boardBJ, 20211115, 20260331, 0.94},
	{830000, 839999, market.BJ, boardBJ, 20211115, 20231229, 0.04},
	{870000, 873999, market.BJ, boardBJ, 20211115, 20231229, 0.02},
}

// boardShares split the generated stocks over the boards (SH main, SZ
// main, ChiNext, STAR, Beijing) as the real market does.
var boardShares = [...]struct {
	ex    market.Exchange
	lb    listBoard
	share float64
}{
	{market.SH, boardMain, 0.32},
	{market.SZ, boardMain, 0.28},
	{market.SZ, boardChiNext, 0.25},
	{market.SH, boardSTAR, 0.105},
	{market.BJ, boardBJ, 0.045},
}

func symbolOf(n int) string {
	s := strconv.Itoa(n)
	return strings.Repeat("0", 6-len(s)) + s
}

// codeKey is a number unique to a code, for seeding.
func codeKey(c market.Code) uint64 {
	n, _ := strconv.ParseUint(c.Symbol, 10, 64)
	switch c.Exchange {
	case market.SZ:
		n += 1_000_000
	case market.BJ:
		n += 2_000_000
	}
	return n
}

type genCode struct {
	code   market.Code
	lb     listBoard
	listed market.Day
}

// generateCodes draws n codes spread over the boards like the real
// market's, spilling into other boards when one runs out of codes.
func generateCodes(rs *stream, cfg Config, n int, used map[market.Code]bool) ([]genCode, error) {
	var gens []genCode
	carry := 0
	take := func(ex market.Exchange, lb listBoard, want int) int {
		got := pickCodes(rs, cfg.Calendar, ex, lb, want, used)
		for _, c := range got {
			gens = append(gens, genCode{code: c.code, lb: lb, listed: c.listed})
		}
		return len(got)
	}
	for bi, bs := range boardShares {
		want := int(math.Round(float64(n)*bs.share)) + carry
		if bi == len(boardShares)-1 {
			want = n - len(gens)
		}
		carry = want - take(bs.ex, bs.lb, want)
	}
	for _, bs := range boardShares {
		if carry > 0 {
			carry -= take(bs.ex, bs.lb, carry)
		}
	}
	if carry > 0 {
		return nil, market.Errorf(market.KindInvalid, "demo: the code ranges hold fewer than %d stocks", cfg.Stocks)
	}
	return gens, nil
}

type pickedCode struct {
	code   market.Code
	listed market.Day
}

// pickCodes draws want unused codes of a board, spread over its code
// blocks by their shares and spilling into the next block when one is full.
func pickCodes(rs *stream, cal *market.Calendar, ex market.Exchange, lb listBoard, want int, used map[market.Code]bool) []pickedCode {
	var blocks []codeRange
	for _, r := range codeRanges {
		if r.ex == ex && r.lb == lb {
			blocks = append(blocks, r)
		}
	}
	var out []pickedCode
	carry := 0
	for pass := 0; pass < 2 && len(out) < want; pass++ {
		for bi, r := range blocks {
			need := carry
			if pass == 0 {
				need += int(math.Round(float64(want) * r.share))
				if bi == len(blocks)-1 {
					need = want - len(out)
				}
			} else {
				need = want - len(out)
			}
			var free []int
			for n := r.lo; n <= r.hi; n++ {
				if c := (market.Code{Symbol: symbolOf(n), Exchange: ex}); !used[c] {
					free = append(free, n)
				}
			}
			take := min(need, len(free))
			carry = need - take
			// A partial Fisher-Yates shuffle picks take codes uniformly.
			for i := 0; i < take; i++ {
				j := i + rs.intn(len(free)-i)
				free[i], free[j] = free[j], free[i]
			}
			picked := free[:take]
			slices.Sort(picked)
			for _, n := range picked {
				c := market.Code{Symbol: symbolOf(n), Exchange: ex}
				used[c] = true
				out = append(out, pickedCode{code: c, listed: listingDay(rs, cal, r, n)})
			}
			if len(out) >= want {
				break
			}
		}
	}
	return out
}

// listingDay places a code in its block's listing years by its position
// in the block, give or take a few weeks.
func listingDay(rs *stream, cal *market.Calendar, r codeRange, n int) market.Day {
	span := r.to.Start().Sub(r.from.Start()).Hours() / 24
	pos := float64(n-r.lo) / float64(max(1, r.hi-r.lo))
	off := int(mul(pos, span)) + rs.intn(41) - 20
	off = max(0, min(int(span), off))
	return cal.Next(r.from.AddDays(off - 1)) // a trading day
}

// perm is a permutation of 0..n-1.
func (s *stream) perm(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	for i := n - 1; i > 0; i-- {
		j := s.intn(i + 1)
		p[i], p[j] = p[j], p[i]
	}
	return p
}
