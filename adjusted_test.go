package main

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"mdqs/internal/market"
)

// A terminal folder holding real files (000001's and 603777's .day bars
// and a real gbbq, from adjust/testdata) served live and offline: the
// adjusted answers equal the prices EastMoney and the terminal published,
// to the cent, through the whole program (import, store, endpoint).
func TestAdjustedPricesOfARealTerminalMatchThePublishedOnes(t *testing.T) {
	dir := t.TempDir()
	put := func(from, to string) {
		t.Helper()
		data, err := os.ReadFile(filepath.Join("internal", "adjust", "testdata", filepath.FromSlash(from)))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, filepath.FromSlash(to))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put("raw/redmine-2023/sz000001.day", "vipdoc/sz/lday/sz000001.day") // 2015-09 to 2023-02
	put("raw/redmine-2023/sh603777.day", "vipdoc/sh/lday/sh603777.day")
	put("gbbq/gbbq_rustdx_20211109_subset", "T0002/hq_cache/gbbq")
	at := time.Date(2026, 11, 20, 16, 0, 0, 0, market.Shanghai())
	cfg := liveOffline + "\n[demo]\nlive_client = true\n[tdx]\ndir = " + strconv.Quote(dir) + "\n"
	s := startServerWith(t, serveOptions{config: cfg, at: at})
	c := s.client()
	waitFor(t, 30*time.Second, func() bool {
		status, body := s.get(t, c, "/v1/api/corporate_actions?code=000001.SZ")
		data, _ := body["data"].(map[string]any)
		n, _ := data["count"].(float64)
		return status == 200 && n > 0
	})

	type want struct {
		code, day, path string
		open, close     string
	}
	var wants []want
	// 前复权 as of 2021-09-07, EastMoney fqt=1 through akshare.
	for _, r := range readCSV(t, "eastmoney_fqt1_qfq.csv") {
		if r["src"] == "AK-000001" && r["asof"] == "2021-09-07" && r["check"] == "match" {
			wants = append(wants, want{"000001.SZ", r["date"], "&mode=qfq&anchor=2021-09-07", r["open"], r["close"]})
		}
	}
	// 后复权 anchored at the listing: 603777 as EastMoney and the terminal
	// give it; 000001 as the terminal's method computes it (EastMoney's
	// fqt=2 level differs, see README).
	for _, r := range readCSV(t, "eastmoney_fqt2_hfq.csv") {
		code := map[string]string{"603777": "603777.SH", "000001": "000001.SZ"}[r["code"]]
		wants = append(wants, want{code, r["date"], "&mode=hfq", r["tdx_affine_open"], r["tdx_affine_close"]})
	}
	if len(wants) < 20 {
		t.Fatalf("only %d published prices to compare", len(wants))
	}
	t.Logf("%d published bars (qfq of 000001; hfq of 603777 and 000001) compared through the server", len(wants))
	for _, w := range wants {
		path := "/v1/api/kline/adjusted?code=" + w.code + "&freq=D&start=" + w.day + "&end=" + w.day + w.path
		status, body := s.get(t, c, path)
		data, _ := body["data"].(map[string]any)
		rows, _ := data["rows"].([]any)
		if status != 200 || len(rows) != 1 {
			t.Errorf("%s: %d %v", path, status, body)
			continue
		}
		row := rows[0].(map[string]any)
		for f, v := range map[string]string{"open": w.open, "close": w.close} {
			want, _ := strconv.ParseFloat(v, 64)
			if got, _ := row[f].(float64); got != want {
				t.Errorf("%s %s: %v, published %v", path, f, got, want)
			}
		}
		if data["adj_method"] != "tdx-affine" || data["actions_source"] != "tdx" {
			t.Errorf("%s: method %v, actions from %v", path, data["adj_method"], data["actions_source"])
		}
	}
}

// readCSV reads a ground-truth file of adjust/testdata as rows by column.
func readCSV(t *testing.T, name string) []map[string]string {
	t.Helper()
	f, err := os.Open(filepath.Join("internal", "adjust", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]string
	for _, rec := range recs[1:] {
		r := map[string]string{}
		for i, h := range recs[0] {
			r[strings.TrimSpace(h)] = rec[i]
		}
		out = append(out, r)
	}
	return out
}
