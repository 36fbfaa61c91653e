package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/internal/checkout"
	"mdqs/internal/market"
)

func TestPercentile(t *testing.T) {
	var d []time.Duration
	for i := 1; i <= 100; i++ {
		d = append(d, time.Duration(i)*time.Millisecond)
	}
	for _, c := range []struct {
		p    float64
		want time.Duration
	}{{50, 50 * time.Millisecond}, {90, 90 * time.Millisecond}, {99, 99 * time.Millisecond}, {100, 100 * time.Millisecond}, {0, time.Millisecond}} {
		if got := percentile(d, c.p); got != c.want {
			t.Errorf("p%v = %v, want %v", c.p, got, c.want)
		}
	}
	if percentile(nil, 50) != 0 || percentile(d[:1], 99) != time.Millisecond {
		t.Error("percentile of 0 or 1 samples")
	}
	if median([]time.Duration{3, 1, 2}) != 2 {
		t.Error("median")
	}
}

func TestTxChunksKeepsBatchesWhole(t *testing.T) {
	var batches []db.BarBatch
	for _, n := range []int{30, 30, 50, 10, 5} {
		batches = append(batches, db.BarBatch{Bars: make([]market.Bar, n)})
	}
	got := txChunks(batches, 60)
	var sizes []int
	for _, c := range got {
		n := 0
		for _, b := range c {
			n += len(b.Bars)
		}
		sizes = append(sizes, n)
	}
	if len(sizes) != 3 || sizes[0] != 60 || sizes[1] != 60 || sizes[2] != 5 {
		t.Fatalf("chunks of %v", sizes)
	}
	if got := txChunks(batches, 1); len(got) != len(batches) {
		t.Fatalf("one batch per transaction: %d chunks", len(got))
	}
}

func TestBarsDDLIsTheSchemas(t *testing.T) {
	schema, err := checkout.SQLiteSchema()
	if err != nil {
		t.Fatal(err)
	}
	ddl, err := barsDDL(schema)
	if err != nil || !strings.HasPrefix(ddl, "CREATE TABLE bars (") || !strings.HasSuffix(ddl, "WITHOUT ROWID;") {
		t.Fatalf("bars DDL %q, %v", ddl, err)
	}
	if _, err := barsDDL("CREATE TABLE other (x);"); err == nil {
		t.Fatal("a schema without bars gave DDL")
	}
}

func TestWriteCSVMatchesTheStore(t *testing.T) {
	code := market.MustCode("600519.SH")
	d := market.Day(20261120)
	bar := market.Bar{Day: d, TS: d.At(15, 0, 0).Unix(), Open: 1480.5, High: 1490.01, Low: 1470, Close: 1488.88,
		Volume: 2_500_000, Amount: 3.7e9, TurnoverRate: 0.2, LargeOrderNet: -1.5e7}
	path := filepath.Join(t.TempDir(), "bars.csv")
	if err := writeCSV(path, []db.BarBatch{{Code: code, Source: "demo", Bars: []market.Bar{bar}}}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	want := "600519.SH,1440,1795158000,20261120,14805000,14900100,14700000,14888800,2500000,3.7e+09,0.2,-1.5e+07,demo\n"
	if string(b) != want {
		t.Fatalf("csv\n got %q\nwant %q", b, want)
	}
	bar.TurnoverRate = market.Unknown()
	if err := writeCSV(path, []db.BarBatch{{Code: code, Source: "demo", Bars: []market.Bar{bar}}}); err == nil {
		t.Fatal("an unknown measure went into the CSV")
	}
}

func TestUsage(t *testing.T) {
	var out, errOut bytes.Buffer
	for _, args := range [][]string{{}, {"bogus"}, {"gen"}, {"gen", "-db", "x", "-stocks", "10"}, {"kline"}, {"ingest", "-rows", "0"}, {"gen", "-db", "x", "extra"}} {
		err := run(context.Background(), args, &out, &errOut)
		if !errors.As(err, new(usageError)) {
			t.Errorf("%q: %v; want a usage error", args, err)
		}
	}
	if err := run(context.Background(), []string{"kline", "-h"}, &out, &errOut); !strings.Contains(errOut.String(), "usage: mdqsbench kline") || err == nil {
		t.Errorf("kline -h: %v\n%s", err, errOut.String())
	}
}
