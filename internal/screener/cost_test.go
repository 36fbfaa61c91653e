package screener

import (
	"strings"
	"testing"

	"mdqs/internal/market"
)

// Screens that any trader writes pass; loops that multiply past the bound
// are refused at submission with a 400 that says why.
func TestCostBound(t *testing.T) {
	for _, tt := range []struct {
		src string
		ok  bool
	}{
		{`price > ma20 && ma5 > ma10 && turnover > 3 && main_net > 5e7 && pct_20d > 0 && macd_hist > 0`, true},
		{`"人工智能" in concepts && pct > 2`, true},
		{`any(concepts, # startsWith "芯片") || industry == "银行"`, true},
		{`let r = 1..100; all(r, # > 0) && pct > 0`, true},
		{`count(concepts, len(#) > 2) >= 3`, true},
		{`len(filter(1..500, # % 7 == 0)) > 3`, true},
		{`let r = 1..1000; all(r, all(r, all(r, # > -1)))`, false}, // issue 20's poison: 58 s a stock
		{`let r = 1..1000; all(r, all(r, # > -1))`, false},
		{`all(1..100000, # > -1)`, false},
		{`all(1..(pct * 1000000), # > 0)`, false}, // computed bounds: a long loop assumed
		{`any(concepts, any(concepts, any(concepts, # == "x")))`, false},
		{`let a = 1..200; let b = a; all(a, all(b, # > 0))`, false},
	} {
		_, err := Compile(tt.src)
		switch {
		case tt.ok && err != nil:
			t.Errorf("%s: %v", tt.src, err)
		case !tt.ok && err == nil:
			t.Errorf("%s: accepted", tt.src)
		case !tt.ok && (market.KindOf(err) != market.KindInvalid || !strings.Contains(err.Error(), "too costly")):
			t.Errorf("%s: %v, want invalid: too costly", tt.src, err)
		}
	}
}

// A costly but allowed expression checks its deadline every few stocks,
// a cheap one every 256.
func TestCheckEveryFollowsCost(t *testing.T) {
	cheap, err := Compile(`pct > 1`)
	if err != nil {
		t.Fatal(err)
	}
	dear, err := Compile(`all(1..3500, # > 0)`)
	if err != nil {
		t.Fatal(err)
	}
	if cheap.checkEvery() != 256 || dear.checkEvery() > 60 {
		t.Errorf("checkEvery: cheap %d, dear %d (steps %.0f)", cheap.checkEvery(), dear.checkEvery(), dear.steps)
	}
}
