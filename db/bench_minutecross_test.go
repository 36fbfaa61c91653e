package db_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/demo"
	"mdqs/internal/market"
)

// The stored 1-minute bars of n codes at one minute, read by one scan of
// the day's records or by a primary-key lookup a code, on a whole market's
// day (5,300 demo stocks) in SQLite: where the scan starts to pay is
// MinuteBarsAt's lookupsUpTo. The baseline reads the same codes' days
// through MinuteDays, each decoded whole.
func BenchmarkMinuteBarsAt(b *testing.B) {
	ctx := context.Background()
	s, day, codes := wholeMarketMinutes(b)
	ts := day.At(10, 30, 0).Unix()
	for _, n := range []int{50, 500, 1000, 2000, len(codes)} {
		asked := codes[:n]
		for _, scan := range []bool{true, false} {
			name := "lookups"
			if scan {
				name = "scan"
			}
			b.Run(fmt.Sprintf("codes=%d/%s", n, name), func(b *testing.B) {
				for b.Loop() {
					if _, err := s.MinuteBarsAtBy(ctx, day, ts, asked, scan); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		b.Run(fmt.Sprintf("codes=%d/baseline=minute_days_decoded", n), func(b *testing.B) {
			for b.Loop() {
				for _, c := range asked {
					if _, err := s.MinuteDays(ctx, c, market.Min1, day, day); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// wholeMarketMinutes is a SQLite store holding every demo stock's
// 1-minute bars of one day (the default market: 5,300 stocks), the day,
// and the codes in order.
func wholeMarketMinutes(b *testing.B) (*db.Store, market.Day, []market.Code) {
	b.Helper()
	ctx := context.Background()
	clock := market.NewFixedClock(time.Date(2026, 11, 27, 16, 0, 0, 0, market.Shanghai()))
	dm, err := demo.New(demo.DefaultConfig(), clock)
	if err != nil {
		b.Fatal(err)
	}
	s := dbtest.Open(b)
	const day = market.Day(20261127)
	var codes []market.Code
	var days []db.MinuteDay
	for _, st := range dm.Stocks() {
		bars, err := dm.Klines(ctx, st.Code, market.Min1, day, day)
		if err != nil {
			b.Fatal(err)
		}
		codes = append(codes, st.Code)
		if len(bars) > 0 {
			days = append(days, db.MinuteDay{Code: st.Code, Freq: market.Min1, Day: day, Bars: bars, Source: "demo"})
		}
	}
	if err := s.PutMinuteDays(ctx, days); err != nil {
		b.Fatal(err)
	}
	return s, day, codes
}
