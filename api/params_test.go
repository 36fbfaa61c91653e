package api

import (
	"net/http/httptest"
	"strings"
	"testing"

	"mdqs/internal/market"
)

func q(raw string) *query { return newQuery(httptest.NewRequest("GET", "/x?"+raw, nil)) }

func TestQueryHelper(t *testing.T) {
	if d, ok := q("day=20261120").day("day", ""); !ok || d != 20261120 {
		t.Errorf("day = %v %v", d, ok)
	}
	if d, ok := q("day=2026-11-20").day("day", ""); !ok || d != 20261120 {
		t.Errorf("dashed day = %v %v", d, ok)
	}
	if _, ok := q("").day("day", ""); ok {
		t.Error("absent day reported present")
	}
	for _, tt := range []struct {
		raw     string
		read    func(*query)
		message string
		detail  string
	}{
		{"day=2026-02-30", func(x *query) { x.day("day", "") }, "missing or invalid params", "day"},
		{"date=11/20", func(x *query) { x.day("date", "invalid date") }, "invalid date", "date"},
		{"day=", func(x *query) { x.day("day", "") }, "missing or invalid params", "day must be a date"},
		{"top=0", func(x *query) { x.intIn("top", 0, 1, 100) }, "missing or invalid params", "top must be an integer from 1 to 100"},
		{"top=abc", func(x *query) { x.intIn("top", 0, 1, 100) }, "missing or invalid params", `got "abc"`},
		{"top=", func(x *query) { x.intIn("top", 0, 1, 100) }, "missing or invalid params", "top"},
		{"refresh=maybe", func(x *query) { x.flag("refresh") }, "missing or invalid params", "refresh"},
		{"sort=size", func(x *query) { x.oneOf("sort", "invalid sort field", "pct", "pct", "amount") }, "invalid sort field", "sort"},
		{"min=1e999", func(x *query) { x.float("min") }, "missing or invalid params", "finite"},
		{"min=NaN", func(x *query) { x.float("min") }, "missing or invalid params", "finite"},
	} {
		x := q(tt.raw)
		tt.read(x)
		e, _ := x.Err().(*market.Error)
		if e == nil || e.Kind != market.KindInvalid || e.Message != tt.message || !strings.Contains(e.Detail, tt.detail) {
			t.Errorf("%s: Err() = %v, want %q with detail containing %q", tt.raw, x.Err(), tt.message, tt.detail)
		}
	}
	for raw, want := range map[string]bool{"refresh=1": true, "refresh=true": true, "refresh=TRUE": true, "refresh=0": false, "refresh=false": false, "": false} {
		x := q(raw)
		if got := x.flag("refresh"); got != want || x.Err() != nil {
			t.Errorf("flag(%q) = %v, %v; want %v", raw, got, x.Err(), want)
		}
	}
	x := q("top=5&top=abc")
	if got := x.intIn("top", 0, 1, 100); got != 5 || x.Err() != nil {
		t.Errorf("repeated parameter: %d, %v; want the first value", got, x.Err())
	}
	x = q("a=1&b=oops")
	x.intIn("b", 0, 0, 9)
	x.intIn("a", 0, 5, 9)
	if e := x.Err().(*market.Error); !strings.Contains(e.Detail, "b must") {
		t.Errorf("Err() = %v, want the first problem (b)", e)
	}
}
