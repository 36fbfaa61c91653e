package tdx

import (
	"bytes"
	"fmt"
	"io"
	"iter"

	"mdqs/internal/market"
)

// ZSType is the block family of a tdxzs*.cfg line (tdx.md §5.2).
type ZSType int

const (
	ZSSubIndustry ZSType = 1  // TDX 细分行业, H-codes (tdxzs2.cfg)
	ZSIndustry    ZSType = 2  // TDX industry, T-codes
	ZSRegion      ZSType = 3  // region, key = region number
	ZSConcept     ZSType = 4  // concept, key = block_gn.dat name
	ZSStyle       ZSType = 5  // style, key = block_fg.dat name
	ZSSWIndustry  ZSType = 8  // 申万 industry, 6-digit keys (tdxzs2.cfg)
	ZSResearch    ZSType = 12 // research industry, X-codes (tdxzs3.cfg)
)

func (t ZSType) String() string {
	switch t {
	case ZSSubIndustry:
		return "sub_industry"
	case ZSIndustry:
		return "industry"
	case ZSRegion:
		return "region"
	case ZSConcept:
		return "concept"
	case ZSStyle:
		return "style"
	case ZSSWIndustry:
		return "sw_industry"
	case ZSResearch:
		return "research_industry"
	}
	return fmt.Sprintf("zs_type_%d", int(t))
}

// Hierarchical reports the types whose keys are letter codes with two
// digits per level (T01 → T0101 → T010101).
func (t ZSType) Hierarchical() bool {
	return t == ZSIndustry || t == ZSResearch || t == ZSSubIndustry
}

// ZSEntry is one line of tdxzs.cfg, tdxzs2.cfg or tdxzs3.cfg:
// name|code|type|flag|leaf|key.
type ZSEntry struct {
	Name string
	Code market.Code // 880xxx/881xxx; the block index's bars are vipdoc/sh/lday/sh<code>.day
	Type ZSType
	Flag int  // 1 or 2; meaning unknown
	Leaf bool // hierarchical types: no child blocks
	Key  string
}

// Parent is the key of the parent block of a hierarchical key ("T0101" →
// "T01"), or "" at the top level and for non-hierarchical types.
func (e ZSEntry) Parent() string {
	if !e.Type.Hierarchical() {
		return ""
	}
	return KeyParent(e.Key)
}

// KeyParent drops the last level of a T/X/H industry code: a letter then
// two digits per level ("T0101" → "T01"). Other keys have no parent.
func KeyParent(key string) string {
	if KeyLevel(key) < 2 {
		return ""
	}
	return key[:len(key)-2]
}

// KeyLevel is 1 for "T01", 2 for "T0101" and so on; 0 for keys that are
// not an ASCII letter followed by pairs of digits.
func KeyLevel(key string) int {
	if len(key) < 3 || (len(key)-1)%2 != 0 {
		return 0
	}
	if c := key[0] | 0x20; c < 'a' || c > 'z' {
		return 0
	}
	for i := 1; i < len(key); i++ {
		if key[i] < '0' || key[i] > '9' {
			return 0
		}
	}
	return (len(key) - 1) / 2
}

func parseZS(g gbkText, line []byte) (ZSEntry, string) {
	var buf [8][]byte
	f := splitFields(line, '|', buf[:0])
	if len(f) != 6 {
		return ZSEntry{}, fmt.Sprintf("want 6 |-separated fields, got %d", len(f))
	}
	code := bytes.TrimSpace(f[1])
	if !isSymbol(code) {
		return ZSEntry{}, fmt.Sprintf("block code %q is not six digits", code)
	}
	typ, ok1 := atoi(f[2])
	flag, ok2 := atoi(f[3])
	leaf, ok3 := atoi(f[4])
	if !ok1 || !ok2 || !ok3 || leaf > 1 {
		return ZSEntry{}, fmt.Sprintf("type/flag/leaf %q|%q|%q are not numbers (leaf 0 or 1)", f[2], f[3], f[4])
	}
	return ZSEntry{
		Name: g.string(bytes.TrimSpace(f[0])),
		Code: inferCode(code),
		Type: ZSType(typ),
		Flag: flag,
		Leaf: leaf == 1,
		Key:  g.string(bytes.TrimSpace(f[5])),
	}, ""
}

// ZSEntries streams a tdxzs*.cfg file; malformed lines are yielded as
// *FormatError and skipped.
func ZSEntries(r io.Reader) iter.Seq2[ZSEntry, error] { return parseLines(r, parseZS) }

// ReadZSCfg reads tdxzs.cfg, tdxzs2.cfg or tdxzs3.cfg: the good lines, and
// the malformed ones joined into the error. tdxzs2.cfg reuses 880 codes of
// tdxzs.cfg for other blocks, so do not merge the two by code.
func ReadZSCfg(path string) ([]ZSEntry, error) { return readLines(path, parseZS) }

// HYEntry is one line of tdxhy.cfg: a security and its industry codes.
// Either layout fills it: the newer market|code|T|||X, the older
// market|code|T|SW|H. Empty means none; "T00" and SW "0" are how the older
// layout writes "unclassified" and are kept as written.
type HYEntry struct {
	Code   market.Code
	TCode  string // TDX industry (tdxzs type 2 key)
	XCode  string // research industry (tdxzs3 type 12 key), newer layout
	SWCode string // 申万 industry (tdxzs2 type 8 key), older layout
	HCode  string // TDX 细分 industry (tdxzs2 type 1 key), older layout
}

func parseHY(_ gbkText, line []byte) (HYEntry, string) {
	var buf [8][]byte
	f := splitFields(line, '|', buf[:0])
	if len(f) < 3 {
		return HYEntry{}, fmt.Sprintf("want at least 3 |-separated fields, got %d", len(f))
	}
	m := bytes.TrimSpace(f[0])
	ex, ok := market.Exchange(""), len(m) == 1
	if ok {
		ex, ok = exchangeOfDigit(m[0])
	}
	if !ok {
		return HYEntry{}, fmt.Sprintf("market %q is not 0, 1 or 2", m)
	}
	code := bytes.TrimSpace(f[1])
	if !isSymbol(code) {
		return HYEntry{}, fmt.Sprintf("code %q is not six digits", code)
	}
	e := HYEntry{Code: market.Code{Symbol: string(code), Exchange: ex}, TCode: string(bytes.TrimSpace(f[2]))}
	// The later columns moved between layouts; their first character
	// tells the scheme (tdx.md §5.3).
	for _, v := range f[3:] {
		v = bytes.TrimSpace(v)
		switch {
		case len(v) == 0:
		case v[0] == 'X':
			e.XCode = string(v)
		case v[0] == 'H':
			e.HCode = string(v)
		case v[0] >= '0' && v[0] <= '9':
			e.SWCode = string(v)
		default:
			return HYEntry{}, fmt.Sprintf("industry code %q of an unknown scheme", v)
		}
	}
	return e, ""
}

// HYEntries streams a tdxhy.cfg file of either layout.
func HYEntries(r io.Reader) iter.Seq2[HYEntry, error] { return parseLines(r, parseHY) }

// ReadHYCfg reads a tdxhy.cfg file of either layout.
func ReadHYCfg(path string) ([]HYEntry, error) { return readLines(path, parseHY) }

// BKEntry is one line of tdxbk.cfg: a block name cut to 8 bytes in a
// block_*.dat file and its full name.
type BKEntry struct {
	Kind  Kind // KindBlockGN, KindBlockFG or KindBlockZS: the file the short name is in
	Short string
	Full  string
	Flag  int // 0 or 1; meaning unknown
}

func parseBK(g gbkText, line []byte) (BKEntry, string) {
	var buf [6][]byte
	f := splitFields(line, '|', buf[:0])
	if len(f) != 4 {
		return BKEntry{}, fmt.Sprintf("want 4 |-separated fields, got %d", len(f))
	}
	var k Kind
	switch string(bytes.TrimSpace(f[0])) {
	case "1":
		k = KindBlockGN
	case "2":
		k = KindBlockFG
	case "3":
		k = KindBlockZS
	default:
		return BKEntry{}, fmt.Sprintf("block file number %q is not 1, 2 or 3", f[0])
	}
	flag, ok := atoi(f[3])
	if !ok {
		return BKEntry{}, fmt.Sprintf("flag %q is not a number", f[3])
	}
	short, full := bytes.TrimSpace(f[1]), bytes.TrimSpace(f[2])
	if len(short) == 0 || len(full) == 0 {
		return BKEntry{}, "empty block name"
	}
	return BKEntry{Kind: k, Short: g.string(short), Full: g.string(full), Flag: flag}, ""
}

// BKEntries streams a tdxbk.cfg file.
func BKEntries(r io.Reader) iter.Seq2[BKEntry, error] { return parseLines(r, parseBK) }

// ReadBKCfg reads a tdxbk.cfg file.
func ReadBKCfg(path string) ([]BKEntry, error) { return readLines(path, parseBK) }
