package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"mdqs/internal/market"
)

// float32Noise reports a number written with the digits of a float32
// widened to float64, instead of the digits the float32 holds: v, or v
// scaled by a power of ten (a value per 10 shares divided by 10), is
// within two float64 ulps of a float32 with a fractional part whose
// shortest decimal (what the terminal wrote, to its seven significant
// digits) is another number. -8.477999877929687 is the float32 nearest
// 84.78 divided by 10; 1.5800000429153442 is the float32 nearest 1.58.
// A value computed in float64 from decimals lies that close to a float32
// only by chance (about 2^-29 per scale), and a float32 whose decimal is
// exact (0.5, 12.25) is written as that decimal: neither is noise.
//
// Integers are left out: every float32 from 2^24 up is one, and so is a
// timestamp or a yuan count that happens to be a multiple of its spacing
// (1795397760 is a float32), so an integer alone cannot tell. The amounts
// that come from the terminal's files, most of them integers, are held to
// fileAmount instead.
func float32Noise(lit string) (decimal string, noise bool) {
	v, err := strconv.ParseFloat(lit, 64)
	if err != nil || v == math.Trunc(v) || math.IsInf(v, 0) {
		return "", false
	}
	if _, ok := fileAmount(lit); ok && float64(float32(v)) == v {
		return "", false // a float32 written as its decimal (114646.125 is one)
	}
	for k := -2; k <= 4; k++ {
		w := v * math.Pow10(k)
		x := float64(float32(w))
		if x == math.Trunc(x) || math.Abs(x-w) > 2*ulp(w) {
			continue
		}
		s := strconv.FormatFloat(x, 'g', -1, 32)
		if d, _ := strconv.ParseFloat(s, 64); d != x {
			return strconv.FormatFloat(d/math.Pow10(k), 'g', -1, 64), true
		}
	}
	return "", false
}

// ulp is the spacing of float64 values at x.
func ulp(x float64) float64 {
	x = math.Abs(x)
	return math.Nextafter(x, math.Inf(1)) - x
}

// fileAmount reports whether an amount read from a terminal file is
// written as its float32's shortest decimal: 3831534800 for the float32
// 3831534848, which holds 3.8315348e9 and not ten digits.
func fileAmount(lit string) (decimal string, ok bool) {
	v, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		return "", false
	}
	s := strconv.FormatFloat(float64(float32(v)), 'g', -1, 32)
	d, _ := strconv.ParseFloat(s, 64)
	return s, d == v
}

func TestFloat32Noise(t *testing.T) {
	for _, tt := range []struct {
		lit              string
		noise, asDecimal bool
	}{
		{"-8.477999877929687", true, false},  // corporate_actions' ex_offset of 84.78 per 10
		{"1.5800000429153442", true, false},  // a gbbq cash amount widened
		{"119640.6796875", true, false},      // a .day amount widened: the float32 holds 119640.68
		{"119640.68", false, true},           // written as it was
		{"3831534848", false, false},         // an integer: only fileAmount can tell
		{"3831534800", false, true},          // the float32's decimal
		{"-8.478", false, true},              // the decimal: not a float32
		{"256647", false, true},              // a float32 whose decimal is exact
		{"0.5", false, true},                 // likewise
		{"0.7692307692307692", false, false}, // 1/1.3 computed in float64
		{"2.20128", false, true},             // a gbbq value with five decimals, written as stored
		{"10.166131", false, true},           // seven significant digits
		{"0", false, true},                   // zero
		{"123456789.12", false, false},       // a float64 amount
	} {
		if _, got := float32Noise(tt.lit); got != tt.noise {
			t.Errorf("float32Noise(%s) = %v, want %v", tt.lit, got, tt.noise)
		}
		if _, got := fileAmount(tt.lit); got != tt.asDecimal {
			t.Errorf("fileAmount(%s) = %v, want %v", tt.lit, got, tt.asDecimal)
		}
	}
}

// noisyNumbers walks every number of a JSON answer and lists those that
// carry float32 noise, with their JSON path; with fileAmounts, also every
// "amount" that is not written as its float32's decimal. n counts the
// numbers walked.
func noisyNumbers(raw []byte, fileAmounts bool) (noisy []string, n int, err error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, 0, err
	}
	var out []string
	var walk func(path, key string, v any)
	walk = func(path, key string, v any) {
		switch x := v.(type) {
		case json.Number:
			n++
			if d, ok := float32Noise(x.String()); ok {
				out = append(out, fmt.Sprintf("%s = %s (the float32 holds %s)", path, x, d))
			} else if d, ok := fileAmount(x.String()); fileAmounts && key == "amount" && !ok {
				out = append(out, fmt.Sprintf("%s = %s (the file's float32 holds %s)", path, x, d))
			}
		case []any:
			for i, e := range x {
				walk(path+"["+strconv.Itoa(i)+"]", key, e)
			}
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(path+"."+k, k, x[k])
			}
		}
	}
	walk("", "", v)
	return out, n, nil
}

// sweepTarget is a request the noise sweep must see answered 200.
type sweepTarget struct {
	path string
	// fileAmounts: the answer's amounts are read from the terminal's files.
	fileAmounts bool
}

// noiseSweep sends every GET of the OpenAPI document (values as
// openAPIGets takes them) and the extra targets, and fails on every number
// that carries float32 noise. The extra targets must answer 200, so that
// the sweep cannot pass by reading only errors; allFiles says every
// amount of the server comes from the terminal's files.
func noiseSweep(t *testing.T, s *server, values map[string]string, extra []sweepTarget, allFiles bool) {
	t.Helper()
	c := s.client()
	var targets []sweepTarget
	for _, ep := range openAPIGets(t, s.raw, values) {
		// The document's examples are the demo's answers, not the files'.
		files := allFiles && ep.path != "/v1/openapi.json"
		targets = append(targets, sweepTarget{path: ep.target, fileAmounts: files})
	}
	must := len(targets)
	for _, tg := range extra {
		tg.fileAmounts = tg.fileAmounts || allFiles
		targets = append(targets, tg)
	}
	answered, numbers := 0, 0
	for i, tg := range targets {
		resp, err := c.Do(context.Background(), "GET", tg.path, nil)
		if err != nil {
			t.Errorf("GET %s: %v", tg.path, err)
			continue
		}
		if resp.Status != 200 {
			if i >= must {
				t.Errorf("GET %s = %d, want 200: %.300s", tg.path, resp.Status, resp.Body)
			}
			continue
		}
		if !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
			continue
		}
		answered++
		noisy, n, err := noisyNumbers(resp.Body, tg.fileAmounts)
		numbers += n
		if err != nil {
			t.Errorf("GET %s: %v", tg.path, err)
			continue
		}
		if len(noisy) > 0 {
			t.Errorf("GET %s: %d numbers carry float32 noise, e.g.\n  %s", tg.path, len(noisy), strings.Join(noisy[:min(len(noisy), 5)], "\n  "))
		}
	}
	t.Logf("%d of %d answers were 200: %d numbers walked", answered, len(targets), numbers)
}

// TestNoAnswerCarriesFloat32Noise walks every number of every GET route on
// the demo market and on a store fed by real terminal files: none may be a
// float32 written with the digits of its float64 widening. The terminal
// stores gbbq values, .day and minute amounts as float32; the demo writes
// its terminal folder in the same formats. Before, corporate_actions
// answered ex_offset -8.477999877929687 for 84.78 per 10, and every
// amount read from a .day file had digits its float32 does not hold
// (119640.6796875 for 119640.68, 3831534848 for 3.8315348e9).
func TestNoAnswerCarriesFloat32Noise(t *testing.T) {
	t.Run("demo", func(t *testing.T) {
		at := time.Date(2026, 11, 23, 16, 0, 0, 0, market.Shanghai()) // Monday after the close
		s := startServerWith(t, serveOptions{config: smallDemo, at: at})
		waitReadyz(t, s)
		code := demoDividendCode(t, s)
		rng := "&freq=D&start=2026-01-05&end=2026-11-23"
		values := map[string]string{
			"code": code, "codes": code + ",000001.SH", "freq": "D", "mode": "qfq", "start": "2026-10-26", "end": "2026-11-23",
			"date": "2026-11-20", "id": "x", "/v1/api/bars/minute time": "10:30", "/v1/api/news/view id": "1",
			"/v1/api/block/members block": "沪深300", "/v1/api/hot_rank/detail stock_code": code,
			"/v1/api/index/members code": "000300.SH", "/v1/api/index/changes code": "000300.SH",
			"/v1/api/lhb date": "2026-11-20", "/v1/api/lhb/seats name": "机构专用",
		}
		extra := []sweepTarget{
			{path: "/v1/api/corporate_actions?code=" + code},
			{path: "/v1/api/kline/adjusted?code=" + code + rng + "&mode=qfq&fields=close,amount,adj_factor,adj_offset"},
			{path: "/v1/api/kline/adjusted?code=" + code + rng + "&mode=hfq"},
			{path: "/v1/api/kline?code=000001.SH&source=tdx" + rng, fileAmounts: true},
			{path: "/v1/api/kline?code=" + code + "&source=tdx" + rng, fileAmounts: true},
			{path: "/v1/api/minutes?code=000001.SH", fileAmounts: true},
			{path: "/v1/api/minutes?code=000300.SH&freq=5m", fileAmounts: true},
			{path: "/v1/api/limit_pool?date=2026-11-20&kind=up"},
			{path: "/v1/api/limit_pool?date=2026-11-20&kind=broken"},
		}
		noiseSweep(t, s, values, extra, false)
	})
	t.Run("terminal", func(t *testing.T) {
		dir := t.TempDir()
		realTerminal(t, dir)
		at := time.Date(2026, 11, 20, 16, 0, 0, 0, market.Shanghai())
		// Nothing upstream answers: a second bounds the answers that wait
		// for it (they are 503s, and not what this test reads).
		cfg := liveOffline + "\n[demo]\nlive_client = true\n[server]\nupstream_wait = \"1s\"\n[tdx]\ndir = " + strconv.Quote(dir) + "\n"
		s := startServerWith(t, serveOptions{config: cfg, at: at})
		c := s.client()
		// Wait for the import: the gbbq first, then the bar files.
		waitFor(t, 60*time.Second, func() bool {
			status, body := s.get(t, c, "/v1/api/corporate_actions?code=000001.SZ")
			data, _ := body["data"].(map[string]any)
			if n, _ := data["count"].(float64); status != 200 || n == 0 {
				return false
			}
			status, _ = s.get(t, c, "/v1/api/kline?code=204001.SH&freq=D&start=2023-02-24&end=2023-02-24")
			return status == 200
		})
		// A refresh waits for the one under way: then every file is in.
		if resp, err := c.Do(context.Background(), "POST", "/v1/api/refresh", nil); err != nil || resp.Status != 200 {
			t.Fatalf("refresh: %v %v", err, resp)
		}
		values := map[string]string{
			"code": "000001.SZ", "codes": "000001.SZ,600000.SH", "freq": "D", "mode": "hfq", "start": "2022-11-01", "end": "2023-02-24",
			"date": "2023-02-24", "id": "x", "/v1/api/bars/minute time": "10:30", "/v1/api/news/view id": "1",
			"/v1/api/block/members block": "煤炭", "/v1/api/hot_rank/detail stock_code": "000001",
			"/v1/api/index/members code": "000300.SH", "/v1/api/index/changes code": "000300.SH",
			"/v1/api/lhb date": "2023-02-24", "/v1/api/lhb/seats name": "机构专用",
		}
		// Within every file's days (the store would ask the unreachable
		// upstream for the others).
		rng := "&freq=D&start=2022-05-05&end=2023-02-24"
		var extra []sweepTarget
		for _, code := range []string{"000001.SZ", "600000.SH", "600519.SH", "300750.SZ", "000002.SZ", "002709.SZ"} {
			extra = append(extra, sweepTarget{path: "/v1/api/corporate_actions?code=" + code},
				sweepTarget{path: "/v1/api/kline/adjusted?code=" + code + rng + "&mode=qfq&fields=close,amount,adj_factor,adj_offset"},
				sweepTarget{path: "/v1/api/kline/adjusted?code=" + code + rng + "&mode=hfq"})
		}
		for _, code := range []string{"600000.SH", "688001.SH", "510300.SH", "113011.SH", "204001.SH", "880001.SH", "900901.SH",
			"300750.SZ", "159915.SZ", "123002.SZ", "399001.SZ", "200011.SZ", "160105.SZ", "131810.SZ", "430047.BJ", "899050.BJ", "000001.SH"} {
			extra = append(extra, sweepTarget{path: "/v1/api/kline?code=" + code + "&source=tdx&freq=D&start=2000-01-01&end=2023-02-24"})
			// These two take 3 s from the store here (an upstream is tried
			// first), past the second this server waits.
			if code != "899050.BJ" && code != "000001.SH" {
				extra = append(extra, sweepTarget{path: "/v1/api/kline?code=" + code + rng})
			}
		}
		extra = append(extra, sweepTarget{path: "/v1/api/kline?code=000001.SH&freq=D&start=2016-01-04&end=2021-05-14"},
			sweepTarget{path: "/v1/api/minutes?code=688001.SH&start=2021-04-23&end=2021-05-20"},
			sweepTarget{path: "/v1/api/minutes?code=688001.SH&freq=5m&day=2021-06-01"},
			sweepTarget{path: "/v1/api/kline?code=688001.SH&freq=1m&start=2021-06-01&end=2021-06-03"},
			sweepTarget{path: "/v1/api/meta/stocks?page_size=200"}, sweepTarget{path: "/v1/api/meta/stocks?market=SZ&page_size=200"})
		noiseSweep(t, s, values, extra, true)

		// The units the same answers carry (part 4's other half): a
		// repo's volume in pieces of 100 yuan lent, whatever lot its file
		// counts, and SZ 395xxx typed as the statistics they are.
		for _, code := range []string{"204001.SH", "131810.SZ"} {
			status, body := s.get(t, c, "/v1/api/kline?code="+code+rng)
			data, _ := body["data"].(map[string]any)
			rows, _ := data["rows"].([]any)
			if status != 200 || len(rows) < 100 {
				t.Fatalf("%s: %d, %d rows", code, status, len(rows))
			}
			for _, r := range rows {
				row := r.(map[string]any)
				amount, _ := row["amount"].(float64)
				volume, _ := row["volume"].(float64)
				if volume > 0 && math.Abs(amount/volume-100) > 0.01 {
					t.Fatalf("%s %v: amount %v / volume %v = %v, want 100 yuan a piece", code, row["trade_date"], amount, volume, amount/volume)
				}
			}
		}
		status, body := s.get(t, c, "/v1/api/meta/stocks?type=statistic&keyword=395001")
		data, _ := body["data"].(map[string]any)
		if items, _ := data["items"].([]any); status != 200 || len(items) != 1 || items[0].(map[string]any)["code"] != "395001.SZ" {
			t.Errorf("395001.SZ among the statistics: %d %v", status, body)
		}
	})
}

// demoDividendCode is a stock of the demo market with a cash dividend.
func demoDividendCode(t *testing.T, s *server) string {
	t.Helper()
	c := s.client()
	status, body := s.get(t, c, "/v1/api/meta/stocks?type=stock&page_size=200")
	data, _ := body["data"].(map[string]any)
	items, _ := data["items"].([]any)
	if status != 200 || len(items) == 0 {
		t.Fatalf("demo stocks: %d %v", status, body)
	}
	for _, it := range items {
		code, _ := it.(map[string]any)["code"].(string)
		status, body := s.get(t, c, "/v1/api/corporate_actions?code="+code)
		data, _ := body["data"].(map[string]any)
		acts, _ := data["items"].([]any)
		for _, a := range acts {
			if v, _ := a.(map[string]any)["values"].(map[string]any); status == 200 && v["cash_per_10"] != nil && v["cash_per_10"] != 0.0 {
				return code
			}
		}
	}
	t.Fatal("no demo stock has a cash dividend")
	return ""
}

// realTerminal lays out a terminal folder of real files, the project's
// copies of them (internal/tdx/testdata and internal/adjust/testdata): the
// 2023 install's .day files of every security type, the 2022 install's
// index and minute files and block files, the 2020 install's names and
// user blocks, and a real gbbq.
func realTerminal(t *testing.T, dir string) {
	t.Helper()
	copyTree := func(from, to string) {
		t.Helper()
		err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(from, p)
			dst := filepath.Join(to, rel)
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(dst, b, 0o644)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	tdxData := filepath.Join("internal", "tdx", "testdata")
	adjustData := filepath.Join("internal", "adjust", "testdata")
	copyTree(filepath.Join(tdxData, "mootdx-2022"), dir)
	copyTree(filepath.Join(tdxData, "ginkgo-2020"), dir)
	copyTree(filepath.Join(tdxData, "redmine-2023"), dir)
	for _, f := range []string{"sh600519.day", "sh603777.day", "sz000001.day", "sz000002.day", "sz002709.day"} {
		copyTree(filepath.Join(adjustData, "raw", "redmine-2023", f), filepath.Join(dir, "vipdoc", f[:2], "lday", f))
	}
	copyTree(filepath.Join(adjustData, "gbbq", "gbbq_rustdx_20211109_subset"), filepath.Join(dir, "T0002", "hq_cache", "gbbq"))
}
