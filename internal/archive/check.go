package archive

import (
	"context"
	"fmt"
	"math"
	"time"

	"mdqs/db"
	"mdqs/internal/market"
)

// notChecked is the reason of a day kept without its day bar to check
// against: archived, not flagged, and saying so.
const notChecked = "not checked: no daily bar of the day is stored"

// sumTolerance is how far the minutes' volume and amount may add up from
// the day bar's (0.5 %): the sources round each minute's amount.
const sumTolerance = 0.005

// check holds a day's bars (want of them: 240 one-minute, 48 five-minute)
// to the day's bar: every price inside the day's low..high, volumes and
// amounts adding up to the day's. It returns the first problem ("" when
// none): a day that fails is kept and flagged, never dropped.
func (s *Service) check(ctx context.Context, code market.Code, d market.Day, min1 []market.Bar, want int) (string, error) {
	if n := len(min1); n != want {
		return fmt.Sprintf("%d bars, a full day has %d", n, want), nil
	}
	day, err := s.store.Bars(ctx, db.BarQuery{Code: code, Freq: market.Daily, FromTS: d.Start().Unix(), ToTS: d.At(23, 59, 59).Unix()})
	if err != nil {
		return "", err
	}
	if len(day) == 0 {
		return notChecked, nil
	}
	return checkAgainst(day[0], min1), nil
}

// checkAgainst is check's rules against a day bar.
func checkAgainst(day market.Bar, min1 []market.Bar) string {
	const eps = 1e-6 // prices are exact in ten-thousandths
	var vol int64
	var amount float64
	for _, b := range min1 {
		at := time.Unix(b.TS, 0).In(market.Shanghai()).Format("15:04")
		if b.High > day.High+eps {
			return fmt.Sprintf("the %s bar's high %v is above the day's high %v", at, b.High, day.High)
		}
		if b.Low < day.Low-eps {
			return fmt.Sprintf("the %s bar's low %v is below the day's low %v", at, b.Low, day.Low)
		}
		vol += b.Volume
		amount += b.Amount
	}
	if off := relative(float64(vol), float64(day.Volume)); off > sumTolerance {
		return fmt.Sprintf("the minutes' volume %d is %.2f%% off the day's %d", vol, off*100, day.Volume)
	}
	if off := relative(amount, day.Amount); market.IsKnown(day.Amount) && off > sumTolerance {
		return fmt.Sprintf("the minutes' amount %.0f is %.2f%% off the day's %.0f", amount, off*100, day.Amount)
	}
	return ""
}

func relative(got, want float64) float64 {
	if want == 0 {
		if got == 0 {
			return 0
		}
		return math.Inf(1)
	}
	return math.Abs(got-want) / math.Abs(want)
}

// keptAt is the frequency of a record's bars (its freq: 1, or 5 for a
// day kept at 5 minutes only) and how many a whole day has.
func keptAt(freq int) (market.Freq, int) {
	if freq == 5 {
		return market.Min5, 48
	}
	return market.Min1, 240
}

// judge checks a kept day's bars (want of them) and sets rec's status and
// reason from the outcome, counting it in rep: flagged when a check
// failed, archived when it passed or could not be made.
func (s *Service) judge(ctx context.Context, rec *db.ArchiveDay, bars []market.Bar, want int, rep *Report) error {
	problem, err := s.check(ctx, rec.Code, rec.Day, bars, want)
	if err != nil {
		return err
	}
	rec.Status, rec.Reason = db.ArchiveArchived, problem
	if problem != "" && problem != notChecked {
		rec.Status = db.ArchiveFlagged
		rep.Flagged++
	} else {
		rep.Archived++
	}
	return nil
}
