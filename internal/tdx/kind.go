package tdx

import "mdqs/internal/market"

// Kind names a terminal file format. The values are stable strings so a
// caller can store them next to a file's size and mtime for incremental
// imports.
type Kind string

const (
	KindDay  Kind = "day" // vipdoc/{sh,sz,bj}/lday/*.day
	KindLC1  Kind = "lc1" // vipdoc/*/minline/*.lc1, float prices
	KindLC5  Kind = "lc5" // vipdoc/*/fzline/*.lc5, float prices
	KindMin1 Kind = "1"   // vipdoc/*/minline/*.1, older integer prices
	KindMin5 Kind = "5"   // vipdoc/*/fzline/*.5, older integer prices

	KindBlockZS    Kind = "block_zs"   // T0002/hq_cache/block_zs.dat, index constituents
	KindBlockFG    Kind = "block_fg"   // block_fg.dat, style blocks
	KindBlockGN    Kind = "block_gn"   // block_gn.dat, concept blocks
	KindZS         Kind = "tdxzs"      // tdxzs.cfg, block codes
	KindZS2        Kind = "tdxzs2"     // tdxzs2.cfg, block codes of the older H/SW schemes
	KindZS3        Kind = "tdxzs3"     // tdxzs3.cfg, block codes incl. research industries
	KindHY         Kind = "tdxhy"      // tdxhy.cfg, security → industry codes
	KindBK         Kind = "tdxbk"      // tdxbk.cfg, short → full block names
	KindInfoHarbor Kind = "infoharbor" // infoharbor_block.dat, uncapped block members
	KindSPBlock    Kind = "spblock"    // T0002/hq_cache/spblock.dat, special blocks incl. index constituents, uncapped
	KindIncon      Kind = "incon"      // incon.dat, industry code → name
	KindTNF        Kind = "tnf"        // {sh,sz}m.tnf (314-byte) or {sh,sz,bj}s.tnf (360-byte) names
	KindGBBQ       Kind = "gbbq"       // T0002/hq_cache/gbbq, ex-rights and share-capital events
	KindBase       Kind = "base"       // T0002/hq_cache/base.dbf, capital and listing day per stock
	KindBlockNew   Kind = "blocknew"   // T0002/blocknew/blocknew.cfg, user block list
	KindBLK        Kind = "blk"        // T0002/blocknew/*.blk, user block members (ZXG = watchlist)
)

// IsBars reports the kinds holding 32-byte bar records.
func (k Kind) IsBars() bool {
	switch k {
	case KindDay, KindLC1, KindLC5, KindMin1, KindMin5:
		return true
	}
	return false
}

// Freq is the bar period of a bar kind, "" for the others.
func (k Kind) Freq() market.Freq {
	switch k {
	case KindDay:
		return market.Daily
	case KindLC1, KindMin1:
		return market.Min1
	case KindLC5, KindMin5:
		return market.Min5
	}
	return ""
}
