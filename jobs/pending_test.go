package jobs_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"mdqs/internal/market"
	"mdqs/jobs"
)

// Pending follows a start-up job's first runs: not run yet, then its
// failure, then nil once a run succeeds; a job that does not run at start,
// or is unknown, is never pending.
func TestPendingFollowsTheFirstRuns(t *testing.T) {
	clock := market.NewFixedClock(time.Date(2026, 11, 23, 10, 0, 0, 0, market.Shanghai()))
	r := jobs.NewRunner(nil, clock)
	fail := true
	r.Add(jobs.Job{Name: "eod", About: "the end-of-day derivation", Interval: time.Minute, RunAtStart: true,
		Run: func(context.Context) error {
			if fail {
				return errors.New("source down")
			}
			return nil
		}})
	r.Add(jobs.Job{Name: "tick", Interval: time.Minute, Run: func(context.Context) error { return nil }})
	detail := func(err error) string {
		var e *market.Error
		if !errors.As(err, &e) || e.Kind != market.KindUnavailable || e.RetryAfter <= 0 {
			t.Fatalf("Pending = %v, want an unavailable error with a retry time", err)
		}
		return e.Detail
	}
	if got := detail(r.Pending("eod")); got != "starting up: the end-of-day derivation has not run yet" {
		t.Errorf("before its first run Pending = %q", got)
	}
	if got := r.Pendings(); len(got) != 1 || got[0].Name != "eod" || got[0].Failed {
		t.Errorf("Pendings = %+v, want eod, not failed", got)
	}
	ctx := context.Background()
	r.RunNow(ctx, "eod")
	if got := detail(r.Pending("eod")); !strings.Contains(got, "failed (source down)") || !r.Failed("eod") {
		t.Errorf("after a failed first run Pending = %q, Failed = %v", got, r.Failed("eod"))
	}
	fail = false
	r.RunNow(ctx, "eod")
	if err := r.Pending("eod"); err != nil || r.Failed("eod") {
		t.Errorf("after a run that succeeded Pending = %v, Failed = %v, want nil, false", err, r.Failed("eod"))
	}
	fail = true
	r.RunNow(ctx, "eod")
	if err := r.Pending("eod"); err != nil {
		t.Errorf("a later failure made the job pending again: %v", err)
	}
	if r.Pending("tick") != nil || r.Pending("nope") != nil {
		t.Error("a job that does not run at start, or an unknown one, is pending")
	}
}
