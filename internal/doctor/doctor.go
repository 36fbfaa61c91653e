// Package doctor checks in one go what makes a first live start of mdqs
// fail, and says how to fix each thing: the configuration, the port, the
// store, the terminal folder, the upstreams, the clock and the service
// (mdqs doctor). It only looks: nothing is created, migrated or written,
// and every upstream is asked one small request, all at once, each with a
// short timeout.
package doctor

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"mdqs/db"
	"mdqs/internal/config"
	"mdqs/internal/market"
)

// Status is a check's verdict.
type Status string

const (
	OK   Status = "ok"
	Warn Status = "warn" // a start works, but something is missing or will not work as expected
	Fail Status = "fail" // a start fails, or serves nothing of use, until it is fixed
	Skip Status = "skip" // not checked (nothing to check in this mode, or an earlier failure)
)

// Check is one thing looked at: what was found and, unless it is fine,
// how to fix it, in plain words; Details are the same facts for scripts.
type Check struct {
	Name    string `json:"name"`
	Status  Status `json:"status"`
	Found   string `json:"found"`
	Fix     string `json:"fix,omitempty"`
	Details any    `json:"details,omitempty"`
}

// Report is every check of one run, in a fixed order.
type Report struct {
	Mode   string    `json:"mode"` // demo or live
	Config string    `json:"config"`
	At     time.Time `json:"at"`
	// TookMS is how long the run took (the upstreams' timeouts run side
	// by side, so a dead network costs one timeout, not one each).
	TookMS   float64 `json:"took_ms"`
	Blocking int     `json:"blocking"` // checks that failed
	Warnings int     `json:"warnings"`
	Checks   []Check `json:"checks"`
}

// Failed names the checks that failed.
func (r Report) Failed() []string {
	var out []string
	for _, c := range r.Checks {
		if c.Status == Fail {
			out = append(out, c.Name)
		}
	}
	return out
}

// Deps is what a run looks at and with.
type Deps struct {
	Config config.Config
	// ConfigFrom is where the configuration was read ("config.toml",
	// "built-in defaults"); ConfigErr, when set, is why it could not be,
	// and the other checks are skipped.
	ConfigFrom string
	ConfigErr  error
	// FromEnvironment names the MDQS_* variables that set keys over the
	// file (a _FILE twin by its own name).
	FromEnvironment []string
	Clock           market.Clock
	Calendar        *market.Calendar
	// HTTP asks the upstreams and the port's holder; nil: a client per
	// upstream with its configured proxy.
	HTTP *http.Client
	// Timeout bounds each upstream's answer (and the port holder's); 0:
	// DefaultTimeout. An upstream's own shorter timeout wins.
	Timeout time.Duration
	// SQLiteSchema is schema.sql, for this binary's schema version.
	SQLiteSchema string
	// Drives are where to look for a terminal install; nil: none.
	Drives func() []Drive
	// Service is the state of the installed service; nil: not checked.
	Service func() ServiceState
}

// DefaultTimeout bounds each upstream's answer: long enough for a slow
// but working link, short enough that a run with no network is brief.
const DefaultTimeout = 5 * time.Second

// Run makes every check, side by side where they do not depend on each
// other, and reports them in a fixed order.
func Run(ctx context.Context, d Deps) Report {
	start := time.Now()
	if d.Clock == nil {
		d.Clock = market.SystemClock{}
	}
	if d.Calendar == nil {
		d.Calendar = market.DefaultCalendar()
	}
	if d.Timeout <= 0 {
		d.Timeout = DefaultTimeout
	}
	rep := Report{Mode: modeName(d.Config), Config: d.ConfigFrom, At: d.Clock.Now().In(market.Shanghai())}
	if d.ConfigErr != nil {
		rep.Mode = ""
		rep.Checks = []Check{{Name: "configuration", Status: Fail, Found: d.ConfigErr.Error(),
			Fix: "correct the key the message names in the configuration file (mdqs config defaults prints every key with its default), then run mdqs doctor again"}}
		for _, name := range []string{"port", "store", "terminal", "upstreams", "clock", "service"} {
			rep.Checks = append(rep.Checks, Check{Name: name, Status: Skip, Found: "not checked: the configuration must load first"})
		}
		return rep.tally(start)
	}

	var (
		wg                    sync.WaitGroup
		port, store, terminal Check
		service               = Check{Name: "service", Status: Skip, Found: "not checked"}
		probes                = probesFor(d.Config)
		answers               = make([]answer, len(probes))
	)
	run := func(fn func()) {
		wg.Add(1)
		go func() { defer wg.Done(); fn() }()
	}
	run(func() { port = checkPort(ctx, d) })
	run(func() { store = checkStore(ctx, d) })
	run(func() { terminal = checkTerminal(d) })
	if d.Service != nil {
		run(func() { service = checkService(d.Service()) })
	}
	for i, p := range probes {
		run(func() { answers[i] = ask(ctx, d, p) })
	}
	wg.Wait()

	rep.Checks = append(rep.Checks, checkConfig(d), port, store, terminal)
	for i, p := range probes {
		rep.Checks = append(rep.Checks, upstreamCheck(d.Config, p, answers[i]))
	}
	if len(probes) == 0 {
		rep.Checks = append(rep.Checks, Check{Name: "upstreams", Status: Skip, Found: "none configured"})
	}
	rep.Checks = append(rep.Checks, checkClock(d, probes, answers), service)
	return rep.tally(start)
}

func (r Report) tally(start time.Time) Report {
	r.Blocking, r.Warnings = 0, 0
	for _, c := range r.Checks {
		switch c.Status {
		case Fail:
			r.Blocking++
		case Warn:
			r.Warnings++
		}
	}
	r.TookMS = float64(time.Since(start).Microseconds()) / 1000
	return r
}

func modeName(cfg config.Config) string {
	if cfg.DemoMode() {
		return "demo"
	}
	return "live"
}

// checkConfig says which configuration applies and what it asks for.
func checkConfig(d Deps) Check {
	c := d.Config
	found := fmt.Sprintf("%s: %s mode (sources.default = %q), listening on %s, store %s", d.ConfigFrom, modeName(c), c.Sources.Default,
		c.Server.Addr, db.Redact(c.DBPath()))
	if len(d.FromEnvironment) > 0 {
		found += "; from the environment: " + strings.Join(d.FromEnvironment, ", ")
	}
	ck := Check{Name: "configuration", Status: OK, Found: found,
		Details: map[string]any{"from": d.ConfigFrom, "mode": modeName(c), "sources": c.Sources.Default, "addr": c.Server.Addr, "db": db.Redact(c.DBPath()),
			"environment": d.FromEnvironment}}
	if c.DemoMode() {
		ck.Found += "; demo mode serves the built-in market offline"
		ck.Fix = "to go live: in config.toml set [sources] default = \"push2\" and [tdx] dir = your terminal's folder (mdqs config defaults > config.toml writes one to edit)"
	}
	return ck
}

// WriteText writes the report for a person: one line a check, the fix
// under it, then the tally.
func WriteText(w io.Writer, r Report) {
	fmt.Fprintf(w, "mdqs doctor, %s (Asia/Shanghai)\n\n", r.At.Format("2006-01-02 15:04:05"))
	for _, c := range r.Checks {
		label := string(c.Status)
		if c.Status == Fail {
			label = "FAIL"
		}
		fmt.Fprintf(w, "%-5s %-29s %s\n", label, c.Name, c.Found)
		if c.Fix != "" && c.Status != OK && c.Status != Skip {
			fmt.Fprintf(w, "%-35s fix: %s\n", "", c.Fix)
		} else if c.Fix != "" {
			fmt.Fprintf(w, "%-35s %s\n", "", c.Fix)
		}
	}
	fmt.Fprintln(w)
	switch {
	case r.Blocking > 0:
		fmt.Fprintf(w, "%d blocking problem(s) (%s), %d warning(s); checked in %.1f s\n", r.Blocking, strings.Join(r.Failed(), ", "), r.Warnings, r.TookMS/1000)
	default:
		fmt.Fprintf(w, "nothing blocks a start, %d warning(s); checked in %.1f s\n", r.Warnings, r.TookMS/1000)
	}
}
