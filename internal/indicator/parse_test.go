package indicator

import (
	"reflect"
	"strings"
	"testing"

	"mdqs/internal/market"
)

func TestParseList(t *testing.T) {
	tests := []struct {
		in   string
		want []Spec
	}{
		{"", nil},
		{"  ", nil},
		{"ma5", []Spec{{SpecMA, 5}}},
		{"MA5, ma20 ,EMA12,ema26,MACD,vma5", []Spec{{SpecMA, 5}, {SpecMA, 20}, {SpecEMA, 12}, {SpecEMA, 26}, {SpecMACD, 0}, {SpecVMA, 5}}},
		// Repeats count once, where they first appear.
		{"ma20,ma5,MA20,macd,Macd", []Spec{{SpecMA, 20}, {SpecMA, 5}, {SpecMACD, 0}}},
		{"ma1,ema250,vma250", []Spec{{SpecMA, 1}, {SpecEMA, 250}, {SpecVMA, 250}}},
		{"\tema12\n", []Spec{{SpecEMA, 12}}},
	}
	for _, tc := range tests {
		got, err := ParseList(tc.in)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseList(%q) = %v, %v, want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestParseListErrors(t *testing.T) {
	seventeen := make([]string, 17)
	for i := range seventeen {
		seventeen[i] = "ma" + string(rune('1'+i%9)) + strings.Repeat("0", i/9)
	}
	tests := []struct {
		in, mention string
	}{
		{"ma0", `"ma0"`},
		{"ma251", `"ma251"`},
		{"ema1000", `"ema1000"`},
		{"ema99999999999999999999999", `"ema99999999999999999999999"`},
		{"ma05", `"ma05"`},
		{"ma", `"ma"`},
		{"ma5,foo", `"foo" at position 2`},
		{"MA-5", `"MA-5"`},
		{"ma+5", `"ma+5"`},
		{"ma 5", `"ma 5"`},
		{"ma5.0", `"ma5.0"`},
		{"macd12", `"macd12"`},
		{"ma5,,ma10", "empty name at position 2"},
		{"ma5,", "empty name at position 2"},
		{",", "empty name at position 1"},
		{"ma５", `"ma５"`},
		{strings.Join(seventeen, ","), "more than 16"},
		{strings.Repeat("ma5,", 129), "longer than 512"},
		{"x" + strings.Repeat("y", 100), `"xyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"...`},
	}
	for _, tc := range tests {
		got, err := ParseList(tc.in)
		if err == nil || market.KindOf(err) != market.KindInvalid || !strings.Contains(err.Error(), tc.mention) || got != nil {
			t.Errorf("ParseList(%q) = %v, %v, want nil and a KindInvalid error mentioning %s", tc.in, got, err, tc.mention)
		}
	}
}

func TestSpecNamesAndLookback(t *testing.T) {
	tests := []struct {
		spec     Spec
		name     string
		columns  []string
		lookback int
	}{
		{Spec{SpecMA, 5}, "ma5", []string{"ma5"}, 4},
		{Spec{SpecVMA, 10}, "vma10", []string{"vma10"}, 9},
		{Spec{SpecEMA, 1}, "ema1", []string{"ema1"}, 0},
		// ln(0.001)/ln(11/13) = -6.9078/-0.16705 = 41.35 -> 42
		{Spec{SpecEMA, 12}, "ema12", []string{"ema12"}, 42},
		// ln(0.001)/ln(25/27) = -6.9078/-0.076961 = 89.76 -> 90
		{Spec{SpecEMA, 26}, "ema26", []string{"ema26"}, 90},
		// 90 + ln(0.001)/ln(8/10) = 90 + 30.96 -> 90 + 31
		{Spec{SpecMACD, 0}, "macd", []string{"macd_dif", "macd_dea", "macd_hist"}, 121},
	}
	for _, tc := range tests {
		if got := tc.spec.Name(); got != tc.name {
			t.Errorf("%+v.Name() = %q, want %q", tc.spec, got, tc.name)
		}
		if got := tc.spec.Columns(); !reflect.DeepEqual(got, tc.columns) {
			t.Errorf("%+v.Columns() = %q, want %q", tc.spec, got, tc.columns)
		}
		if got := tc.spec.Lookback(); got != tc.lookback {
			t.Errorf("%+v.Lookback() = %d, want %d", tc.spec, got, tc.lookback)
		}
		if err := tc.spec.Validate(); err != nil {
			t.Errorf("%+v.Validate() = %v, want nil", tc.spec, err)
		}
	}
	for _, bad := range []Spec{{}, {SpecMA, 0}, {SpecEMA, 251}, {SpecMACD, 3}, {SpecKind(9), 5}} {
		if err := bad.Validate(); market.KindOf(err) != market.KindInvalid {
			t.Errorf("%+v.Validate() = %v, want KindInvalid", bad, err)
		}
	}
	for _, bad := range []Spec{{}, {SpecKind(9), 5}} {
		if got := bad.Name(); got != "invalid" {
			t.Errorf("%+v.Name() = %q, want invalid", bad, got)
		}
	}
}

func TestFormatList(t *testing.T) {
	specs, err := ParseList(" MA5,EMA12 , macd,vma5,ma5")
	if err != nil {
		t.Fatalf("ParseList error %v", err)
	}
	if got, want := FormatList(specs), "ma5,ema12,macd,vma5"; got != want {
		t.Errorf("FormatList(%v) = %q, want %q", specs, got, want)
	}
}

// FuzzParseList checks that no input panics and that every accepted list is
// valid, bounded, duplicate-free and round-trips through FormatList, and that
// every rejection is a short KindInvalid error.
func FuzzParseList(f *testing.F) {
	for _, s := range []string{"", "ma5", "ma5,ma20,ema12,ema26,macd,vma5", "MA05", "ma251", "ma5,,", "ema\x00", "macd,MACD"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		specs, err := ParseList(s)
		if err != nil {
			if specs != nil || market.KindOf(err) != market.KindInvalid || len(err.Error()) > 300 {
				t.Fatalf("ParseList(%q) = %v, %v, want nil and a short KindInvalid error", s, specs, err)
			}
			return
		}
		if len(specs) > MaxSpecs {
			t.Fatalf("ParseList(%q) = %d specs, want at most %d", s, len(specs), MaxSpecs)
		}
		seen := map[Spec]bool{}
		for _, sp := range specs {
			if err := sp.Validate(); err != nil || seen[sp] {
				t.Fatalf("ParseList(%q) gave %+v (validate %v, repeated %v), want valid distinct specs", s, sp, err, seen[sp])
			}
			seen[sp] = true
		}
		again, err := ParseList(FormatList(specs))
		if err != nil || !reflect.DeepEqual(again, specs) {
			t.Fatalf("ParseList(FormatList(ParseList(%q))) = %v, %v, want %v", s, again, err, specs)
		}
		if _, err := Eval(nil, specs); err != nil {
			t.Fatalf("Eval(nil, ParseList(%q)) error %v, want nil", s, err)
		}
	})
}
