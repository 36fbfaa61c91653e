package tdx

// T0002/hq_cache/gbbq, the terminal's 股本变迁 table: ex-rights/ex-dividend
// events and share-count changes (adjust.md §1–3).

import (
	"bytes"
	"cmp"
	_ "embed"
	"encoding/binary"
	"errors"
	"io"
	"iter"
	"math"
	"slices"
	"strconv"
	"sync"

	"mdqs/internal/market"
)

// gbbq layout (adjust.md §1.1): a uint32 record count, then 29-byte records.
// Bytes 0–23 of a record are three 8-byte blocks, each encrypted on its own
// with the fixed table below; bytes 24–28 are plain.
const (
	gbbqHeaderSize = 4
	// GBBQRecordSize is the size of one gbbq record.
	GBBQRecordSize = 29
	gbbqCipherSize = 24
)

// gbbqKeyTable is the published 4,176-byte schedule (adjust.md §2.2): P[18]
// and S[4][256] as little-endian words, then 8 unused bytes. It is kept as
// the bytes that are published, so that its sha256 can be checked against
// the three public copies (gbbq_test.go), rather than as a Go literal that
// nobody could compare by eye. Source: jing2uo/tdx2db tdx/gbbq_var.go
// (HexKeys, MIT) at 2597d60c0657c0e827b0e411b30f4e0c438e6d63; rainx/pytdx and
// injoyai/tdx carry the same bytes.
//
//go:embed gbbq.key
var gbbqKeyTable []byte

// gbbqKey is the table as words: the 18 round keys and four S-boxes of a
// Blowfish-shaped Feistel cipher. Unlike Blowfish the words are little-endian
// and the schedule is given ready-made, not derived from a key.
type gbbqKey struct {
	p [18]uint32
	s [4][256]uint32
}

var loadGBBQKey = sync.OnceValue(func() *gbbqKey {
	k := new(gbbqKey)
	le := binary.LittleEndian
	for i := range k.p {
		k.p[i] = le.Uint32(gbbqKeyTable[4*i:])
	}
	for j := range k.s {
		for i := range k.s[j] {
			k.s[j][i] = le.Uint32(gbbqKeyTable[0x48+0x400*j+4*i:])
		}
	}
	return k
})

func (k *gbbqKey) f(x uint32) uint32 {
	return ((k.s[0][x>>24] + k.s[1][x>>16&0xff]) ^ k.s[2][x>>8&0xff]) + k.s[3][x&0xff]
}

// decrypt deciphers one 8-byte block in place (adjust.md §2.1).
func (k *gbbqKey) decrypt(b []byte) {
	le := binary.LittleEndian
	l, r := le.Uint32(b)^k.p[17], le.Uint32(b[4:])
	for i := 16; i >= 1; i-- {
		l, r = r^k.f(l)^k.p[i], l
	}
	le.PutUint32(b, r^k.p[0])
	le.PutUint32(b[4:], l)
}

// encrypt is the inverse of decrypt, for the writer.
func (k *gbbqKey) encrypt(b []byte) {
	le := binary.LittleEndian
	l, r := le.Uint32(b[4:]), le.Uint32(b)^k.p[0]
	for i := 1; i <= 16; i++ {
		l, r = r, l^k.f(r)^k.p[i]
	}
	le.PutUint32(b, l^k.p[17])
	le.PutUint32(b[4:], r)
}

// GBBQCategory is a gbbq record's kind (adjust.md §3). Only Dividend
// (除权除息) moves prices.
type GBBQCategory uint8

const (
	Dividend           GBBQCategory = 1  // 除权除息: F = cash per 10, rights price, bonus per 10, rights per 10
	BonusListing       GBBQCategory = 2  // 送配股上市: share counts
	LockedListing      GBBQCategory = 3  // 非流通股上市: share counts
	UnknownChange      GBBQCategory = 4  // 未知股本变动
	ShareChange        GBBQCategory = 5  // 股本变化 (also a stock's listing record): share counts
	Placement          GBBQCategory = 6  // 增发新股: F2 issue price, F3 shares issued
	Buyback            GBBQCategory = 7  // 股份回购: share counts
	PlacementListing   GBBQCategory = 8  // 增发新股上市: share counts
	RightsListing      GBBQCategory = 9  // 转配股上市: share counts
	ConvertibleListing GBBQCategory = 10 // 可转债上市: share counts
	Split              GBBQCategory = 11 // 扩缩股 (ETF unit split/consolidation): F3 ratio
	LockedShrink       GBBQCategory = 12 // 非流通股缩股: F3 ratio
	CallWarrants       GBBQCategory = 13 // 送认购权证: F1 strike, F3 warrants per 10
	PutWarrants        GBBQCategory = 14 // 送认沽权证: F1 strike, F3 warrants per 10
	maxKnownCategory   GBBQCategory = PutWarrants
)

var gbbqCategoryNames = [...]string{
	Dividend: "除权除息", BonusListing: "送配股上市", LockedListing: "非流通股上市",
	UnknownChange: "未知股本变动", ShareChange: "股本变化", Placement: "增发新股",
	Buyback: "股份回购", PlacementListing: "增发新股上市", RightsListing: "转配股上市",
	ConvertibleListing: "可转债上市", Split: "扩缩股", LockedShrink: "非流通股缩股",
	CallWarrants: "送认购权证", PutWarrants: "送认沽权证",
}

// String is the category's Chinese name as the terminal and pytdx give it,
// or its number for a category this package does not know.
func (c GBBQCategory) String() string {
	if c >= 1 && c <= maxKnownCategory {
		return gbbqCategoryNames[c]
	}
	return "category " + strconv.Itoa(int(c))
}

// Fields names the four values of a record of this category, in the order
// of GBBQEvent.F ("" for a value the category does not use).
func (c GBBQCategory) Fields() [4]string {
	switch c {
	case Dividend:
		return [4]string{"cash_per_10", "rights_price", "bonus_per_10", "rights_per_10"}
	case BonusListing, LockedListing, ShareChange, Buyback, PlacementListing, RightsListing, ConvertibleListing:
		return [4]string{"float_before", "total_before", "float_after", "total_after"}
	case Placement:
		return [4]string{"", "issue_price", "shares_issued", ""}
	case Split, LockedShrink:
		return [4]string{"", "", "ratio", ""}
	case CallWarrants, PutWarrants:
		return [4]string{"strike", "", "warrants_per_10", ""}
	}
	return [4]string{}
}

// GBBQEvent is one decrypted gbbq record. F holds the four values the
// record stores as float32, each as its shortest decimal (Decimal32): 1.58
// per 10, which the file holds as 1.58000004, and 2.20128, never rounded to
// the cent (adjust.md §1.2). What they mean depends on Category (Fields,
// XDXR, Shares). A value written back (AppendGBBQRecord) is the same
// float32.
type GBBQEvent struct {
	Code     market.Code
	Day      market.Day // the ex-date, or the day of the share change
	Category GBBQCategory
	F        [4]float64
}

// XDXR is a 除权除息 record's values.
type XDXR struct {
	CashPer10   float64 // 分红: cash dividend, yuan per 10 shares
	RightsPrice float64 // 配股价: rights issue price, yuan per share
	BonusPer10  float64 // 送转股: bonus and transferred shares per 10
	RightsPer10 float64 // 配股: rights shares offered per 10
}

// XDXR returns the values of a Dividend record; ok is false for any other
// category.
func (e GBBQEvent) XDXR() (x XDXR, ok bool) {
	if e.Category != Dividend {
		return XDXR{}, false
	}
	return XDXR{e.F[0], e.F[1], e.F[2], e.F[3]}, true
}

// ShareCounts are the share capital before and after a change, in units of
// 10,000 shares (万股).
type ShareCounts struct {
	FloatBefore, TotalBefore, FloatAfter, TotalAfter float64
}

// Shares returns the share counts of a record whose category carries them
// (2, 3, 5, 7, 8, 9, 10); ok is false for the others.
func (e GBBQEvent) Shares() (s ShareCounts, ok bool) {
	if e.Category.Fields()[0] != "float_before" {
		return ShareCounts{}, false
	}
	return ShareCounts{e.F[0], e.F[1], e.F[2], e.F[3]}, true
}

// ListingDay is the day of code's listing record, when events (a gbbq's
// records, any order) hold one: the day its tradable (float) shares first
// go from none to some. Of the code's share-count records (Shares) up to
// the first whose float before is not zero, that is the last with float
// before zero and float after above zero. The rule is inferred from the
// data (adjust.md §3; the 2020 terminal file, 4,689 codes): 300750's
// 2018-06-11 and 000001's 1991-04-03 start from nothing (0, 0 → float,
// total), but a listing with shares held before it keeps them as total
// before (601318 2007-03-01: 0, 619505.3 → 57500, 734505.3; 626 codes of
// that file); a record of shares issued but not yet tradable often comes
// some days earlier (002115's issue 2007-01-24: 0, 0 → 0, 8000, listed
// 2007-02-15), and one of shares tradable elsewhere (601336's H shares,
// 2011-12-15; 688981's 2020-06-30) comes before the A-share listing; the
// old exchanges' first listings are category 2 (600601's 1990-12-19). Many
// older stocks (600519, 000651) have no such record: ok is false, and a
// listing day must come from elsewhere (the terminal's base.dbf, a
// listing source), never from the first bar of a .day file that may
// start later. Back-adjusted prices (后复权) are anchored there.
func ListingDay(events []GBBQEvent, code market.Code) (day market.Day, ok bool) {
	var own []GBBQEvent
	for _, e := range events {
		if _, shares := e.Shares(); shares && e.Code == code {
			own = append(own, e)
		}
	}
	slices.SortStableFunc(own, func(a, b GBBQEvent) int { return cmp.Compare(a.Day, b.Day) })
	for _, e := range own {
		if e.F[0] != 0 {
			break
		}
		if e.F[2] > 0 {
			day, ok = e.Day, true
		}
	}
	return day, ok
}

// maxGBBQRecords bounds the header's count. Real files hold 100k–200k
// records (adjust.md §1.4); ten times that is still a 60 MB file, and a
// larger count is a foreign file, not a gbbq.
const maxGBBQRecords = 2_000_000

func gbbqCount(head []byte) (int, error) {
	n := binary.LittleEndian.Uint32(head)
	if n > maxGBBQRecords {
		return 0, formatErr(0, "record count %d exceeds %d: not a gbbq file", n, maxGBBQRecords)
	}
	return int(n), nil
}

// gbbqSize checks the file size against the header's count: a gbbq is
// exactly 4 + 29·count bytes, and any other size is a different file or one
// being replaced, none of whose records can be trusted.
func gbbqSize(data []byte) (int, error) {
	if len(data) < gbbqHeaderSize {
		return 0, formatErr(0, "file of %d bytes is shorter than the %d-byte header", len(data), gbbqHeaderSize)
	}
	n, err := gbbqCount(data)
	if err != nil {
		return 0, err
	}
	if want := gbbqHeaderSize + n*GBBQRecordSize; len(data) != want {
		return 0, formatErr(0, "size %d does not match the header's %d records (want %d bytes)", len(data), n, want)
	}
	return n, nil
}

// GBBQ streams the records of a gbbq file. A record that cannot be real
// (a market other than 0 SZ, 1 SH, 2 BJ; a code that is not six digits and a
// NUL; an impossible date; category 0; a value that is negative, NaN or
// infinite; a Dividend whose shares per 10 would make the price divisor
// 10 + bonus + rights zero or less) is yielded as a *FormatError and decoding
// goes on, since records are fixed-size and encrypted one by one. Unknown
// categories above 14 are yielded with their raw values. A header count
// over 2,000,000, a file that ends before the header's count or has bytes
// after it yields a *FormatError that ends the sequence; ReadGBBQ checks the
// size first and returns no records for such a file.
//
// Records come in file order: one contiguous run per code, ascending dates
// within it, runs not in code order. Dates may lie after the file's own date
// (announced ex-dates) and before a stock's listing.
func GBBQ(r io.Reader) iter.Seq2[GBBQEvent, error] {
	return func(yield func(GBBQEvent, error) bool) {
		var head [gbbqHeaderSize]byte
		if n, err := io.ReadFull(r, head[:]); err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
				err = formatErr(0, "file of %d bytes is shorter than the %d-byte header", n, gbbqHeaderSize)
			}
			yield(GBBQEvent{}, err)
			return
		}
		count, err := gbbqCount(head[:])
		if err != nil {
			yield(GBBQEvent{}, err)
			return
		}
		key := loadGBBQKey()
		i := 0
		stopped, err := eachRecord(r, GBBQRecordSize, func(off int64, b []byte) bool {
			off += gbbqHeaderSize
			if i == count {
				yield(GBBQEvent{}, formatErr(off, "data after the header's %d records", count))
				return false
			}
			i++
			e, why := decodeGBBQRecord(key, b)
			if why != "" {
				return yield(GBBQEvent{}, formatErr(off, "%s", why))
			}
			return yield(e, nil)
		})
		switch {
		case stopped:
		case err != nil:
			var pe *PartialRecordError
			if errors.As(err, &pe) {
				if i == count {
					err = formatErr(pe.Offset+gbbqHeaderSize, "data after the header's %d records", count)
				} else {
					err = formatErr(pe.Offset+gbbqHeaderSize, "file ends %d bytes into record %d of the header's %d", pe.Len, i, count)
				}
			}
			yield(GBBQEvent{}, err)
		case i < count:
			yield(GBBQEvent{}, formatErr(gbbqHeaderSize+int64(i)*GBBQRecordSize,
				"file ends after %d of the header's %d records", i, count))
		}
	}
}

// decodeGBBQRecord decrypts rec in a copy and returns the event, or why it
// cannot be one.
func decodeGBBQRecord(key *gbbqKey, rec []byte) (GBBQEvent, string) {
	var b [GBBQRecordSize]byte
	copy(b[:], rec)
	for i := 0; i < gbbqCipherSize; i += 8 {
		key.decrypt(b[i : i+8])
	}
	le := binary.LittleEndian
	ex, ok := exchangeOfDigit('0' + min(b[0], 9))
	if !ok {
		return GBBQEvent{}, "market " + strconv.Itoa(int(b[0])) + " is not 0 (SZ), 1 (SH) or 2 (BJ)"
	}
	if !isSymbol(b[1:7]) || b[7] != 0 {
		return GBBQEvent{}, "code " + strconv.Quote(string(b[1:8])) + " is not six digits and a NUL"
	}
	date := le.Uint32(b[8:])
	day, ok := dayOf(date)
	if !ok {
		return GBBQEvent{}, "invalid date " + strconv.FormatUint(uint64(date), 10)
	}
	e := GBBQEvent{
		Code:     market.Code{Symbol: string(b[1:7]), Exchange: ex},
		Day:      day,
		Category: GBBQCategory(b[12]),
	}
	if e.Category == 0 {
		return GBBQEvent{}, "category 0"
	}
	for i := range e.F {
		v := math.Float32frombits(le.Uint32(b[13+4*i:]))
		if !(v >= 0) || math.IsInf(float64(v), 0) {
			return GBBQEvent{}, "value " + strconv.Itoa(i+1) + " is " + strconv.FormatFloat(float64(v), 'g', -1, 32)
		}
		e.F[i] = Decimal32(v)
	}
	// NaN, infinities and negatives are gone, and float64 cannot overflow
	// adding two float32s: every dividend record leaves a price divisor
	// 10 + bonus + rights above zero.
	return e, ""
}

// ReadGBBQ reads a gbbq file. A size that contradicts the header returns
// only a *FormatError. Records that fail to decode are left out and their
// *FormatErrors joined into the error, next to the good records.
func ReadGBBQ(path string) ([]GBBQEvent, error) {
	data, err := readShared(path)
	if err != nil {
		return nil, err
	}
	n, err := gbbqSize(data)
	if err != nil {
		return nil, named(err, path)
	}
	out := make([]GBBQEvent, 0, n)
	var errs errorList
	for e, err := range GBBQ(bytes.NewReader(data)) {
		if err != nil {
			errs.add(named(err, path))
			continue
		}
		out = append(out, e)
	}
	return out, errs.err()
}

// AppendGBBQRecord appends the 29 stored (encrypted) bytes of e. It writes
// any values, including invalid ones, so tests can build corrupt files; a
// code of other than six bytes is cut or NUL-padded, an exchange other than
// SZ, SH or BJ is written as market 9.
func AppendGBBQRecord(b []byte, e GBBQEvent) []byte {
	var rec [GBBQRecordSize]byte
	rec[0] = 9
	if d, ok := digitOfExchange(e.Code.Exchange); ok {
		rec[0] = d - '0'
	}
	copy(rec[1:7], e.Code.Symbol)
	le := binary.LittleEndian
	le.PutUint32(rec[8:], uint32(e.Day))
	rec[12] = byte(e.Category)
	for i, v := range e.F {
		le.PutUint32(rec[13+4*i:], math.Float32bits(float32(v)))
	}
	key := loadGBBQKey()
	for i := 0; i < gbbqCipherSize; i += 8 {
		key.encrypt(rec[i : i+8])
	}
	return append(b, rec[:]...)
}

// WriteGBBQ writes events as a gbbq file: the count, then each record.
func WriteGBBQ(w io.Writer, events []GBBQEvent) error {
	b := binary.LittleEndian.AppendUint32(make([]byte, 0, gbbqHeaderSize+len(events)*GBBQRecordSize), uint32(len(events)))
	for _, e := range events {
		b = AppendGBBQRecord(b, e)
	}
	_, err := w.Write(b)
	return err
}
