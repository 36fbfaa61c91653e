package cli

import (
	"context"
	"fmt"
	"os"
	"slices"
	"time"

	"mdqs/db"
	"mdqs/internal/market"
)

// Calendar runs `mdqs calendar import FILE` and `mdqs calendar status`.
//
// The built-in holiday list covers the years the exchanges had published
// when the binary was built. A newly published year is imported into the
// database (or named in market.holidays_file); a running server reads it at
// its next start.
func Calendar(ctx context.Context, env Env, args []string) error {
	sub, rest, err := subcommand(env, "calendar", args, calendarUsage)
	if sub == "" {
		return err
	}
	switch sub {
	case "import":
		fs := newFlags("calendar import", "calendar import [-db FILE] [-config FILE] [-create] FILE   (lines YYYY-MM-DD,name; weekdays only)", env)
		sf := addStoreFlags(fs, true)
		if err := ParseFlags(env, fs, rest); err != nil {
			return err
		}
		if fs.NArg() != 1 {
			fs.Usage()
			return Usage("mdqs calendar import: want one FILE")
		}
		f, err := os.Open(fs.Arg(0))
		if err != nil {
			return Usage("mdqs calendar import: %v", err)
		}
		defer f.Close()
		parsed, err := market.ParseHolidays(f)
		if err != nil {
			return &ExitError{Code: 1, Err: err}
		}
		var list []db.Holiday
		for d, name := range parsed.Holidays() {
			list = append(list, db.Holiday{Day: d, Name: name})
		}
		if len(list) == 0 {
			return &ExitError{Code: 1, Err: fmt.Errorf("%s lists no holidays", fs.Arg(0))}
		}
		store, err := openStore(ctx, env, sf, sf.creating(), missingHint)
		if err != nil {
			return err
		}
		defer store.Close()
		if err := store.SaveHolidays(ctx, list); err != nil {
			return err
		}
		first, last := parsed.Years()
		fmt.Fprintf(env.Stdout, "imported %d holidays for %d-%d; restart the server to use them\n", len(list), first, last)
		return nil
	case "status":
		fs := newFlags("calendar status", "calendar status [-db FILE] [-config FILE]", env)
		sf := addStoreFlags(fs, false)
		if err := ParseFlags(env, fs, rest); err != nil {
			return err
		}
		if fs.NArg() != 0 {
			return Usage("mdqs calendar status: unexpected argument %q", fs.Arg(0))
		}
		store, err := openStore(ctx, env, sf, false, "give -db with the server's database file, or run the command in its folder")
		if err != nil {
			return err
		}
		defer store.Close()
		builtin := market.DefaultCalendar()
		first, last := builtin.Years()
		fmt.Fprintf(env.Stdout, "built-in holidays: %d-%d\n", first, last)
		imported, err := store.Holidays(ctx)
		if err != nil {
			return err
		}
		var years []int
		for _, h := range imported {
			if !slices.Contains(years, h.Day.Year()) {
				years = append(years, h.Day.Year())
			}
		}
		fmt.Fprintf(env.Stdout, "imported years: %v\n", years)
		today := market.DayOf(time.Now())
		cal := builtin
		byDay := map[market.Day]string{}
		for _, h := range imported {
			byDay[h.Day] = h.Name
		}
		if err := cal.Add(byDay); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "today %v: trading day %v, schedule known %v\n", today, cal.IsTradingDay(today), cal.Covers(today))
		return nil
	}
	return Usage("mdqs calendar: unknown command %q (want import or status)", sub)
}

const calendarUsage = `usage: mdqs calendar COMMAND [flags]

commands:
  import FILE  store a newly published year of exchange holidays
               (lines YYYY-MM-DD,name; weekdays only); the server reads
               imported years at its next start
  status       show the years the calendar covers, and today

Run "mdqs calendar COMMAND -h" for a command's flags.`
