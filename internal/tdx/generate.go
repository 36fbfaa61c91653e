package tdx

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"mdqs/internal/market"
)

// genClass is one slice of a generated vipdoc: a code range and its share
// of the files, roughly as in a real 2023 install (tdx.md §2).
type genClass struct {
	ex     market.Exchange
	base   int     // first code
	weight float64 // share of files
	price  float64 // typical starting price
}

func genClasses() []genClass {
	return []genClass{
		{market.SH, 600000, 0.22, 12},   // main-board A shares
		{market.SH, 688000, 0.07, 40},   // STAR
		{market.SZ, 1, 0.22, 10},        // SZ main board (000001 …)
		{market.SZ, 300000, 0.17, 25},   // ChiNext
		{market.BJ, 920000, 0.03, 15},   // BSE
		{market.SH, 510000, 0.06, 3},    // ETFs
		{market.SZ, 159000, 0.05, 2},    // ETFs
		{market.SH, 113000, 0.04, 110},  // convertibles
		{market.SZ, 123000, 0.04, 120},  // convertibles
		{market.SH, 880000, 0.08, 1500}, // block indices
		{market.SZ, 399000, 0.02, 9000}, // indices
	}
}

// GenerateVipdoc writes a deterministic, realistic vipdoc tree under dir
// for import benchmarks and integration tests: files .day files spread over
// SH/SZ/BJ stocks, funds, bonds and indices, each holding barsPerFile
// weekday bars ending 2025-12-31, with random-walk prices and consistent
// OHLC, amounts and volumes in each type's stored units. It returns the
// files written.
func GenerateVipdoc(dir string, files, barsPerFile int, seed int64) ([]File, error) {
	if files < 0 || barsPerFile < 0 {
		return nil, fmt.Errorf("tdx: negative file or bar count")
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 0x7464782d67656e)) // "tdx-gen"
	days := weekdaysBefore(market.NewDay(2025, time.December, 31), barsPerFile)
	classes := genClasses()
	var out []File
	var buf []byte
	made := map[market.Exchange]bool{}
	for i := 0; i < files; i++ {
		// Spread files over the classes by weight, deterministically.
		c, n := pickClass(classes, i, files)
		code := market.Code{Symbol: fmt.Sprintf("%06d", c.base+n), Exchange: c.ex}
		dirPath := filepath.Join(dir, "vipdoc", strings.ToLower(string(c.ex)), "lday")
		if !made[c.ex] {
			if err := os.MkdirAll(dirPath, 0o755); err != nil {
				return out, fmt.Errorf("tdx: %w", err)
			}
			made[c.ex] = true
		}
		s := ScaleFor(code)
		buf = genDayRecords(buf[:0], rng, days, c.price*(0.5+rng.Float64()), s, market.Classify(code))
		path := filepath.Join(dirPath, strings.ToLower(string(c.ex))+code.Symbol+".day")
		if err := os.WriteFile(path, buf, 0o644); err != nil {
			return out, fmt.Errorf("tdx: %w", err)
		}
		out = append(out, File{Kind: KindDay, Path: path, Code: code, Market: c.ex, Size: int64(len(buf))})
	}
	return out, nil
}

// pickClass maps the i-th of n files to a class and an index within it, so
// that class k gets about weight_k × n files with consecutive codes.
func pickClass(classes []genClass, i, n int) (genClass, int) {
	start := 0
	for k, c := range classes {
		cnt := int(math.Ceil(c.weight * float64(n)))
		if i < start+cnt || k == len(classes)-1 {
			return c, i - start + 1
		}
		start += cnt
	}
	return classes[0], i
}

// weekdaysBefore lists n weekdays ending at end, ascending (holidays are
// not removed: the decoders do not care, and it keeps generation fast).
func weekdaysBefore(end market.Day, n int) []market.Day {
	out := make([]market.Day, n)
	t := end.Start()
	for i := n - 1; i >= 0; {
		if wd := t.Weekday(); wd != time.Saturday && wd != time.Sunday {
			out[i] = market.DayOf(t)
			i--
		}
		t = t.AddDate(0, 0, -1)
	}
	return out
}

func genDayRecords(b []byte, rng *rand.Rand, days []market.Day, price float64, s Scale, typ market.SecurityType) []byte {
	for _, d := range days {
		open := price * (1 + rng.NormFloat64()*0.01)
		cl := open * (1 + rng.NormFloat64()*0.02)
		hi := math.Max(open, cl) * (1 + rng.Float64()*0.01)
		lo := math.Min(open, cl) * (1 - rng.Float64()*0.01)
		price = cl
		q := func(p float64) uint32 { return uint32(max(1, math.Round(p*s.PriceDiv))) }
		r := DayRecord{Date: uint32(d), Open: q(open), High: q(hi), Low: q(lo), Close: q(cl)}
		r.High = max(r.High, r.Open, r.Close)
		r.Low = min(r.Low, r.Open, r.Close)
		shares := int64(1e5 + rng.Float64()*5e7)
		r.Volume = uint32(shares / s.VolumeMul)
		avg := (open + cl) / 2
		if typ == market.TypeIndex || typ == market.TypeBlock {
			avg = 5 + rng.Float64()*20 // an index's turnover is in its members' share prices
			r.Reserved = uint32(rng.IntN(2000)) | uint32(rng.IntN(2000))<<16
		}
		r.Amount = float32(float64(r.Volume) * float64(s.VolumeMul) * avg)
		b = AppendDayRecord(b, r)
	}
	return b
}

// WriteBars writes bars as code's .day or .lc1 file under a terminal
// folder root, where the terminal keeps it (vipdoc/sh/lday/sh600000.day,
// vipdoc/sz/minline/sz000001.lc1), converted with ScaleFor(code), so a
// test or benchmark builds the terminal it reads. It replaces the file.
func WriteBars(root string, code market.Code, kind Kind, bars []market.Bar) error {
	var buf bytes.Buffer
	var sub, ext string
	var err error
	switch kind {
	case KindDay:
		sub, ext, err = "lday", ".day", WriteDay(&buf, bars, ScaleFor(code))
	case KindLC1:
		sub, ext, err = "minline", ".lc1", WriteMinute(&buf, LayoutLC, bars, ScaleFor(code))
	default:
		return fmt.Errorf("tdx: WriteBars writes .day and .lc1 files, not %q", kind)
	}
	if err != nil {
		return err
	}
	mkt := strings.ToLower(string(code.Exchange))
	dir := filepath.Join(root, "vipdoc", mkt, sub)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, mkt+code.Symbol+ext), buf.Bytes(), 0o644)
}
