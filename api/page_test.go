package api

import (
	"bytes"
	"context"
	"encoding/csv"
	"net/http"
	"testing"

	"mdqs/internal/export"
	"mdqs/internal/kline"
	"mdqs/internal/market"
)

// Page is the endpoint's CSV form in-process, for mdqs export: the same
// columns and cells, the answer's provenance in its meta, and a failure's
// kind kept.
func TestPageIsTheCSVRows(t *testing.T) {
	h := newInfoHarnessAt(t, t0)
	ctx := context.Background()
	if err := h.api.Klines.EndOfDay(ctx, h.harness.demo, kline.EODConfig{SeedDays: 60}); err != nil {
		t.Fatal(err)
	}
	if err := h.api.LHB.Job(ctx); err != nil {
		t.Fatal(err)
	}
	recordIndexDays(t, h.store)
	for _, target := range []string{
		"/v1/api/boards/top50?day=2026-11-23",
		"/v1/api/lhb?date=2026-11-20",
		"/v1/api/limit_pool?date=2026-11-20&kind=up",
		"/v1/api/index/members?code=000300.SH&date=2026-11-20",
		"/v1/api/kline?code=600519.SH&freq=D&start=2026-11-02&end=2026-11-20",
	} {
		t.Run(target, func(t *testing.T) {
			page, err := h.api.Page(ctx, target)
			if err != nil {
				t.Fatal(err)
			}
			r := h.raw(http.MethodGet, withParam(target, "format=csv"), nil, h.signedHeader(h.admin, nil))
			records, err := csv.NewReader(bytes.NewReader(r.raw)).ReadAll()
			if err != nil || r.status != 200 {
				t.Fatalf("%d %v: %s", r.status, err, r.raw)
			}
			if len(page.Rows) > 0 && !equalCols(page.Columns, records[0]) {
				t.Errorf("columns %v, the CSV's %v", page.Columns, records[0])
			}
			if len(page.Rows) != len(records)-1 {
				t.Fatalf("%d rows, the CSV's %d", len(page.Rows), len(records)-1)
			}
			for i, row := range page.Rows {
				for k, c := range row {
					if c.Text != records[i+1][k] || (c.Kind == export.Null) != (c.Text == "" && c.Kind != export.String) {
						t.Errorf("row %d %s = %+v, the CSV's %q", i, page.Columns[k], c, records[i+1][k])
					}
				}
			}
			if page.Meta["source"] == "" || page.Meta["source"] != r.header.Get("X-Mdqs-Source") || page.Meta["as_of"] != r.header.Get("X-Mdqs-As-Of") {
				t.Errorf("meta %v, the CSV's source %q as of %q", page.Meta, r.header.Get("X-Mdqs-Source"), r.header.Get("X-Mdqs-As-Of"))
			}
			path := target[:bytes.IndexByte([]byte(target), '?')]
			cols, err := PageColumns(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range page.Columns {
				found := false
				for _, d := range cols {
					found = found || d.Name == c
				}
				if !found {
					t.Errorf("%s answers %s, which PageColumns lacks: %v", path, c, cols)
				}
			}
		})
	}
	if _, err := h.api.Page(ctx, "/v1/api/lhb?date=2026-11-21"); market.KindOf(err) != market.KindNotFound {
		t.Errorf("a day without a list: %v, want not found", err)
	}
	if _, err := h.api.Page(ctx, "/v1/api/whoami"); err == nil {
		t.Error("a Page of an endpoint without a list")
	}
	cols, _ := PageColumns("/v1/api/limit_pool")
	want := map[string]export.ColumnType{"code": export.TypeString, "close": export.TypeDouble, "boards": export.TypeInt64, "sealed": export.TypeBool}
	for _, c := range cols {
		if w, ok := want[c.Name]; ok && c.Type != w {
			t.Errorf("limit_pool %s: type %d, want %d", c.Name, c.Type, w)
		}
		delete(want, c.Name)
	}
	if len(want) > 0 {
		t.Errorf("PageColumns(limit_pool) lacks %v", want)
	}
}

func equalCols(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
