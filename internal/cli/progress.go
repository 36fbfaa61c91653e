package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// meter shows a long run's advance. On a console it is a bar redrawn in
// place (schollz/progressbar, ASCII, with \r and spaces rather than escape
// sequences, which older Windows consoles print literally); elsewhere (a
// pipe, a log file) a plain line every 10 s and at the end, since a
// redrawn bar there is one endless line.
type meter struct {
	mu      sync.Mutex
	w       io.Writer
	bar     *progressbar.ProgressBar // nil: plain lines
	every   time.Duration            // between redraws, or plain lines
	total   int
	unit    string // what total counts: files, codes, or code-windows
	what    string // what happened to the bars counted: "read" or "written"; "" counts no bars (the units are the rows copied)
	start   time.Time
	last    time.Time // of the last redraw or plain line
	done    int
	bars    int
	drawn   bool // the bar is on screen, so a note must start a line
	widest  int  // of the tails drawn: a shorter one is padded over it
	now     func() time.Time
	stopped bool
}

// newMeter starts a meter on w over total units of work; bars counts what
// happened to the bars ("read", "written"). start is when the run began,
// which may be before the total was known (an import scans first).
func newMeter(w io.Writer, total int, unit, what string, start time.Time) *meter {
	return newMeterFor(w, isTerminal(w), total, unit, what, start, time.Now)
}

func newMeterFor(w io.Writer, tty bool, total int, unit, what string, start time.Time, now func() time.Time) *meter {
	m := &meter{w: w, every: 10 * time.Second, total: total, unit: unit, what: what, start: start, last: start, now: now}
	if tty && total > 0 {
		m.every = 200 * time.Millisecond
		m.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetTheme(progressbar.ThemeASCII),
			progressbar.OptionSetWidth(24),
			progressbar.OptionShowCount(),
			// The library's own rate and ETA divide by the time since its
			// first render, microseconds at first: a run that ends at once
			// would keep "1,000,000 files/s" on screen. The tail says them.
			progressbar.OptionSetPredictTime(false),
			// No throttle of its own: update paces the redraws, and a
			// throttled Set after a Describe would show the old count.
			progressbar.OptionShowDescriptionAtLineEnd(),
			progressbar.OptionSetDescription(m.tail(0)),
		)
	}
	return m
}

// isTerminal reports a console: a file or a pipe (or NUL, a character
// device too) gets plain lines.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// update records the units done and the bars so far, and shows them when
// it is time to.
func (m *meter) update(done, bars int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.stopped {
		return
	}
	m.done, m.bars = done, bars
	now := m.now()
	if now.Sub(m.last) < m.every && done < m.total {
		return
	}
	m.last = now
	if m.bar != nil {
		m.bar.Set(done)
		m.bar.Describe(m.tail(now.Sub(m.start)))
		m.drawn = true
		return
	}
	fmt.Fprintln(m.w, m.line(now))
}

// tail follows the bar: the unit, the bars and their rate, the ETA. It is
// padded to the widest drawn so far: on Windows the library returns to the
// line's start without blanking it, and a shorter line would leave the end
// of the longer one ("ETA 0s0ms").
func (m *meter) tail(elapsed time.Duration) string {
	s := m.unit + m.barsText(m.bars, elapsed) + ", ETA " + eta(m.done, m.total, elapsed)
	if len(s) < m.widest {
		s += strings.Repeat(" ", m.widest-len(s))
	}
	m.widest = len(s)
	return s
}

// barsText is the bars: ", " then the bars, and their rate once a second
// has passed (before that, a few bars over a few microseconds read as
// billions a second). A meter counting no bars gives its units' rate.
func (m *meter) barsText(bars int, elapsed time.Duration) string {
	if m.what == "" {
		if r, ok := rate(m.done, elapsed); ok {
			return ", " + group(r) + " " + m.unit + "/s"
		}
		return ""
	}
	s := ", " + group(bars) + " bars " + m.what
	if r, ok := rate(bars, elapsed); ok {
		s += ", " + group(r) + " bars/s"
	}
	return s
}

// rate is per second, over at least one second.
func rate(n int, elapsed time.Duration) (int, bool) {
	if elapsed < time.Second {
		return 0, false
	}
	return int(float64(n) / elapsed.Seconds()), true
}

// line is the plain form, e.g.
// progress: 1,325/5,300 codes, 3,180,000 bars written, 318,000 bars/s, elapsed 10s, ETA 30s
func (m *meter) line(now time.Time) string {
	elapsed := now.Sub(m.start)
	var b strings.Builder
	fmt.Fprintf(&b, "progress: %s/%s %s%s", group(m.done), group(m.total), m.unit, m.barsText(m.bars, elapsed))
	fmt.Fprintf(&b, ", elapsed %s, ETA %s", roundDuration(elapsed), eta(m.done, m.total, elapsed))
	return b.String()
}

// eta extrapolates the time per unit so far over the units left.
func eta(done, total int, elapsed time.Duration) string {
	switch {
	case done >= total:
		return "0s"
	case done <= 0:
		return "?"
	}
	return roundDuration(time.Duration(float64(elapsed) / float64(done) * float64(total-done)))
}

// note prints a message on its own line, under the bar.
func (m *meter) note(msg string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.bar != nil && m.drawn {
		m.bar.Clear()
	}
	fmt.Fprintln(m.w, msg)
	if m.bar != nil && m.drawn && !m.stopped {
		m.bar.RenderBlank() // back under the note (or at the next update)
	}
}

// finish ends the bar's line so the summary starts on a fresh one.
func (m *meter) finish() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.stopped {
		return
	}
	m.stopped = true
	if m.bar != nil && m.drawn {
		m.bar.Exit()
		fmt.Fprintln(m.w)
	}
}

func (m *meter) elapsed() time.Duration { return m.now().Sub(m.start) }

// meterLog sends the service's warnings (an unknown code) under the bar
// when the bar is on a console, so they do not land in the middle of it.
type meterLog struct {
	w io.Writer
	m *meter // set once the meter exists
}

func (l *meterLog) Write(p []byte) (int, error) {
	if l.m != nil && l.m.bar != nil {
		l.m.note(strings.TrimRight(string(p), "\n"))
		return len(p), nil
	}
	return l.w.Write(p)
}

// roundDuration rounds a duration for display.
func roundDuration(d time.Duration) string {
	if d < 10*time.Second {
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}
