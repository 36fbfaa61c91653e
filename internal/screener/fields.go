// Package screener runs stock screens: an expression over named per-stock
// fields (the latest snapshot, daily bars and indicators, chip metrics, hot
// rank, sector membership), evaluated across the whole market from data held
// in memory, as jobs in a persisted queue with a bounded worker pool.
package screener

import (
	"math"
	"reflect"
	"slices"
	"sort"
)

// Row is one stock as an expression sees it; the expr tags are the field
// names. Numbers are float64 so every comparison type-checks; an unknown
// value is NaN, which fails every comparison (so `pe < 20` drops stocks with
// no P/E).
type Row struct {
	Code     string   `expr:"code" doc:"600519.SH"`
	Name     string   `expr:"name" doc:"name"`
	Market   string   `expr:"market" doc:"SH, SZ or BJ"`
	Industry string   `expr:"industry" doc:"industry sector name"`
	Concepts []string `expr:"concepts" doc:"concept sector names; use \"人工智能\" in concepts"`

	Price        float64 `expr:"price" doc:"latest price (snapshot)"`
	Pct          float64 `expr:"pct" doc:"change today, percent"`
	Open         float64 `expr:"open" doc:"today's open"`
	High         float64 `expr:"high" doc:"today's high"`
	Low          float64 `expr:"low" doc:"today's low"`
	PrevClose    float64 `expr:"prev_close" doc:"previous close"`
	Volume       float64 `expr:"volume" doc:"shares traded today"`
	Amount       float64 `expr:"amount" doc:"turnover amount today, yuan"`
	Turnover     float64 `expr:"turnover" doc:"turnover rate today, percent"`
	Amplitude    float64 `expr:"amplitude" doc:"today's range, percent of the previous close"`
	VolumeRatio  float64 `expr:"volume_ratio" doc:"volume ratio (量比)"`
	PE           float64 `expr:"pe" doc:"dynamic P/E"`
	PB           float64 `expr:"pb" doc:"P/B"`
	MarketCap    float64 `expr:"market_cap" doc:"total market value, yuan"`
	FloatCap     float64 `expr:"float_cap" doc:"float market value, yuan"`
	MainNet      float64 `expr:"main_net" doc:"main-force net inflow today, yuan"`
	MainNetRatio float64 `expr:"main_net_ratio" doc:"main net inflow, percent of amount"`

	MA5           float64 `expr:"ma5" doc:"5-day SMA of close (today's price included while trading)"`
	MA10          float64 `expr:"ma10" doc:"10-day SMA"`
	MA20          float64 `expr:"ma20" doc:"20-day SMA"`
	MA60          float64 `expr:"ma60" doc:"60-day SMA"`
	EMA12         float64 `expr:"ema12" doc:"12-day EMA (terminal convention)"`
	EMA26         float64 `expr:"ema26" doc:"26-day EMA"`
	MACDDIF       float64 `expr:"macd_dif" doc:"EMA12 - EMA26"`
	MACDDEA       float64 `expr:"macd_dea" doc:"EMA9 of DIF"`
	MACDHist      float64 `expr:"macd_hist" doc:"(DIF - DEA) * 2"`
	VolMA5        float64 `expr:"vol_ma5" doc:"5-day SMA of volume"`
	VolMA20       float64 `expr:"vol_ma20" doc:"20-day SMA of volume"`
	Pct5D         float64 `expr:"pct_5d" doc:"change over 5 days, percent"`
	Pct20D        float64 `expr:"pct_20d" doc:"change over 20 days, percent"`
	High20        float64 `expr:"high_20" doc:"highest high of 20 days"`
	Low20         float64 `expr:"low_20" doc:"lowest low of 20 days"`
	TrendStrength float64 `expr:"trend_strength" doc:"-100..100, steadiness of the 20-day trend"`

	AvgCost         float64 `expr:"avg_cost" doc:"chips: average cost (120-day window)"`
	ProfitRatio     float64 `expr:"profit_ratio" doc:"chips: share of chips below the price, 0..1"`
	Concentration70 float64 `expr:"concentration70" doc:"chips: concentration of the central 70 %"`
	Concentration90 float64 `expr:"concentration90" doc:"chips: concentration of the central 90 %"`

	HotRank float64 `expr:"hot_rank" doc:"popularity rank (1 = most popular); NaN when unranked"`
	HotHeat float64 `expr:"hot_heat" doc:"popularity heat"`

	MicroVolRatio float64 `expr:"micro_vol_ratio" doc:"daily signal: last volume / mean of the 5 before"`
	VolAcc        float64 `expr:"vol_acc" doc:"daily signal: volume acceleration"`
}

// Field describes one field for the catalogue.
type Field struct {
	Name    string `json:"name"`
	Type    string `json:"type"`
	Doc     string `json:"doc"`
	numeric bool
	index   int
}

// catalogue lists the fields in declaration order, built once from Row's
// tags so the catalogue, the sort keys and the result values cannot drift.
var catalogue = func() []Field {
	t := reflect.TypeOf(Row{})
	out := make([]Field, 0, t.NumField())
	for i := range t.NumField() {
		f := t.Field(i)
		typ := "number"
		switch f.Type.Kind() {
		case reflect.String:
			typ = "string"
		case reflect.Slice:
			typ = "list of strings"
		}
		out = append(out, Field{Name: f.Tag.Get("expr"), Type: typ, Doc: f.Tag.Get("doc"), numeric: typ == "number", index: i})
	}
	return out
}()

// Fields is the catalogue of names an expression may use.
func Fields() []Field { return slices.Clone(catalogue) }

func field(name string) (Field, bool) {
	for _, f := range catalogue {
		if f.Name == name {
			return f, true
		}
	}
	return Field{}, false
}

// value reads a field of a row for a result: NaN becomes nil (null).
func (r *Row) value(f Field) any {
	v := reflect.ValueOf(r).Elem().Field(f.index)
	if f.numeric {
		x := v.Float()
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil
		}
		return math.Round(x*1e4) / 1e4
	}
	return v.Interface()
}

// number reads a numeric field (NaN for strings).
func (r *Row) number(f Field) float64 {
	if !f.numeric {
		return math.NaN()
	}
	return reflect.ValueOf(r).Elem().Field(f.index).Float()
}

// sortNames lists the numeric field names (valid sort keys).
func sortNames() []string {
	var out []string
	for _, f := range catalogue {
		if f.numeric {
			out = append(out, f.Name)
		}
	}
	sort.Strings(out)
	return out
}
