package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"mdqs/internal/adjust"
	"mdqs/internal/market"
	"mdqs/internal/tdx"
)

// at is an instant in Shanghai.
func at(d market.Day, hh, mm, ss int) time.Time { return d.At(hh, mm, ss) }

// smallConfig keeps most tests fast; the default scale has its own tests.
func smallConfig(seed int64) Config {
	return Config{Seed: seed, Stocks: 600, Industries: 30, Concepts: 60}
}

func newMarket(t testing.TB, cfg Config, now time.Time) (*Market, *market.FixedClock) {
	t.Helper()
	clk := market.NewFixedClock(now)
	m, err := New(cfg, clk)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return m, clk
}

func sectorsAt(t testing.TB, m *Market, kind market.SectorKind, ts time.Time) market.SectorSnapshot {
	t.Helper()
	s, err := m.SectorsAt(context.Background(), kind, ts)
	if err != nil {
		t.Fatalf("SectorsAt(%s, %v): %v", kind, ts, err)
	}
	return s
}

func quotesAt(t testing.TB, m *Market, ts time.Time) []market.Quote {
	t.Helper()
	q, err := m.QuotesAt(context.Background(), ts)
	if err != nil {
		t.Fatalf("QuotesAt(%v): %v", ts, err)
	}
	return q
}

func klines(t testing.TB, m *Market, code market.Code, f market.Freq, from, to market.Day) []market.Bar {
	t.Helper()
	b, err := m.Klines(context.Background(), code, f, from, to)
	if err != nil {
		t.Fatalf("Klines(%v, %s, %v, %v): %v", code, f, from, to, err)
	}
	return b
}

// fingerprint renders a value for byte comparison. Snapshots go through
// JSON (what the service sends); quotes hold NaN, which JSON refuses, so
// they are printed with %v, which shows NaN.
func fingerprint(t testing.TB, v any) string {
	t.Helper()
	if s, ok := v.(market.SectorSnapshot); ok {
		b, err := json.Marshal(s)
		if err != nil {
			t.Errorf("marshal: %v", err) // Errorf: fingerprint runs on other goroutines too
		}
		return string(b)
	}
	return fmt.Sprintf("%+v", v)
}

// sample picks stocks of every board: well-known ones, then every n-th.
func sample(m *Market, every int) []market.Code {
	var out []market.Code
	for _, c := range []string{"600519.SH", "300750.SZ", "688981.SH", "920185.BJ", "000001.SZ"} {
		if _, ok := m.u.byCode[market.MustCode(c)]; ok {
			out = append(out, market.MustCode(c))
		}
	}
	for i := 0; i < len(m.u.stocks); i += every {
		out = append(out, m.u.stocks[i].code)
	}
	for i := range m.u.stocks {
		if m.u.stocks[i].st {
			out = append(out, m.u.stocks[i].code) // an ST stock, limit 5 %
			break
		}
	}
	return out
}

func limitsOf(m *Market, c market.Code) int32 { return m.u.stocks[m.u.byCode[c]].limit }

func toCents(x float64) int32 { return int32(x*100 + 0.5) }

// exMaps are a code's price events (gbbq category 1) by ex-date, as the
// clock's gbbq holds them.
func exMaps(m *Market, c market.Code) map[market.Day]adjust.Event {
	out := map[market.Day]adjust.Event{}
	for _, e := range m.Actions(c) {
		if e.Category == tdx.Dividend {
			out[e.Day] = adjust.Event{Day: e.Day, CashPer10: float64(e.F[0]), RightsPrice: float64(e.F[1]),
				BonusPer10: float64(e.F[2]), RightsPer10: float64(e.F[3])}
		}
	}
	return out
}

// refClose is a day's previous close as the exchange states it: the close
// before, mapped to its reference price (除权参考价) on an ex-date.
func refClose(ev map[market.Day]adjust.Event, day market.Day, prev float64) float64 {
	if e, ok := ev[day]; ok {
		return adjust.Round(e.Ex().Price(prev))
	}
	return prev
}

// quoteAlone is stock c's quote at ts as QuotesAt gives it, made from the
// stock's own session alone; the zero Quote when QuotesAt leaves the stock
// out (not listed by then). QuotesAt generates every stock's session, which
// a test that needs one stock's quote on many days would pay for each day.
// TestQuoteAloneIsQuotesAts holds the two to the same values.
func quoteAlone(t testing.TB, m *Market, c market.Code, ts time.Time) market.Quote {
	t.Helper()
	inst, err := m.resolve(ts)
	if err != nil {
		t.Fatalf("resolve(%v): %v", ts, err)
	}
	si, ok := m.u.byCode[c]
	if !ok {
		t.Fatalf("no stock %v", c)
	}
	ds, d := m.dayState(inst.idx), m.days[inst.idx]
	if ds.prev[si] <= 0 {
		return market.Quote{}
	}
	q := preOpen(ds.prev[si]) // before the auction, as snapshot keeps every listed stock
	if inst.k >= 0 {
		q = m.sessionState(new(dayPath), int(si), d, ds, m.bridgesOf(inst.idx), inst.k)
	}
	return m.quote(&m.u.stocks[si], d, q, ds.avg5[si], inst.at)
}
