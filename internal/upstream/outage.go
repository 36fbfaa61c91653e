package upstream

import (
	"strings"
	"time"

	"mdqs/internal/market"
)

// Evidence is what a service over imported data knows of its source's
// health when a query finds nothing stored.
type Evidence struct {
	Sources  []string // its names in answers: emappdata, datacenter, eastmoney and eastmoney_notice, demo
	Statuses []Status // its clients (none for the demo)
	// LastError is the error of the newest import of what was asked, ""
	// when it succeeded or none ran; LastAt is when it finished.
	LastError string
	LastAt    time.Time
	// NextImport is how long until the jobs import again: the soonest
	// stored data can appear.
	NextImport time.Duration
}

// Outage is the answer of a query over imported data (hot rank, news,
// reports) that found nothing stored, when the reason is that the source
// is failing. Those services serve only what their imports stored, so an
// empty answer while the upstream is down must say so (503) instead of
// claiming the data does not exist (404).
//
// The source is failing when every one of its clients' circuit breakers
// is open, or when the newest import of what was asked failed. Otherwise
// Outage is nil and the caller answers 404. nothing says what is missing
// ("no hot rank is stored for 2026-11-23").
//
// The retry time is the breakers' next probe when they are open, since no
// request reaches the upstream before it; else the next import run.
func Outage(nothing string, now time.Time, ev Evidence) error {
	var probe time.Time
	open := len(ev.Statuses) > 0
	var last []string
	for _, st := range ev.Statuses {
		if st.Breaker == BreakerClosed {
			open = false
			continue
		}
		if probe.IsZero() || st.BreakerProbeAt.Before(probe) {
			probe = st.BreakerProbeAt
		}
		if st.LastError != "" {
			last = append(last, st.LastError)
		}
	}
	retry := ev.NextImport
	var why string
	switch {
	case open:
		why = "its circuit is open after repeated failures, so no request is sent before " + market.FormatTime(probe)
		if len(last) > 0 {
			why += "; last error: " + strings.Join(last, "; ")
		}
		retry = probe.Sub(now)
	case ev.LastError != "":
		why = "the last import, at " + market.FormatTime(ev.LastAt) + ", failed: " + ev.LastError
	default:
		return nil
	}
	return &market.Error{Kind: market.KindUnavailable, Message: market.DefaultMessage(market.KindUnavailable),
		Detail: clip(nothing+": "+failing(ev.Sources)+"; "+why, 600), RetryAfter: max(retry, time.Second)}
}

func failing(sources []string) string {
	if len(sources) == 1 {
		return "its source " + sources[0] + " is failing"
	}
	return "its sources " + strings.Join(sources, " and ") + " are failing"
}
