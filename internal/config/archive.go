package config

import "mdqs/internal/market"

// Archive configures the minute archive (issue 30): every trading day
// after the close, the leader keeps the day's 1-minute bars of every
// security of the day's universe before the sources drop them.
type Archive struct {
	// Enabled runs the archive job; off, nothing is fetched.
	Enabled bool `toml:"enabled"`
	// At is when a day is due (HH:MM, Shanghai): after the close and the
	// security master's record of the day (record-securities, 15:05).
	At string `toml:"at"`
	// Rate caps the archive's requests a second (with jitter) to the live
	// source; the demo market has no cap. One report saw a 20-hour ban
	// after about 45,000 requests an hour (12.5 a second).
	Rate float64 `toml:"rate"`
	// Window is how many trading days back the source still has 1-minute
	// bars (trends2: 5); the job catches up every one not archived.
	Window int `toml:"window"`
	// FiveMinuteDays is how far before that window the 5-minute K-lines
	// still reach (klt=5: about two months), in trading days: a day missed
	// there is kept as 5-minute bars; older ones are recorded as gaps.
	FiveMinuteDays int `toml:"five_minute_days"`
}

func (c Config) validateArchive(bad func(key, format string, args ...any)) {
	a := c.Archive
	if _, err := market.ParseTimeOfDay(a.At); err != nil {
		bad("archive.at", "want HH:MM, got %q", a.At)
	}
	if !(a.Rate > 0 && a.Rate <= 10) {
		bad("archive.rate", "want more than 0 and at most 10 requests a second, got %v", a.Rate)
	}
	if a.FiveMinuteDays < 0 || a.FiveMinuteDays > 60 {
		bad("archive.five_minute_days", "want 0..60 trading days (klt=5 reaches about two months back), got %d", a.FiveMinuteDays)
	}
	if a.Window < 1 || a.Window > 5 {
		bad("archive.window", "want 1..5 (trends2 gives at most the last 5 trading days), got %d", a.Window)
	}
}
