package limitpool

import (
	"math"
	"slices"
	"testing"

	"mdqs/db"
	"mdqs/internal/market"
)

func derivedUp(code, name string, boards int, first, last market.TimeOfDay, opened int) Row {
	c := market.MustCode(code)
	r := Row{Code: c, Name: name, Board: "main", Bar: DayBar{Close: 8.5, Volume: 100}, Boards: boards,
		Status: Status{HasLimit: true, TouchedUp: true, SealedUp: true}}
	if c.Symbol[:2] == "68" {
		r.Board = "star"
	}
	if first >= 0 {
		r.UpSeals = &Seals{Sealed: true, First: first, Last: last, Opened: opened, AtClose: true}
	}
	return r
}

func published(code, name string, boards, first, last, opened int) db.PublishedRow {
	return db.PublishedRow{Code: market.MustCode(code), Name: name, Price: 8.5, LimitPrice: math.NaN(), Boards: boards, FirstSeal: first,
		LastSeal: last, OpenedTimes: opened, CountDays: -1, CountUp: -1}
}

// The limit-up pool compared on the common universe: ST and STAR rows of
// the derived side are excluded (and said whether the source had them),
// membership splits into both / only published / only derived, seal times
// agree within a minute (09:25:00 against 09:25, 09:31:55 against 09:32)
// and disagree beyond it, boards exactly, opened times disagree only when
// the derived count is higher (a lower one is "below"), a row without
// minutes is "missing" for the seal fields; the worst first.
func TestCompareKindUp(t *testing.T) {
	st := derivedUp("600777.SH", "*ST新潮", 1, 9*60+31, 9*60+31, 0)
	st.ST = "*ST"
	derived := []Row{
		derivedUp("000004.SZ", "国华网安", 4, 9*60+25, 9*60+25, 0), // agrees: 09:25:00
		derivedUp("600198.SH", "大唐电信", 5, 9*60+32, 9*60+32, 0), // 09:31:55 in the minute ending 09:32: agrees
		derivedUp("600225.SH", "卓朗科技", 2, 9*60+40, 9*60+40, 3), // boards 2 vs 3; first 09:40 vs 09:25:01 (off 899 s); opened 3 vs 2 disagrees
		derivedUp("603316.SH", "诚邦股份", 2, -1, -1, 0),           // no minutes: seal fields missing
		derivedUp("002001.SZ", "新和成", 1, 10*60, 10*60, 0),      // only derived
		derivedUp("688001.SH", "华兴源创", 1, 10*60, 10*60, 0),     // STAR: excluded
		st, // ST: excluded, though the source lists it
	}
	pub := db.PublishedPool{Kind: "up", Total: 6, Rows: []db.PublishedRow{
		published("000004.SZ", "国华网安", 4, 92500/10000*3600+25*60, 33900, 0),
		published("600198.SH", "大 唐电信", 5, 9*3600+31*60+55, 9*3600+31*60+55, 1),
		published("600225.SH", "卓朗科技", 3, 9*3600+25*60+1, 9*3600+31*60+55, 2),
		published("603316.SH", "诚邦股份", 2, 33901, 35755, 1),
		published("600130.SH", "波导股份", 2, 33901, 33901, 0), // only published
		published("600777.SH", "*ST新潮", 1, 34260, 34260, 0),
	}}
	k := compareKind("up", pub, derived)
	if k.Published != 6 || k.Derived != 7 || !slices.Equal(k.Both, []string{"000004.SZ", "600198.SH", "600225.SH", "603316.SH"}) ||
		!slices.Equal(k.OnlyPublished, []string{"600130.SH"}) || !slices.Equal(k.OnlyDerived, []string{"002001.SZ"}) {
		t.Fatalf("membership %+v", k)
	}
	if len(k.Excluded) != 2 || k.Excluded[0].Why != "star" || k.Excluded[0].Published || k.Excluded[1].Why != "st" || !k.Excluded[1].Published {
		t.Errorf("excluded %+v", k.Excluded)
	}
	by := map[string]FieldComparison{}
	for _, f := range k.Fields {
		by[f.Field] = f
	}
	want := map[string][4]int{ // compared, disagree, below, missing
		"price": {4, 0, 0, 0}, "boards": {4, 1, 0, 0}, "first_seal": {3, 1, 0, 1}, "last_seal": {3, 1, 0, 1}, "opened_times": {3, 1, 1, 1},
	}
	for name, w := range want {
		f, ok := by[name]
		if got := [4]int{f.Compared, f.Disagree, f.Below, f.Missing}; !ok || got != w {
			t.Errorf("%s: compared, disagree, below, missing = %v, want %v", name, got, w)
		}
	}
	if w := by["first_seal"].Worst; len(w) != 1 || w[0].Code != "600225.SH" || w[0].Published != "09:25:01" || w[0].Derived != "09:40:00" || w[0].Off != 899 {
		t.Errorf("first_seal worst %+v", w)
	}
	if w := by["boards"].Worst; len(w) != 1 || w[0].Published != "3" || w[0].Derived != "2" || w[0].Off != -1 {
		t.Errorf("boards worst %+v", w)
	}
}
