package market

import (
	"fmt"
	"strconv"
	"sync"
	"time"
	// The market runs on Asia/Shanghai whatever the host's zone; Windows hosts
	// carry no zoneinfo, so the database is compiled in.
	_ "time/tzdata"
)

var shanghai = sync.OnceValue(func() *time.Location {
	loc, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		// China has kept UTC+8 without daylight saving since 1991.
		return time.FixedZone("CST", 8*3600)
	}
	return loc
})

// Shanghai is the zone of all market logic.
func Shanghai() *time.Location { return shanghai() }

// Day is a calendar date in Asia/Shanghai, held as YYYYMMDD so that days
// compare and sort as integers and store compactly.
type Day int32

// DayOf is the Shanghai date of an instant.
func DayOf(t time.Time) Day {
	y, m, d := t.In(Shanghai()).Date()
	return NewDay(y, m, d)
}

func NewDay(y int, m time.Month, d int) Day { return Day(y*10000 + int(m)*100 + d) }

// ParseDay accepts YYYYMMDD and YYYY-MM-DD and rejects impossible dates.
func ParseDay(s string) (Day, error) {
	layout := "20060102"
	if len(s) == 10 {
		layout = "2006-01-02"
	}
	if len(s) != 8 && len(s) != 10 {
		return 0, fmt.Errorf("date %q: want YYYYMMDD or YYYY-MM-DD", s)
	}
	t, err := time.ParseInLocation(layout, s, Shanghai())
	if err != nil {
		return 0, fmt.Errorf("date %q: want YYYYMMDD or YYYY-MM-DD", s)
	}
	return DayOf(t), nil
}

func (d Day) Year() int         { return int(d) / 10000 }
func (d Day) Month() time.Month { return time.Month(int(d) / 100 % 100) }
func (d Day) Dom() int          { return int(d) % 100 }

// Start is 00:00 of the day in Shanghai.
func (d Day) Start() time.Time {
	return time.Date(d.Year(), d.Month(), d.Dom(), 0, 0, 0, 0, Shanghai())
}

// At is the instant hh:mm:ss of the day in Shanghai.
func (d Day) At(hh, mm, ss int) time.Time {
	return time.Date(d.Year(), d.Month(), d.Dom(), hh, mm, ss, 0, Shanghai())
}

func (d Day) AddDays(n int) Day { return DayFromEpochDays(d.EpochDays() + int64(n)) }

// Weekday: 1970-01-01 was a Thursday.
func (d Day) Weekday() time.Weekday { return time.Weekday(((d.EpochDays()+4)%7 + 7) % 7) }

// String is YYYY-MM-DD.
func (d Day) String() string {
	var b [10]byte
	return string(d.AppendTo(b[:0]))
}

func (d Day) slowString() string {
	return fmt.Sprintf("%04d-%02d-%02d", d.Year(), int(d.Month()), d.Dom())
}

// Compact is YYYYMMDD, the spec's form of the ranking's day.
func (d Day) Compact() string { return strconv.Itoa(int(d)) }

// FormatTime renders an instant as the spec's local "YYYY-MM-DD HH:MM:SS".
func FormatTime(t time.Time) string {
	var b [19]byte
	return string(AppendTime(b[:0], t.Unix()))
}

// ParseTime reads "YYYY-MM-DD HH:MM:SS" as Shanghai local time.
func ParseTime(s string) (time.Time, error) {
	return time.ParseInLocation(time.DateTime, s, Shanghai())
}
