package demo

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"mdqs/internal/market"
)

// conceptNames is the first n concept names: the curated list, then
// generated prefix+noun names, skipping any that collide with an industry
// (other than the deliberate collisions) or with each other.
func conceptNames(n int, industryNames map[string]bool) []conceptSpec {
	out := make([]conceptSpec, 0, n)
	seen := map[string]bool{}
	deliberate := map[string]bool{}
	for _, c := range collidingConcepts {
		deliberate[c] = true
	}
	add := func(c conceptSpec) {
		if len(out) < n && !seen[c.name] && (!industryNames[c.name] || deliberate[c.name]) {
			seen[c.name] = true
			out = append(out, c)
		}
	}
	for _, c := range conceptSpecs {
		add(c)
	}
	for _, p := range conceptPrefixes {
		for _, q := range conceptNouns {
			if p != q {
				add(conceptSpec{name: p + q})
			}
		}
	}
	return out
}

const maxConceptsPerStock = 8

// buildConcepts creates the concept boards: codes distinct from the
// industries', sizes falling with rank from about 7.5 % of the market to
// 10, and members drawn mostly from each concept's home industries, at
// most eight concepts per stock.
func (u *universe) buildConcepts(seed uint64, n int, inds []industrySpec) error {
	indNames := map[string]bool{}
	indIdx := map[string]int{}
	for i, spec := range inds {
		indNames[spec.name] = true
		indIdx[spec.name] = i
	}
	specs := conceptNames(n, indNames)
	if len(specs) < n {
		return market.Errorf(market.KindInvalid, "demo: only %d concept names available", len(specs))
	}
	for _, c := range specs {
		if indNames[c.name] {
			u.colliding = append(u.colliding, c.name)
		}
	}
	// Codes: free BK numbers from 0800, shuffled so that code order says
	// nothing about size.
	taken := map[int]bool{}
	for _, b := range u.industries {
		v, _ := strconv.Atoi(b.code[2:])
		taken[v] = true
	}
	var nums []int
	for v := 800; len(nums) < n; v++ {
		if !taken[v] {
			nums = append(nums, v)
		}
	}
	rs := newStream(hash2(seed, tagConcepts), 1)
	for i := len(nums) - 1; i > 0; i-- {
		j := rs.intn(i + 1)
		nums[i], nums[j] = nums[j], nums[i]
	}
	u.concepts = make([]board, n)
	for j, c := range specs {
		bs := newStream(hash3(seed, tagConcepts, uint64(nums[j])), 3)
		u.concepts[j] = board{code: fmt.Sprintf("BK%04d", nums[j]), name: c.name, kind: market.Concept,
			base: roundLevel(clampF(mul(1200, ratio(bs.norm(), 0.8)), 400, 8000))}
	}

	cIdx := map[string]int{}
	for j, c := range specs {
		cIdx[c.name] = j
	}
	count := make([]int, len(u.stocks))
	member := make([]map[int32]bool, n)
	for j := range member {
		member[j] = map[int32]bool{}
	}
	join := func(si int32, j int) bool {
		if count[si] >= maxConceptsPerStock || member[j][si] {
			return false
		}
		member[j][si] = true
		count[si]++
		return true
	}
	for _, w := range wellKnown {
		c, _ := market.ParseCode(w.code)
		si, ok := u.byCode[c]
		if !ok {
			continue
		}
		for _, name := range strings.Split(w.concepts, ",") {
			if j, ok := cIdx[name]; ok {
				join(si, j)
			}
		}
	}
	byInd := make([][]int32, len(inds))
	for si := range u.stocks {
		byInd[u.stocks[si].ind] = append(byInd[u.stocks[si].ind], int32(si))
	}
	recent := anchorDay.AddDays(-400)
	all := len(u.stocks)
	top := float64(all) * 0.075
	for j, c := range specs {
		target := int(math.Round(mul(top/(1+float64(j)/12), rs.between(0.8, 1.2))))
		target = max(min(10, all), min(target, all/3))
		var pool []int32
		if c.filter != "" {
			for si := range u.stocks {
				if eligible(&u.stocks[si], c.filter, recent) {
					pool = append(pool, int32(si))
				}
			}
			if len(pool) < min(10, all) {
				pool = nil // too few eligible stocks at this scale: ignore the filter
			} else {
				target = min(target, len(pool))
			}
		}
		var homes []int32
		for _, h := range strings.Split(c.homes, ",") {
			if i, ok := indIdx[h]; ok && h != "" {
				homes = append(homes, byInd[i]...)
			}
		}
		if pool == nil && len(homes) == 0 {
			for k := 0; k < 2; k++ {
				homes = append(homes, byInd[rs.intn(len(byInd))]...)
			}
		}
		for try := 0; len(member[j]) < target && try < 30*target; try++ {
			var si int32
			switch {
			case pool != nil:
				si = pool[rs.intn(len(pool))]
			case len(homes) > 0 && rs.unit() < 0.7:
				si = homes[rs.intn(len(homes))]
			default:
				si = int32(rs.intn(all))
			}
			join(si, j)
		}
	}
	for j := range u.concepts {
		ms := make([]int32, 0, len(member[j]))
		for si := range member[j] {
			ms = append(ms, si)
		}
		slices.Sort(ms)
		u.concepts[j].members = ms
		for _, si := range ms {
			u.stocks[si].concepts = append(u.stocks[si].concepts, int32(j))
		}
	}
	return nil
}

func eligible(s *stock, filter string, recent market.Day) bool {
	switch filter {
	case "SH", "SZ", "BJ":
		return string(s.code.Exchange) == filter
	case "300":
		return s.lb == boardChiNext
	case "688":
		return s.lb == boardSTAR
	case "ST":
		return s.st
	case "NEW":
		return s.listed >= recent
	}
	return true
}
