package upstream

import (
	"errors"
	"testing"

	"mdqs/internal/market"
)

// Fuzz targets of the hot-rank, news and financial-report parsers. Seeds:
// the fixtures below plus testdata/fuzz/<FuzzName>/. Run one with e.g.
//   go test ./upstream -run '^$' -fuzz '^FuzzHotRank$' -fuzztime 15s

// typed fails unless err is an *Error of a real kind: a parser never
// returns an unclassified error, whatever it is fed.
func typed(t *testing.T, err error) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || e.Kind == KindNone {
		t.Fatalf("untyped error %v", err)
	}
}

func FuzzHotRank(f *testing.F) {
	for _, name := range []string{"made_emappdata_hotrank_p1.json", "emappdata_hotrank_getAllCurrentList_top3_excerpt.json",
		"emappdata_hotrank_getAllCurrentList_top3_excerpt.pydict.txt", "made_emappdata_hotrank_renamed_sc.json",
		"made_emappdata_hotrank_status_error.json", "made_emappdata_hotrank_bad_rk.json"} {
		f.Add(fixture(f, name))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		rows, err := decodeHotRank(body, &check{})
		if err != nil {
			typed(t, err)
			return
		}
		seen := map[market.Code]bool{}
		for _, r := range rows {
			if r.Rank < 1 || len(r.Code.Symbol) != 6 || seen[r.Code] {
				t.Fatalf("row %+v", r)
			}
			if r.Code.Exchange != market.SH && r.Code.Exchange != market.SZ && r.Code.Exchange != market.BJ {
				t.Fatalf("exchange of %+v", r)
			}
			seen[r.Code] = true
		}
	})
}

func FuzzNewsFeeds(f *testing.F) {
	for _, name := range []string{"made_em_fastnews_page.json", "made_em_fastnews_end.json", "made_em_notices_page.json",
		"made_cls_telegraph.json", "made_cls_errno_sign.json", "made_em_fastnews_renamed_showtime.json"} {
		f.Add(fixture(f, name))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		verify := func(items []NewsItem, err error) {
			if err != nil {
				typed(t, err)
				return
			}
			for _, it := range items {
				if it.UID == "" || it.Title == "" || it.Published.IsZero() || it.Tags == nil || it.Codes == nil {
					t.Fatalf("item %+v", it)
				}
				for _, c := range it.Codes {
					if market.Classify(c) != market.TypeStock {
						t.Fatalf("related code %v is not a stock", c)
					}
				}
			}
		}
		items, _, err := decodeFastNews(body, &check{})
		verify(items, err)
		items, err = decodeNotices(body, &check{})
		verify(items, err)
		items, _, err = decodeCLS(body, &check{})
		verify(items, err)
	})
}

func FuzzFinance(f *testing.F) {
	for _, name := range []string{"made_datacenter_yjbb_2020Q2_p1.json", "made_datacenter_yjbb_2020Q2_p2.json",
		"made_datacenter_empty_9201.json", "made_datacenter_bad_report_9501.json", "made_datacenter_yjbb_renamed_income.json",
		"made_datacenter_yjbb_2020Q2_p1_truncated.json"} {
		f.Add(fixture(f, name))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		rows, pages, err := decodeFinance(body, &check{})
		if err != nil {
			typed(t, err)
			return
		}
		if pages < 0 {
			t.Fatalf("pages %d", pages)
		}
		for _, r := range rows {
			if !isQuarterEnd(r.Period) || market.Classify(r.Code) != market.TypeStock {
				t.Fatalf("row %+v", r)
			}
			if _, err := market.ParseDay(r.Period.String()); err != nil {
				t.Fatalf("period %v: %v", r.Period, err)
			}
		}
	})
}
