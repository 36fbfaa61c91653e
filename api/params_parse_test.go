package api

import (
	"net/url"
	"slices"
	"strings"
	"testing"

	"mdqs/internal/market"
)

// parseParams replaced url.ParseQuery on every request; it must read every
// query string exactly as url.ParseQuery does: the same names, the same
// values in the same order per name, the same refusals.
func FuzzParseParams(f *testing.F) {
	for _, s := range []string{"", "top=50", "a=1&a=2&b", "a=1;b=2", "a=%zz&b=2", "x=%E4%B8%AD&y=a+b",
		"&&a=&=b&", "a==1", "%41=%42", "a=1&;&b=2", "sort=pct&sort=amount&top=3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		want, wantErr := url.ParseQuery(raw)
		ps, err := parseParams(nil, raw)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("%q: err %v, url.ParseQuery %v", raw, err, wantErr)
		}
		got := url.Values{}
		for _, p := range ps {
			got[p.name] = append(got[p.name], p.value)
		}
		if len(got) != len(want) {
			t.Fatalf("%q: %v, url.ParseQuery %v", raw, got, want)
		}
		for k, v := range want {
			if !slices.Equal(got[k], v) {
				t.Fatalf("%q: %s = %q, url.ParseQuery %q", raw, k, got[k], v)
			}
		}
	})
}

func TestQueryFirstValueAndOrder(t *testing.T) {
	x := q("top=3&sort=amount&top=9&Top=1")
	if got := x.intIn("top", 0, 1, 100); got != 3 {
		t.Errorf("top = %d, want the first value sent, 3", got)
	}
	if withoutSort(x).has("sort") || !withoutSort(x).has("top") {
		t.Error("withoutSort must drop sort and keep the rest")
	}
	// The reported parameter is the first bad one by name, whatever the order sent.
	for _, raw := range []string{"b=%01&a=%02", "a=%02&b=%01"} {
		e, _ := q(raw).Err().(*market.Error)
		if e == nil || !strings.HasPrefix(e.Detail, "a contains") {
			t.Errorf("%s: %v, want the problem of a", raw, e)
		}
	}
	if many := q("a=1&b=2&c=3&d=4&e=5&f=6&g=7&h=8&i=9&j=10"); many.str("j") != "10" || many.Err() != nil {
		t.Errorf("a query of more parameters than the inline storage lost one: %q %v", many.str("j"), many.Err())
	}
}
