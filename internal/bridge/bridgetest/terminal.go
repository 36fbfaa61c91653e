// Package bridgetest builds a small but complete fake TongDaXin install
// folder with the tdx package's writers, for the bridge's tests and the
// API's end-to-end tests.
package bridgetest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"mdqs/internal/market"
	"mdqs/internal/tdx"
)

// Days of the fake daily files: the week before Monday 2026-11-23.
var Days = []market.Day{20261116, 20261117, 20261118, 20261119, 20261120}

// DailyBars are deterministic daily bars over Days starting at base.
func DailyBars(base float64) []market.Bar {
	out := make([]market.Bar, len(Days))
	for i, d := range Days {
		c := base + float64(i)
		out[i] = market.Bar{Day: d, TS: d.At(15, 0, 0).Unix(), Open: c - 0.5, High: c + 1, Low: c - 1, Close: c,
			Volume: int64(1000 * (i + 1)), Amount: c * float64(1000*(i+1)), TurnoverRate: market.Unknown(), LargeOrderNet: market.Unknown()}
	}
	return out
}

// MinuteBars are one session of 1-minute bars on day.
func MinuteBars(day market.Day, base float64) []market.Bar {
	var out []market.Bar
	add := func(h, m int) {
		c := base + float64(len(out))*0.01
		out = append(out, market.Bar{Day: day, TS: day.At(h, m, 0).Unix(), Open: c, High: c + 0.02, Low: c - 0.02, Close: c + 0.01,
			Volume: 100, Amount: 100 * c, TurnoverRate: market.Unknown(), LargeOrderNet: market.Unknown()})
	}
	for t := 9*60 + 31; t <= 11*60+30; t++ {
		add(t/60, t%60)
	}
	for t := 13*60 + 1; t <= 15*60; t++ {
		add(t/60, t%60)
	}
	return out
}

// Base is the folder's T0002/hq_cache/base.dbf: the listing days (SSDATE)
// of 600519.SH and 000001.SZ, neither of which the GBBQ below has a
// listing record for, and of a code without a row elsewhere.
var Base = []tdx.BaseRecord{
	{Code: market.MustCode("000001.SZ"), Listed: 19910403, Updated: 20201030, TotalShares: 19405918700, FloatShares: 19405600000},
	{Code: market.MustCode("600519.SH"), Listed: 20010827, Updated: 20201030, TotalShares: 1256197800, FloatShares: 1256197800},
	{Code: market.MustCode("601088.SH"), Listed: 20071009, Updated: 20201030, TotalShares: 19868519955, FloatShares: 16491037955},
}

// GBBQ is the folder's T0002/hq_cache/gbbq: 600519.SH's bonus and two
// cash dividends, a rights issue of 000001.SZ with a share change on its
// day, and a dividend of 000001.SZ announced for after Days, as a real
// file holds ex-dates a few days ahead.
var GBBQ = []tdx.GBBQEvent{
	{Code: market.MustCode("600519.SH"), Day: 20150717, Category: tdx.Dividend, F: [4]float64{43.74, 0, 1, 0}},
	{Code: market.MustCode("600519.SH"), Day: 20240619, Category: tdx.Dividend, F: [4]float64{308.76, 0, 0, 0}},
	{Code: market.MustCode("600519.SH"), Day: 20250626, Category: tdx.Dividend, F: [4]float64{276.24, 0, 0, 0}},
	{Code: market.MustCode("000001.SZ"), Day: 20001106, Category: tdx.Dividend, F: [4]float64{0, 8, 0, 3}},
	{Code: market.MustCode("000001.SZ"), Day: 20001106, Category: tdx.ShareChange, F: [4]float64{105200, 155800, 136760, 202540}},
	{Code: market.MustCode("000001.SZ"), Day: 20261126, Category: tdx.Dividend, F: [4]float64{2.36, 0, 0, 0}},
}

// Write builds the folder under dir: daily bars of 600519.SH, 000001.SZ and
// the block index 880301.SH; one session of 1- and 5-minute bars of
// 600519.SH; industries (煤炭 > 煤炭开采, 白酒, 银行), a concept, a style, an
// index block, a 400-member concept, names, user blocks with the
// watchlist, and the corporate actions of GBBQ.
func Write(t testing.TB, dir string) {
	t.Helper()
	put := func(rel string, fill func(*bytes.Buffer) error) {
		t.Helper()
		var b bytes.Buffer
		if err := fill(&b); err != nil {
			t.Fatalf("bridgetest %s: %v", rel, err)
		}
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	day := func(code string, base float64) func(*bytes.Buffer) error {
		return func(b *bytes.Buffer) error {
			return tdx.WriteDay(b, DailyBars(base), tdx.ScaleFor(market.MustCode(code)))
		}
	}
	put("vipdoc/sh/lday/sh600519.day", day("600519.SH", 1500))
	put("vipdoc/sz/lday/sz000001.day", day("000001.SZ", 11))
	put("vipdoc/sh/lday/sh880301.day", day("880301.SH", 1200))
	m := MinuteBars(20261120, 1510)
	put("vipdoc/sh/minline/sh600519.lc1", func(b *bytes.Buffer) error {
		return tdx.WriteMinute(b, tdx.LayoutLC, m, tdx.ScaleFor(market.MustCode("600519.SH")))
	})
	put("vipdoc/sh/fzline/sh600519.lc5", func(b *bytes.Buffer) error {
		return tdx.WriteMinute(b, tdx.LayoutLC, fiveMinutes(m), tdx.ScaleFor(market.MustCode("600519.SH")))
	})
	code := market.MustCode
	put("T0002/hq_cache/tdxzs3.cfg", func(b *bytes.Buffer) error {
		return tdx.WriteZSCfg(b, []tdx.ZSEntry{
			{Name: "煤炭", Code: code("880301.SH"), Type: tdx.ZSIndustry, Flag: 1, Key: "T0101"},
			{Name: "煤炭开采", Code: code("880302.SH"), Type: tdx.ZSIndustry, Flag: 1, Leaf: true, Key: "T010101"},
			{Name: "白酒", Code: code("880380.SH"), Type: tdx.ZSIndustry, Flag: 1, Leaf: true, Key: "T0301"},
			{Name: "银行", Code: code("880471.SH"), Type: tdx.ZSIndustry, Flag: 1, Leaf: true, Key: "T1001"},
			{Name: "5G概念", Code: code("880506.SH"), Type: tdx.ZSConcept, Flag: 1, Key: "5G概念"},
			{Name: "大盘股", Code: code("880823.SH"), Type: tdx.ZSStyle, Flag: 1, Key: "大盘股"},
		})
	})
	put("T0002/hq_cache/tdxhy.cfg", func(b *bytes.Buffer) error {
		return tdx.WriteHYCfg(b, []tdx.HYEntry{
			{Code: code("601088.SH"), TCode: "T010101", XCode: "X010101"},
			{Code: code("600519.SH"), TCode: "T0301", XCode: "X030101"},
			{Code: code("000001.SZ"), TCode: "T1001", XCode: "X500102"},
		}, false)
	})
	put("T0002/hq_cache/tdxbk.cfg", func(b *bytes.Buffer) error {
		return tdx.WriteBKCfg(b, []tdx.BKEntry{{Kind: tdx.KindBlockGN, Short: "三代半导", Full: "第三代半导体"}})
	})
	big := make([]market.Code, 400)
	for i := range big {
		big[i] = market.Code{Symbol: fmt.Sprintf("%06d", 600000+i), Exchange: market.SH}
	}
	put("T0002/hq_cache/block_gn.dat", func(b *bytes.Buffer) error {
		return tdx.WriteBlockDat(b, []tdx.Block{
			{Name: "5G概念", Type: 2, Codes: []market.Code{code("600519.SH"), code("000001.SZ")}},
			{Name: "三代半导", Type: 2, Codes: []market.Code{code("600519.SH")}},
			{Name: "融资融券", Type: 2, Codes: big},
		})
	})
	put("T0002/hq_cache/block_fg.dat", func(b *bytes.Buffer) error {
		return tdx.WriteBlockDat(b, []tdx.Block{{Name: "大盘股", Type: 2, Codes: []market.Code{code("600519.SH"), code("601088.SH")}}})
	})
	put("T0002/hq_cache/block_zs.dat", func(b *bytes.Buffer) error {
		return tdx.WriteBlockDat(b, []tdx.Block{{Name: "沪深300", Type: 2, Codes: []market.Code{code("600519.SH"), code("000001.SZ"), code("601088.SH")}}})
	})
	put("T0002/hq_cache/shm.tnf", func(b *bytes.Buffer) error {
		return tdx.WriteTNF(b, tdx.TNFHeader{Server: "fake"}, tdx.TNF314, []tdx.Security{
			{Code: code("600519.SH"), Name: "贵州茅台", Decimals: 2, LotSize: 100},
			{Code: code("601088.SH"), Name: "中国神华", Decimals: 2, LotSize: 100},
			{Code: code("880301.SH"), Name: "煤炭", Decimals: 2, LotSize: 100},
		})
	})
	put("T0002/hq_cache/szm.tnf", func(b *bytes.Buffer) error {
		return tdx.WriteTNF(b, tdx.TNFHeader{Server: "fake"}, tdx.TNF314, []tdx.Security{{Code: code("000001.SZ"), Name: "平安银行", Decimals: 2, LotSize: 100}})
	})
	put("T0002/hq_cache/gbbq", func(b *bytes.Buffer) error { return tdx.WriteGBBQ(b, GBBQ) })
	put("T0002/hq_cache/base.dbf", func(b *bytes.Buffer) error {
		_, err := b.Write(tdx.EncodeBaseDBF(Base))
		return err
	})
	put("T0002/blocknew/blocknew.cfg", func(b *bytes.Buffer) error {
		return tdx.WriteBlockNewCfg(b, []tdx.UserBlock{{Name: "我的白马", Stem: "WDBM"}})
	})
	put("T0002/blocknew/WDBM.blk", func(b *bytes.Buffer) error { return tdx.WriteBLK(b, []market.Code{code("600519.SH")}, false) })
	put("T0002/blocknew/ZXG.blk", func(b *bytes.Buffer) error {
		return tdx.WriteBLK(b, []market.Code{code("000001.SZ"), code("600519.SH")}, false)
	})
}

// fiveMinutes folds 1-minute bars into 5-minute bars labelled by their end.
func fiveMinutes(m []market.Bar) []market.Bar {
	var out []market.Bar
	for i := 0; i+5 <= len(m); i += 5 {
		b := m[i]
		for _, x := range m[i+1 : i+5] {
			b.High, b.Low = max(b.High, x.High), min(b.Low, x.Low)
			b.Volume += x.Volume
			b.Amount += x.Amount
		}
		b.Close, b.TS = m[i+4].Close, m[i+4].TS
		out = append(out, b)
	}
	return out
}
