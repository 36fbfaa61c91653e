package tdx

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mdqs/internal/market"
)

func TestTNFRealFile(t *testing.T) {
	tf, err := ReadTNF(sample("ginkgo-2020/T0002/hq_cache/szm.tnf"))
	if err != nil {
		t.Fatal(err)
	}
	if tf.Header != (TNFHeader{Server: "8.129.13.54", Port: 7709, Date: 20201030, Time: 85009}) {
		t.Errorf("header %+v", tf.Header)
	}
	if tf.Layout != TNF314 || tf.Market != market.SZ || len(tf.Securities) != 1000 {
		t.Fatalf("layout %d market %s %d records", tf.Layout, tf.Market, len(tf.Securities))
	}
	tests := []struct {
		i    int
		want Security
	}{
		{0, Security{market.Code{Symbol: "395001", Exchange: market.SZ}, "主板Ａ股", 2, 100, 455, "ZBAG"}},
		{17, Security{market.Code{Symbol: "399001", Exchange: market.SZ}, "深证成指", 2, 100, 13519.66, ""}},
		{361, Security{market.MustCode("000001.SZ"), "平安银行", 2, 100, 17.77, "PAYH"}},
		{362, Security{market.MustCode("000002.SZ"), "万 科Ａ", 2, 100, -1, ""}},
		{708, Security{market.MustCode("000858.SZ"), "五 粮 液", 2, 100, -1, ""}},
		{999, Security{market.MustCode("002187.SZ"), "广百股份", 2, 100, 9.72, "GBGF"}},
	}
	for _, tc := range tests {
		got := tf.Securities[tc.i]
		w := tc.want
		if got.Code != w.Code || got.Name != w.Name || got.Decimals != w.Decimals || got.LotSize != w.LotSize ||
			(w.PrevClose >= 0 && got.PrevClose != w.PrevClose) || (w.Pinyin != "" && got.Pinyin != w.Pinyin) {
			t.Errorf("record %d: %+v, want %+v", tc.i, got, w)
		}
	}
}

func TestTNFWriteRoundTrip(t *testing.T) {
	h := TNFHeader{Server: "8.129.13.54", Port: 7709, Date: 20260512, Time: 153001}
	secs := []Security{
		{Code: market.MustCode("920001.BJ"), Name: "北交所甲", Decimals: 2, LotSize: 100, PrevClose: 12.34, Pinyin: "BJSJ"},
		{Code: market.MustCode("123002.SZ"), Name: "国祯转债", Decimals: 3, LotSize: 10, PrevClose: 113.738, Pinyin: "GZZZ"},
		{Code: market.MustCode("600000.SH"), Name: "浦发银行", Decimals: 2, LotSize: 100, PrevClose: math.NaN(), Pinyin: "PFYH"},
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		name   string
		layout TNFLayout
	}{{"shm.tnf", TNF314}, {"bjs.tnf", TNF360}, {"names.tnf", TNF314}, {"names2.tnf", TNF360}} {
		var buf bytes.Buffer
		if err := WriteTNF(&buf, h, tc.layout, secs); err != nil {
			t.Fatal(err)
		}
		if buf.Len() != 50+len(secs)*int(tc.layout) {
			t.Fatalf("%s: size %d", tc.name, buf.Len())
		}
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		tf, err := ReadTNF(path)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if tf.Header != h || tf.Layout != tc.layout {
			t.Errorf("%s: header %+v layout %d", tc.name, tf.Header, tf.Layout)
		}
		ex, _, _ := tnfName(tc.name)
		for i, got := range tf.Securities {
			want := secs[i]
			if ex != "" {
				want.Code.Exchange = ex // the file name's market wins
			}
			if tc.layout == TNF360 {
				want = Security{Code: want.Code, Name: want.Name, PrevClose: math.NaN()}
				if ex == "" {
					want.Code = secs[i].Code // inferred from the code
				}
			} else if math.IsNaN(want.PrevClose) {
				want.PrevClose = 0 // stored as 0
			}
			if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
				t.Errorf("%s record %d: %+v, want %+v", tc.name, i, got, want)
			}
		}
	}
}

func TestTNFLayoutDetection(t *testing.T) {
	tests := []struct {
		size   int64
		byName TNFLayout
		want   TNFLayout
		err    string
	}{
		{50, 0, TNF314, ""}, // no records: either, 314 first
		{50 + 314*3, 0, TNF314, ""},
		{50 + 360*3, TNF314, TNF360, ""}, // the size wins over the name
		{50 + 56520, TNF360, TNF360, ""},
		{50 + 56520, TNF314, TNF314, ""},
		{50 + 56520, 0, 0, "fits both"},
		{49, 0, 0, "shorter than"},
		{50 + 314 + 1, 0, 0, "not a 50-byte header"},
	}
	for _, tc := range tests {
		got, err := tnfLayoutOf(tc.size, tc.byName)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("size %d: err %v, want %q", tc.size, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("size %d name %d: %d %v, want %d", tc.size, tc.byName, got, err, tc.want)
		}
	}
}

func TestTNFMalformed(t *testing.T) {
	var buf bytes.Buffer
	secs := []Security{{Code: market.MustCode("000001.SZ"), Name: "平安银行", Decimals: 2, LotSize: 100}, {Code: market.MustCode("000002.SZ"), Name: "万 科Ａ", Decimals: 2, LotSize: 100}}
	if err := WriteTNF(&buf, TNFHeader{}, TNF314, secs); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	copy(data[50:], "00000X")
	dir := t.TempDir()
	path := filepath.Join(dir, "szm.tnf")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	tf, err := ReadTNF(path)
	var fe *FormatError
	if tf == nil || len(tf.Securities) != 1 || !errors.As(err, &fe) || fe.Offset != 50 || fe.File != path {
		t.Errorf("bad code: %v, err %v", tf, err)
	}
	// A wrong-size file gives no records.
	if err := os.WriteFile(path, data[:len(data)-5], 0o644); err != nil {
		t.Fatal(err)
	}
	if tf, err := ReadTNF(path); tf != nil || !errors.As(err, &fe) {
		t.Errorf("wrong size: %v, %v", tf, err)
	}
	// The streaming form reports the partial record.
	var partial *PartialRecordError
	for _, err := range Securities(bytes.NewReader(data[:len(data)-5]), TNF314, market.SZ) {
		errors.As(err, &partial)
	}
	if partial == nil || partial.Offset != 50+314 || partial.Len != 309 {
		t.Errorf("partial %+v", partial)
	}
	for _, err := range Securities(bytes.NewReader(data[:20]), TNF314, market.SZ) {
		if !errors.As(err, &fe) || !strings.Contains(fe.Reason, "header") {
			t.Errorf("short header: %v", err)
		}
	}
}
