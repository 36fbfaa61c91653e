package demo

import (
	"context"
	"testing"

	"mdqs/internal/market"
)

// Minutes shaped to add up to a daily bar drawn first still look like a
// market: each minute's average price inside its own range, a day's range
// of a few percent, and no one-minute spikes to reach the day's extremes.
func TestMinutesAreRealistic(t *testing.T) {
	m, _ := newMarket(t, DefaultConfig(), at(20261123, 16, 0, 0))
	ctx := context.Background()
	var amplitude float64
	var days, minutes, inRange, spikes int
	for i, s := range m.Stocks() {
		if i%50 != 0 {
			continue
		}
		daily := klines(t, m, s.Code, market.Daily, 20261102, 20261120)
		for _, b := range daily {
			amplitude += (b.High - b.Low) / b.Close * 100
			days++
		}
		for _, d := range []market.Day{20160315, 20261120} {
			one, err := m.Klines(ctx, s.Code, market.Min1, d, d)
			if err != nil {
				t.Fatal(err)
			}
			for k, b := range one {
				if b.Volume == 0 {
					continue
				}
				minutes++
				if avg := b.Amount / float64(b.Volume); avg >= b.Low-0.01 && avg <= b.High+0.01 {
					inRange++
				}
				if (b.High-b.Low)/b.Close > 0.02 && k < 239 { // the close's call auction may jump
					spikes++
				}
			}
		}
	}
	if mean := amplitude / float64(days); mean < 2 || mean > 5 {
		t.Errorf("mean daily range %.2f %% of the close, want 2..5", mean)
	}
	if share := float64(inRange) / float64(minutes); share < 0.995 {
		t.Errorf("%d of %d minutes have their average price inside their range", inRange, minutes)
	}
	if spikes > minutes/2000 {
		t.Errorf("%d of %d minutes span more than 2 %%", spikes, minutes)
	}
}
