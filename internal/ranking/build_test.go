package ranking

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"math"
	"testing"
	"time"

	"mdqs/internal/market"
)

func sector(name string, mainNet, pct, amount float64) market.Sector {
	return market.Sector{Name: name, Code: "BK" + name, MainNet: mainNet, Pct: pct, Amount: amount,
		MainNetRatio: math.NaN(), Turnover: 1.2, Up: 7, Down: 3, Flat: 1}
}

func TestSignals(t *testing.T) {
	tests := []struct {
		pct, r   float64
		signal   string
		rank     int
		flowTag  string
		mainSign float64
	}{
		{2.5, 6, SignalStrongBuy, 3, "strong_inflow", 1},
		{2, 5, SignalStrongBuy, 3, "strong_inflow", 1},
		{1.9, 6, SignalBuy, 2, "strong_inflow", 1},
		{0.1, 1, SignalBuy, 2, "inflow", 1},
		{0, 1, SignalAccumulate, 1, "inflow", 1},
		{-3, 2, SignalAccumulate, 1, "inflow", 1},
		{0.5, 0.5, SignalNeutral, 0, "slight_inflow", 1},
		{0, 0, SignalNeutral, 0, "flat", 0},
		{0.5, -0.5, SignalNeutral, 0, "slight_outflow", -1},
		{1, -1, SignalDistribute, -1, "outflow", -1},
		{0, -4.9, SignalDistribute, -1, "outflow", -1},
		{-0.1, -1, SignalSell, -2, "outflow", -1},
		{-1.9, -6, SignalSell, -2, "strong_outflow", -1},
		{-2, -5, SignalStrongSell, -3, "strong_outflow", -1},
		{math.NaN(), 3, SignalNeutral, 0, "inflow", 1},
	}
	for _, tt := range tests {
		sig, rank := signalOf(tt.pct, tt.r)
		if sig != tt.signal || rank != tt.rank {
			t.Errorf("signalOf(%v, %v) = %s, %d; want %s, %d", tt.pct, tt.r, sig, rank, tt.signal, tt.rank)
		}
		if got := flowTag(tt.mainSign, tt.r); got != tt.flowTag {
			t.Errorf("flowTag(r=%v) = %s, want %s", tt.r, got, tt.flowTag)
		}
	}
	if got := flowTag(-5, math.NaN()); got != "outflow" {
		t.Errorf("flowTag without a ratio = %s, want outflow by sign", got)
	}
	// r comes from the source's ratio when given, else main_net / amount.
	if got := netRatio(market.Sector{MainNet: 1e8, Amount: 2e9, MainNetRatio: math.NaN()}); got != 5 {
		t.Errorf("netRatio from amount = %v, want 5", got)
	}
	if got := netRatio(market.Sector{MainNet: 1e8, Amount: 2e9, MainNetRatio: 3.3}); got != 3.3 {
		t.Errorf("netRatio with the source's ratio = %v, want 3.3", got)
	}
	e := entry(market.Sector{Name: "x", MainNet: -1, Up: -1, MainNetRatio: math.NaN(), Amount: math.NaN()})
	if e.Flow != "out" || e.Count != -1 || e.Signal != SignalNeutral {
		t.Errorf("entry with unknown ratio and counts = %+v", e)
	}
}

func TestBuildOrdersMergesAndRanks(t *testing.T) {
	at := time.Date(2026, 11, 23, 10, 0, 0, 0, market.Shanghai())
	ind := market.SectorSnapshot{Kind: market.Industry, At: at.Add(-time.Minute), Sectors: []market.Sector{
		sector("银行", 5e8, 1, 1e10), sector("煤炭", -3e8, -1, 1e10), sector("半导体", 9e8, 3, 1e10),
		sector("未知", math.NaN(), 0, 1e10), // unknown inflow: not rankable
		sector("电池", 1e8, 0.5, 1e10),      // also a concept: the concept entry must win
	}}
	con := market.SectorSnapshot{Kind: market.Concept, At: at, Sectors: []market.Sector{
		sector("人工智能", 7e8, 2, 1e10), sector("电池", 2e8, 0.7, 1e10), sector("低空经济", -9e8, -2, 1e10),
	}}
	r := Build(ind, con, "push2", 20261123, at.Add(time.Second))
	names := func(l []market.RankedSector) []string {
		var out []string
		for i, e := range l {
			if e.Rank != i {
				t.Errorf("%s has rank %d at position %d", e.SectorName, e.Rank, i)
			}
			out = append(out, e.SectorName)
		}
		return out
	}
	check := func(list string, got, want []string) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s = %v, want %v", list, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%s = %v, want %v", list, got, want)
			}
		}
	}
	check("industry", names(r.Industry), []string{"半导体", "银行", "电池", "煤炭"})
	check("industry_out", names(r.IndustryOut), []string{"煤炭", "电池", "银行", "半导体"})
	check("concept", names(r.Concept), []string{"人工智能", "电池", "低空经济"})
	check("concept_out", names(r.ConceptOut), []string{"低空经济", "电池", "人工智能"})
	check("sectors", names(r.Sectors), []string{"半导体", "人工智能", "银行", "电池", "煤炭", "低空经济"})
	check("sectors_out", names(r.SectorsOut), []string{"低空经济", "煤炭", "电池", "银行", "人工智能", "半导体"})
	for _, e := range r.Sectors {
		if e.SectorName == "电池" && e.MainNet != 2e8 {
			t.Fatalf("merged 电池 has main_net %v, want the concept's 2e8", e.MainNet)
		}
	}
	if r.TS != at.Unix() || r.UpdatedMS != at.Add(time.Second).UnixMilli() || r.Day != "20261123" || r.Source != "push2" {
		t.Fatalf("header = ts %d updated %d day %s source %s", r.TS, r.UpdatedMS, r.Day, r.Source)
	}
}

func TestEncodingIsValidJSONWithNullsAndTop(t *testing.T) {
	at := time.Date(2026, 11, 23, 10, 0, 0, 0, market.Shanghai())
	weird := sector("a\"b\\c\n", 1, 1, 1)
	weird.Turnover = math.NaN()
	ind := market.SectorSnapshot{At: at, Sectors: []market.Sector{weird, sector("x", 2, 1, 1), sector("y", 3, 1, 1)}}
	con := market.SectorSnapshot{At: at, Sectors: []market.Sector{sector("z", 4, 1, 1)}}
	r := Build(ind, con, "demo", 20261123, at)
	full := encode(r, 0)
	var decoded struct {
		TS       int64 `json:"ts"`
		Industry []struct {
			SectorName string   `json:"sector_name"`
			Turnover   *float64 `json:"turnover"`
		} `json:"industry"`
		Sectors []json.RawMessage `json:"sectors"`
	}
	if err := json.Unmarshal(full.JSON, &decoded); err != nil {
		t.Fatalf("encoded ranking is not JSON: %v\n%s", err, full.JSON)
	}
	last := decoded.Industry[len(decoded.Industry)-1]
	if last.SectorName != "a\"b\\c\n" || last.Turnover != nil {
		t.Fatalf("escaped name / NaN turnover = %q / %v", last.SectorName, last.Turnover)
	}
	zr, err := gzip.NewReader(bytes.NewReader(full.Gzip))
	if err != nil {
		t.Fatal(err)
	}
	unzipped, _ := io.ReadAll(zr)
	if !bytes.Equal(unzipped, full.JSON) {
		t.Fatal("gzip body does not decode to the JSON body")
	}
	top := encode(r, 2)
	json.Unmarshal(top.JSON, &decoded)
	if len(decoded.Industry) != 2 || len(decoded.Sectors) != 2 || top.ETag == full.ETag {
		t.Fatalf("top=2: %d industry, %d sectors, etags %s %s", len(decoded.Industry), len(decoded.Sectors), top.ETag, full.ETag)
	}
	// The domain type's own JSON agrees with the hand encoder.
	b, err := json.Marshal(r.Industry[0])
	if err != nil || !json.Valid(b) {
		t.Fatalf("RankedSector.MarshalJSON = %s, %v", b, err)
	}
}
