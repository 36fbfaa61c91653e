package upstream

import (
	"strings"
	"testing"

	"mdqs/internal/market"
)

// Fuzz targets of the exchanges' delisted-list parsers. Seeds: the
// fixtures below plus testdata/fuzz/<FuzzName>/. Run one with e.g.
//   go test ./internal/upstream -run '^$' -fuzz '^FuzzSZSEDelisted$' -fuzztime 15s

// delistedPageOK holds what any page a parser accepts must satisfy.
func delistedPageOK(t *testing.T, p listPage[Delisting], source string, ex market.Exchange) {
	t.Helper()
	if p.pages < 0 || p.records < 0 {
		t.Fatalf("counts %d pages, %d records", p.pages, p.records)
	}
	for _, r := range p.rows {
		if r.Source != source || r.Code.Exchange != ex || len(r.Code.Symbol) != 6 {
			t.Fatalf("row %+v", r)
		}
		for _, c := range r.Code.Symbol {
			if c < '0' || c > '9' {
				t.Fatalf("code %+v", r)
			}
		}
		for _, d := range []market.Day{r.Listed, r.Delisted} {
			if d != 0 && (d.Year() < 1000 || d.Month() < 1 || d.Month() > 12 || d.Dom() < 1 || d.Dom() > 31) {
				t.Fatalf("day %v of %+v", d, r)
			}
		}
	}
}

func FuzzSZSEDelisted(f *testing.F) {
	for _, name := range []string{"made_szse_delisted_p1.json", "made_szse_delisted_p2.json", "made_szse_delisted_renamed_zzrq.json",
		"made_szse_delisted_bad_date.json", "made_szse_delisted_tab1_only.json", "made_szse_delisted_object.json"} {
		f.Add(fixture(f, name))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		p, err := decodeSZSEDelisted(body, &check{})
		if err != nil {
			typed(t, err)
			return
		}
		delistedPageOK(t, p, SourceSZSE, market.SZ)
	})
}

func FuzzSSEDelisted(f *testing.F) {
	for _, name := range []string{"made_sse_delisted_type1_p1.json", "made_sse_delisted_type8_p1.json", "made_sse_delisted_pagehelp_only.json",
		"made_sse_delisted_success_false.json", "made_sse_delisted_renamed_delist_date.json", "made_sse_delisted_type8_empty.json"} {
		f.Add(fixture(f, name))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		p, err := decodeSSEDelisted(body, &check{})
		if err != nil {
			typed(t, err)
			return
		}
		delistedPageOK(t, p, SourceSSE, market.SH)
	})
}

func FuzzSZSENameChanges(f *testing.F) {
	for _, name := range []string{"made_szse_renames_p1.json", "made_szse_renames_p2.json", "made_szse_renames_renamed_bghzqjc.json",
		"made_szse_renames_bad_date.json", "made_szse_renames_tab1_only.json", "made_szse_delisted_p1.json"} {
		f.Add(fixture(f, name))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		p, err := decodeSZSENameChanges(body, &check{})
		if err != nil {
			typed(t, err)
			return
		}
		if p.pages < 0 || p.records < 0 {
			t.Fatalf("counts %d pages, %d records", p.pages, p.records)
		}
		for _, r := range p.rows {
			if r.Source != SourceSZSE || r.Code.Exchange != market.SZ || len(r.Code.Symbol) != 6 || strings.Trim(r.Code.Symbol, "0123456789") != "" {
				t.Fatalf("row %+v", r)
			}
			if d := r.Day; d != 0 && (d.Year() < 1000 || d.Month() < 1 || d.Month() > 12 || d.Dom() < 1 || d.Dom() > 31) {
				t.Fatalf("day %v of %+v", d, r)
			}
			// Names come out folded: no edge spaces, no runs of them.
			for _, n := range []string{r.Before, r.After} {
				if n != strings.Join(strings.Fields(n), " ") {
					t.Fatalf("name %q of %+v", n, r)
				}
			}
		}
	})
}
