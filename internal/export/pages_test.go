package export

import (
	"bytes"
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"mdqs/internal/market"
)

// fakeAnswers answers two days of a pool-like endpoint: nulls, numbers of
// both kinds, a nested value, a day without rows and a day that is 404.
func fakeAnswers(_ context.Context, target string) (Page, error) {
	switch {
	case strings.Contains(target, "date=2026-11-19"):
		return Page{}, market.Errorf(market.KindNotFound, "no list of 2026-11-19")
	case strings.Contains(target, "date=2026-11-20"):
		return Page{Columns: []string{"code", "close", "boards", "sealed", "tags"}, Meta: map[string]string{"source": "store"},
			Rows: [][]Cell{
				{{"600519.SH", String}, {"1504.5", Number}, {"2", Number}, {"true", Bool}, {`["a","b"]`, Nested}},
				{{"000001.SZ", String}, {"", Null}, {"1", Number}, {"false", Bool}, {"", Null}},
			}}, nil
	}
	return Page{Columns: []string{"code"}, Meta: map[string]string{"source": "demo"}}, nil
}

var poolColumns = []Column{{"code", TypeString}, {"close", TypeDouble}, {"boards", TypeInt64}, {"sealed", TypeBool}, {"tags", TypeJSON}}

func poolQueries() []Query {
	return []Query{
		{Day: 20261119, Target: "/x?date=2026-11-19&kind=up", Lead: []string{"up"}},
		{Day: 20261120, Target: "/x?date=2026-11-20&kind=up", Lead: []string{"up"}},
		{Day: 20261123, Target: "/x?date=2026-11-23&kind=up", Lead: []string{"up"}},
	}
}

// TestPagesExport writes a dataset answered a day at a time: the day and
// the query's lead columns in front, the answer's columns by name, nulls
// as nulls, types kept in Parquet, a day left out where Skip says so, and
// the sources and range in the footer.
func TestPagesExport(t *testing.T) {
	clock := market.NewFixedClock(now)
	var skipped []market.Day
	d := PageDeps{Answer: fakeAnswers, Clock: clock, Skipped: func(q Query, err error) { skipped = append(skipped, q.Day) }}
	for _, format := range []Format{CSV, Parquet} {
		t.Run(string(format), func(t *testing.T) {
			skipped = nil
			out := filepath.Join(t.TempDir(), "pools."+string(format))
			sum, err := ExportPages(context.Background(), d, PagesRequest{What: "limit-pools", Lead: []Column{{"kind", TypeString}},
				Columns: poolColumns, Queries: poolQueries(), Format: format, Out: out,
				Skip: func(err error) bool { return market.KindOf(err) == market.KindNotFound }})
			if err != nil {
				t.Fatal(err)
			}
			if sum.Rows != 2 || sum.Series != 1 || len(skipped) != 1 || skipped[0] != 20261119 ||
				strings.Join(sum.Sources, ",") != "demo,store" {
				t.Errorf("summary %+v, skipped %v", sum, skipped)
			}
			if format == CSV {
				b, _ := os.ReadFile(out)
				records, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
				if err != nil {
					t.Fatal(err)
				}
				want := [][]string{
					{"trade_date", "kind", "code", "close", "boards", "sealed", "tags"},
					{"2026-11-20", "up", "600519.SH", "1504.5", "2", "true", `["a","b"]`},
					{"2026-11-20", "up", "000001.SZ", "", "1", "false", ""},
				}
				if len(records) != len(want) {
					t.Fatalf("%q", records)
				}
				for i := range want {
					if !equalStrings(records[i], want[i]) {
						t.Errorf("record %d = %q, want %q", i, records[i], want[i])
					}
				}
				return
			}
			type row struct {
				TradeDate *int32   `parquet:"trade_date,optional,date"`
				Kind      *string  `parquet:"kind,optional"`
				Code      *string  `parquet:"code,optional"`
				Close     *float64 `parquet:"close,optional"`
				Boards    *int64   `parquet:"boards,optional"`
				Sealed    *bool    `parquet:"sealed,optional"`
				Tags      *string  `parquet:"tags,optional"`
			}
			rows, err := parquet.ReadFile[row](out)
			if err != nil {
				t.Fatal(err)
			}
			day := int32(market.Day(20261120).EpochDays())
			if len(rows) != 2 || *rows[0].TradeDate != day || *rows[0].Kind != "up" || *rows[0].Close != 1504.5 || *rows[0].Boards != 2 ||
				!*rows[0].Sealed || *rows[0].Tags != `["a","b"]` || rows[1].Close != nil || *rows[1].Boards != 1 || *rows[1].Sealed || rows[1].Tags != nil {
				t.Errorf("rows read back: %+v", rows)
			}
			pf := openParquet(t, out)
			var names []string
			for _, f := range pf.Schema().Fields() {
				names = append(names, f.Name())
			}
			if got := strings.Join(names, ","); got != "trade_date,kind,code,close,boards,sealed,tags" {
				t.Errorf("columns %s", got)
			}
			for k, v := range map[string]string{"source": "demo,store", "what": "limit-pools", "from": "2026-11-20", "to": "2026-11-20",
				"rows": "2", "api": "/x", "as_of": "2026-11-24 20:00:00"} {
				if got, _ := pf.Lookup(k); got != v {
					t.Errorf("metadata %s = %q, want %q", k, got, v)
				}
			}
		})
	}
}

// TestPagesRefuseAnUnknownColumn: a column the document does not name
// fails the export (and leaves no file) rather than being dropped.
func TestPagesRefuseAnUnknownColumn(t *testing.T) {
	out := filepath.Join(t.TempDir(), "pools.csv")
	_, err := ExportPages(context.Background(), PageDeps{Answer: fakeAnswers, Clock: market.NewFixedClock(now)}, PagesRequest{
		Columns: poolColumns[:2], Queries: poolQueries()[1:], Format: CSV, Out: out})
	if err == nil || !strings.Contains(err.Error(), `"boards"`) {
		t.Fatalf("err = %v, want the column named", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed export left %s", out)
	}
	// Without Skip, a day's failure fails the export.
	if _, err := ExportPages(context.Background(), PageDeps{Answer: fakeAnswers, Clock: market.NewFixedClock(now)}, PagesRequest{
		Columns: poolColumns, Queries: poolQueries(), Format: CSV, Out: out}); market.KindOf(err) != market.KindNotFound {
		t.Errorf("err = %v, want the day's 404", err)
	}
}
