package market

import (
	"bufio"
	_ "embed"
	"fmt"
	"io"
	"strings"
	"time"
)

//go:embed holidays.csv
var builtinHolidays string

// Calendar knows which days the A-share exchanges trade: weekdays that are not
// exchange holidays. Holidays are published a year at a time, so the calendar
// also knows which years it covers; outside them it falls back to "every
// weekday trades" and says so through Covers, never guessing holidays.
type Calendar struct {
	holidays map[Day]string
	years    map[int]bool
}

// DefaultCalendar is the calendar compiled into the binary.
func DefaultCalendar() *Calendar {
	c, err := ParseHolidays(strings.NewReader(builtinHolidays))
	if err != nil {
		panic("market: embedded holidays.csv is invalid: " + err.Error())
	}
	return c
}

// ParseHolidays reads "YYYY-MM-DD,name" lines (the name is informational).
// Every year that appears is taken as complete. Blank lines and # comments
// are skipped.
func ParseHolidays(r io.Reader) (*Calendar, error) {
	c := &Calendar{holidays: map[Day]string{}, years: map[int]bool{}}
	return c, c.merge(r)
}

// Merge adds the years of another holiday list (a newly published year, say).
// A year present in r replaces what the calendar had for it.
func (c *Calendar) Merge(r io.Reader) error {
	add, err := ParseHolidays(r)
	if err != nil {
		return err
	}
	c.mergeFrom(add)
	return nil
}

// Add merges holidays given as day -> name, with Merge's rules.
func (c *Calendar) Add(days map[Day]string) error {
	add := &Calendar{holidays: map[Day]string{}, years: map[int]bool{}}
	for d, name := range days {
		if wd := d.Weekday(); wd == time.Saturday || wd == time.Sunday {
			return fmt.Errorf("holiday %s is a weekend day; list weekday closures only", d)
		}
		add.holidays[d] = name
		add.years[d.Year()] = true
	}
	c.mergeFrom(add)
	return nil
}

func (c *Calendar) mergeFrom(add *Calendar) {
	for d := range c.holidays {
		if add.years[d.Year()] {
			delete(c.holidays, d)
		}
	}
	for d, name := range add.holidays {
		c.holidays[d] = name
	}
	for y := range add.years {
		c.years[y] = true
	}
}

func (c *Calendar) merge(r io.Reader) error {
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		date, name, _ := strings.Cut(text, ",")
		d, err := ParseDay(strings.TrimSpace(date))
		if err != nil {
			return fmt.Errorf("holidays line %d: %w", line, err)
		}
		if wd := d.Weekday(); wd == time.Saturday || wd == time.Sunday {
			return fmt.Errorf("holidays line %d: %s is a weekend day; list weekday closures only", line, d)
		}
		c.holidays[d] = strings.TrimSpace(name)
		c.years[d.Year()] = true
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("holidays: %w", err)
	}
	return nil
}

// Covers reports whether the calendar has the exchange schedule of d's year.
func (c *Calendar) Covers(d Day) bool { return c.years[d.Year()] }

// Years lists the covered years in ascending order.
func (c *Calendar) Years() (first, last int) {
	for y := range c.years {
		if first == 0 || y < first {
			first = y
		}
		if y > last {
			last = y
		}
	}
	return first, last
}

// IsTradingDay: a weekday that is not a holiday.
func (c *Calendar) IsTradingDay(d Day) bool {
	if wd := d.Weekday(); wd == time.Saturday || wd == time.Sunday {
		return false
	}
	_, closed := c.holidays[d]
	return !closed
}

// OnOrBefore is d when it trades, else the trading day before it.
func (c *Calendar) OnOrBefore(d Day) Day {
	for !c.IsTradingDay(d) {
		d = d.AddDays(-1)
	}
	return d
}

// Prev is the last trading day strictly before d.
func (c *Calendar) Prev(d Day) Day { return c.OnOrBefore(d.AddDays(-1)) }

// Next is the first trading day strictly after d.
func (c *Calendar) Next(d Day) Day {
	d = d.AddDays(1)
	for !c.IsTradingDay(d) {
		d = d.AddDays(1)
	}
	return d
}

// Between lists the trading days in [from, to], ascending.
func (c *Calendar) Between(from, to Day) []Day {
	var out []Day
	for d := from; d <= to; d = d.AddDays(1) {
		if c.IsTradingDay(d) {
			out = append(out, d)
		}
	}
	return out
}

// Count is len(Between(from, to)) without building the list: the K-line
// path sizes every request by it.
func (c *Calendar) Count(from, to Day) int {
	n := 0
	for z, end := from.EpochDays(), to.EpochDays(); z <= end; z++ {
		if wd := ((z+4)%7 + 7) % 7; wd == int64(time.Saturday) || wd == int64(time.Sunday) {
			continue
		}
		if _, closed := c.holidays[DayFromEpochDays(z)]; !closed {
			n++
		}
	}
	return n
}

// Holidays returns a copy of the holiday list.
func (c *Calendar) Holidays() map[Day]string {
	out := make(map[Day]string, len(c.holidays))
	for d, n := range c.holidays {
		out[d] = n
	}
	return out
}
