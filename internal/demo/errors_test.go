package demo

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"mdqs/internal/market"
	"mdqs/internal/upstream"
)

func TestErrors(t *testing.T) {
	m, _ := newMarket(t, smallConfig(31), at(20261120, 16, 0, 0))
	ctx := context.Background()
	unknown := market.MustCode("600519.SZ") // right symbol, wrong exchange
	good := market.MustCode("600519.SH")
	kind := func(err error) market.Kind { return market.KindOf(err) }
	checks := []struct {
		name string
		err  error
		want market.Kind
	}{
		{"Klines unknown code", func() error { _, err := m.Klines(ctx, unknown, market.Daily, 0, 0); return err }(), market.KindNotFound},
		{"Trends unknown code", func() error { _, err := m.Trends(ctx, market.MustCode("999999"), 1); return err }(), market.KindNotFound},
		{"FundFlowDaily unknown code", func() error { _, err := m.FundFlowDaily(ctx, unknown, 0, 0); return err }(), market.KindNotFound},
		{"bad freq", func() error { _, err := m.Klines(ctx, good, market.Freq("15m"), 0, 0); return err }(), market.KindInvalid},
		{"from after to", func() error { _, err := m.Klines(ctx, good, market.Daily, 20261120, 20261101); return err }(), market.KindInvalid},
		{"not a date", func() error { _, err := m.Klines(ctx, good, market.Daily, 20261340, 0); return err }(), market.KindInvalid},
		{"too many minute days", func() error { _, err := m.Klines(ctx, good, market.Min1, 20240101, 20261120); return err }(), market.KindInvalid},
		{"ndays 0", func() error { _, err := m.Trends(ctx, good, 0); return err }(), market.KindInvalid},
		{"ndays 6", func() error { _, err := m.Trends(ctx, good, 6); return err }(), market.KindInvalid},
		{"sector kind", func() error { _, err := m.Sectors(ctx, market.SectorKind("region")); return err }(), market.KindInvalid},
		{"before history", func() error { _, err := m.SectorsAt(ctx, market.Industry, at(20141231, 15, 0, 0)); return err }(), market.KindInvalid},
		{"zero time", func() error { _, err := m.QuotesAt(ctx, time.Time{}); return err }(), market.KindInvalid},
		{"after horizon", func() error { _, err := m.QuotesAt(ctx, at(20400102, 10, 0, 0)); return err }(), market.KindInvalid},
		{"year 36812", func() error { _, err := m.QuotesAt(ctx, time.Unix(1<<40, 0)); return err }(), market.KindInvalid},
		{"negative year", func() error { _, err := m.SectorsAt(ctx, market.Concept, time.Unix(-1<<40, 0)); return err }(), market.KindInvalid},
	}
	for _, c := range checks {
		if got := kind(c.err); got != c.want || c.err == nil {
			t.Errorf("%s: %v (kind %v), want kind %v", c.name, c.err, got, c.want)
		}
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	for name, err := range map[string]error{
		"Sectors": func() error { _, err := m.Sectors(canceled, market.Industry); return err }(),
		"Quotes":  func() error { _, err := m.Quotes(canceled); return err }(),
		"Klines":  func() error { _, err := m.Klines(canceled, good, market.Daily, 0, 0); return err }(),
		"Trends":  func() error { _, err := m.Trends(canceled, good, 1); return err }(),
	} {
		if !errors.Is(err, context.Canceled) || !errors.Is(err, upstream.KindCanceled) {
			t.Errorf("%s with a canceled context: %v, want context.Canceled as upstream.KindCanceled", name, err)
		}
	}
	var nilCtx context.Context
	if _, err := m.Quotes(nilCtx); err != nil {
		t.Errorf("Quotes(nil context): %v", err)
	}
	if st := m.Status(); st.Source != Source || st.Calls < int64(len(checks)) || st.Failures == 0 {
		t.Errorf("Status = %+v", st)
	}
	if m.Boards(market.SectorKind("region")) != nil {
		t.Error("Boards of an unknown kind is not nil")
	}
}

// Several goroutines asking for the same and different things get what a
// lone caller gets (run with -race).
func TestConcurrentUse(t *testing.T) {
	now := at(20261120, 16, 0, 0)
	ref, _ := newMarket(t, smallConfig(32), now)
	m, _ := newMarket(t, smallConfig(32), now)
	instants := []time.Time{at(20261119, 10, 0, 0), at(20261120, 14, 12, 0), at(20250102, 11, 0, 0), at(20261120, 9, 0, 0)}
	codes := sample(ref, 211)
	want := map[int]string{}
	for i, ts := range instants {
		want[i] = fingerprint(t, sectorsAt(t, ref, market.Concept, ts)) + fingerprint(t, quotesAt(t, ref, ts))
	}
	wantK := map[market.Code]string{}
	for _, c := range codes {
		wantK[c] = fingerprint(t, klines(t, ref, c, market.Daily, 20240101, 0))
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; r < 3; r++ {
				i := (g + r) % len(instants)
				s, err := m.SectorsAt(context.Background(), market.Concept, instants[i])
				q, err2 := m.QuotesAt(context.Background(), instants[i])
				if err != nil || err2 != nil || fingerprint(t, s)+fingerprint(t, q) != want[i] {
					errs <- "snapshot differs under concurrency"
				}
				c := codes[(g+r)%len(codes)]
				k, err := m.Klines(context.Background(), c, market.Daily, 20240101, 0)
				if err != nil || fingerprint(t, k) != wantK[c] {
					errs <- "klines differ under concurrency"
				}
				if _, err := m.Trends(context.Background(), c, 2); err != nil {
					errs <- err.Error()
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}
