package tdx

import (
	"time"

	"mdqs/internal/market"
)

// Years a terminal date may fall in: the Shanghai exchange opened in
// December 1990, and a .day date word beyond 2100 can only be garbage.
const (
	minYear = 1990
	maxYear = 2100
)

func isLeap(y int) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

func daysIn(y, m int) int {
	switch m {
	case 2:
		if isLeap(y) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// dayOf checks a YYYYMMDD word and returns it as a market.Day.
func dayOf(v uint32) (market.Day, bool) {
	y, m, d := int(v/10000), int(v/100%100), int(v%100)
	if y < minYear || y > maxYear || m < 1 || m > 12 || d < 1 || d > daysIn(y, m) {
		return 0, false
	}
	return market.Day(v), true
}

// daysFromCivil counts days since 1970-01-01 (H. Hinnant's algorithm).
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}

// shanghaiUnix is the Unix time of a Shanghai wall-clock instant on day.
// China has kept UTC+8 without daylight saving since 1992, so from then on
// plain arithmetic is exact and avoids a zone lookup per record (the hot
// path of every decoder); earlier days, which did observe DST, go through
// the zone database.
func shanghaiUnix(day market.Day, secOfDay int) int64 {
	y, m, d := day.Year(), int(day.Month()), day.Dom()
	if y < 1992 {
		return time.Date(y, time.Month(m), d, 0, 0, secOfDay, 0, market.Shanghai()).Unix()
	}
	return daysFromCivil(y, m, d)*86400 + int64(secOfDay) - 8*3600
}

// dailyCloseSec is 15:00, the instant a daily bar closes (market.Bar doc).
const dailyCloseSec = 15 * 3600
