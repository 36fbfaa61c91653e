package bridge

import (
	"slices"
	"strings"

	"mdqs/db"
	"mdqs/internal/market"
	"mdqs/internal/tdx"
)

// Block kinds as the API names them.
const (
	KindIndustry = "industry" // the terminal's own industry scheme (T-codes)
	KindResearch = "research" // its research industry scheme (X-codes, newer installs)
	KindConcept  = "concept"
	KindStyle    = "style"
	KindIndex    = "index"
	KindUser     = "user"
)

// BlockKinds lists the kinds in display order.
func BlockKinds() []string {
	return []string{KindIndustry, KindResearch, KindConcept, KindStyle, KindIndex, KindUser}
}

// readBlocks assembles every block the terminal's files describe:
//   - industries from tdxzs*.cfg (type 2 T-codes, type 12 X-codes) with
//     members from tdxhy.cfg; a stock in a leaf industry belongs to its
//     ancestors too;
//   - concepts, styles and index constituents from infoharbor_block.dat
//     where present (uncapped), else block_gn/fg/zs.dat (capped at 400
//     members: such blocks are flagged truncated), with full names from
//     tdxbk.cfg and block codes from tdxzs*.cfg;
//   - user blocks from blocknew.cfg and their .blk files (ZXG = 自选股).
//
// It returns what it could read and the problems of the files it could not.
func readBlocks(t *tdx.Terminal) ([]db.Block, []error) {
	var out []db.Block
	var errs []error
	read := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	var zs []tdx.ZSEntry
	for _, k := range []tdx.Kind{tdx.KindZS3, tdx.KindZS} { // tdxzs3 supersedes tdxzs
		if f, ok := t.First(k); ok {
			list, err := tdx.ReadZSCfg(f.Path)
			read(err)
			zs = list
			break
		}
	}
	var hy []tdx.HYEntry
	if f, ok := t.First(tdx.KindHY); ok {
		list, err := tdx.ReadHYCfg(f.Path)
		read(err)
		hy = list
	}
	out = append(out, industries(zs, hy, tdx.ZSIndustry, KindIndustry, func(e tdx.HYEntry) string { return e.TCode })...)
	out = append(out, industries(zs, hy, tdx.ZSResearch, KindResearch, func(e tdx.HYEntry) string { return e.XCode })...)

	fullNames := map[tdx.Kind]map[string]string{}
	if f, ok := t.First(tdx.KindBK); ok {
		list, err := tdx.ReadBKCfg(f.Path)
		read(err)
		for _, e := range list {
			if fullNames[e.Kind] == nil {
				fullNames[e.Kind] = map[string]string{}
			}
			fullNames[e.Kind][e.Short] = e.Full
		}
	}
	codeOf := map[tdx.ZSType]map[string]string{}
	for _, e := range zs {
		if codeOf[e.Type] == nil {
			codeOf[e.Type] = map[string]string{}
		}
		codeOf[e.Type][e.Key] = e.Code.String()
	}
	var harbor []tdx.HarborBlock
	if f, ok := t.First(tdx.KindInfoHarbor); ok {
		list, err := tdx.ReadInfoHarbor(f.Path)
		read(err)
		harbor = list
	}
	for _, fam := range []struct {
		kind   string
		file   tdx.Kind
		harbor string
		zsType tdx.ZSType
	}{
		{KindConcept, tdx.KindBlockGN, "GN", tdx.ZSConcept},
		{KindStyle, tdx.KindBlockFG, "FG", tdx.ZSStyle},
		{KindIndex, tdx.KindBlockZS, "ZS", 0},
	} {
		var blocks []db.Block
		for _, h := range harbor {
			if h.Kind == fam.harbor {
				b := db.Block{Kind: fam.kind, Name: h.Name, FullName: h.Name, Members: h.Members}
				if !h.Code.IsZero() {
					b.Code = h.Code.String()
				}
				blocks = append(blocks, b)
			}
		}
		if len(blocks) == 0 {
			if f, ok := t.First(fam.file); ok {
				list, err := tdx.ReadBlockDat(f.Path)
				read(err)
				for _, blk := range list {
					full := blk.Name
					if n, ok := fullNames[fam.file][blk.Name]; ok {
						full = n
					}
					code := codeOf[fam.zsType][blk.Name]
					if code == "" {
						code = codeOf[fam.zsType][full]
					}
					blocks = append(blocks, db.Block{Kind: fam.kind, Name: blk.Name, FullName: full, Code: code,
						Members: blk.Codes, Truncated: blk.Truncated})
				}
			}
		}
		out = append(out, blocks...)
	}
	users, err := t.UserBlocks()
	read(err)
	for _, u := range users {
		out = append(out, db.Block{Kind: KindUser, Name: u.Name, FullName: u.Name, Members: u.Codes})
	}
	return dedupe(out), errs
}

// industries builds one hierarchical scheme's blocks.
func industries(zs []tdx.ZSEntry, hy []tdx.HYEntry, typ tdx.ZSType, kind string, key func(tdx.HYEntry) string) []db.Block {
	byKey := map[string]*db.Block{}
	var order []string
	for _, e := range zs {
		if e.Type != typ || e.Key == "" {
			continue
		}
		b := &db.Block{Kind: kind, Name: e.Name, FullName: e.Name, Code: e.Code.String()}
		byKey[e.Key] = b
		order = append(order, e.Key)
	}
	for _, k := range order {
		if p := tdx.KeyParent(k); p != "" {
			if parent, ok := byKey[p]; ok {
				byKey[k].Parent = parent.Name
			}
		}
	}
	for _, e := range hy {
		for k := key(e); k != ""; k = tdx.KeyParent(k) {
			if b, ok := byKey[k]; ok {
				b.Members = append(b.Members, e.Code)
			}
		}
	}
	out := make([]db.Block, 0, len(order))
	for _, k := range order {
		out = append(out, *byKey[k])
	}
	return out
}

// dedupe keeps the first block of each (kind, name) with its members
// merged and sorted: the store keys blocks that way.
func dedupe(blocks []db.Block) []db.Block {
	seen := map[string]int{}
	var out []db.Block
	for _, b := range blocks {
		k := b.Kind + "\x00" + b.Name
		if i, ok := seen[k]; ok {
			out[i].Members = append(out[i].Members, b.Members...)
			continue
		}
		seen[k] = len(out)
		out = append(out, b)
	}
	for i := range out {
		slices.SortFunc(out[i].Members, func(a, b market.Code) int { return strings.Compare(a.String(), b.String()) })
		out[i].Members = slices.Compact(out[i].Members)
	}
	return out
}
