package doctor

import (
	"testing"
	"time"

	"mdqs/internal/config"
	"mdqs/internal/market"
	"mdqs/internal/tdx"
)

// BenchmarkTerminalCheck is the terminal check on a folder of a real
// install's size: 5,000 daily files of a year's bars each (a 2023 install
// has some 4,200 Shanghai and 2,900 Shenzhen ones), listed and stat'ed,
// and the last record of the 20 latest written read.
func BenchmarkTerminalCheck(b *testing.B) {
	dir := b.TempDir()
	if _, err := tdx.GenerateVipdoc(dir, 5000, 250, 1); err != nil {
		b.Fatal(err)
	}
	cfg := config.Default()
	cfg.Sources.Default, cfg.TDX.Dir = "push2", dir
	d := Deps{Config: cfg, Clock: market.NewFixedClock(time.Date(2026, 1, 5, 16, 0, 0, 0, market.Shanghai())), Calendar: market.DefaultCalendar()}
	for b.Loop() {
		if ck := checkTerminal(d); ck.Status == Fail {
			b.Fatal(ck.Found)
		}
	}
}
