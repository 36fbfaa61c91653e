package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// meter shows a long run's advance: on a terminal a bar redrawn in place
// with \r (no escape sequences, which older Windows consoles print
// literally), elsewhere (a pipe, a log file) a plain line now and then so
// the output stays readable.
type meter struct {
	mu      sync.Mutex
	w       io.Writer
	tty     bool
	every   time.Duration // between redraws
	total   int
	unit    string // what total counts: codes, or code-windows for minute bars
	start   time.Time
	last    time.Time
	drawn   int // width of the bar on screen, to blank what a shorter one leaves
	done    int
	written int
	now     func() time.Time
}

func newMeter(w io.Writer, total int, unit string) *meter {
	m := &meter{w: w, tty: isTerminal(w), total: total, unit: unit, now: time.Now}
	m.every = 10 * time.Second
	if m.tty {
		m.every = 200 * time.Millisecond
	}
	m.start = m.now()
	m.last = m.start
	return m
}

// isTerminal reports a character device: a console, not a file or a pipe.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// update records the codes done and bars written so far and redraws when
// it is time to.
func (m *meter) update(done, written int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.done, m.written = done, written
	now := m.now()
	if now.Sub(m.last) < m.every && done < m.total {
		return
	}
	m.last = now
	m.draw(now)
}

func (m *meter) draw(now time.Time) {
	p := progressLine{done: m.done, total: m.total, unit: m.unit, written: m.written, elapsed: now.Sub(m.start)}
	if !m.tty {
		fmt.Fprintln(m.w, p.plain())
		return
	}
	line := p.bar(24)
	pad := max(0, m.drawn-len(line))
	fmt.Fprint(m.w, "\r"+line+strings.Repeat(" ", pad))
	m.drawn = len(line)
}

// note prints a message on its own line, under the bar.
func (m *meter) note(msg string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.tty && m.drawn > 0 {
		fmt.Fprintln(m.w)
		m.drawn = 0
	}
	fmt.Fprintln(m.w, msg)
}

// finish ends the bar's line so the summary starts on a fresh one.
func (m *meter) finish() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.tty && m.drawn > 0 {
		fmt.Fprintln(m.w)
		m.drawn = 0
	}
}

func (m *meter) elapsed() time.Duration { return m.now().Sub(m.start) }

// progressLine is one reading of the meter.
type progressLine struct {
	done, total int
	unit        string
	written     int
	elapsed     time.Duration
}

func (p progressLine) rate() int {
	if s := p.elapsed.Seconds(); s > 0 {
		return int(float64(p.written) / s)
	}
	return 0
}

// eta extrapolates the time per code so far over the codes left.
func (p progressLine) eta() string {
	switch {
	case p.done >= p.total:
		return "0s"
	case p.done <= 0:
		return "?"
	}
	left := time.Duration(float64(p.elapsed) / float64(p.done) * float64(p.total-p.done))
	return roundDuration(left)
}

// bar is the terminal form, e.g.
// [#########...............]  1,234/5,300 codes  2,961,600 bars  412,345 bars/s  ETA 12s
func (p progressLine) bar(width int) string {
	filled := 0
	if p.total > 0 {
		filled = min(width, width*p.done/p.total)
	}
	return fmt.Sprintf("[%s%s]  %s/%s %s  %s bars  %s bars/s  ETA %s",
		strings.Repeat("#", filled), strings.Repeat(".", width-filled),
		group(p.done), group(p.total), p.unit, group(p.written), group(p.rate()), p.eta())
}

// plain is the line form for pipes and logs.
func (p progressLine) plain() string {
	return fmt.Sprintf("progress: %s/%s %s, %s bars written, %s bars/s, elapsed %s, ETA %s",
		group(p.done), group(p.total), p.unit, group(p.written), group(p.rate()), roundDuration(p.elapsed), p.eta())
}

// meterLog sends the service's warnings (an unknown code) under the bar
// when the bar is on a terminal, so they do not land in the middle of it.
type meterLog struct {
	w io.Writer
	m *meter // set once the bar exists
}

func (l *meterLog) Write(p []byte) (int, error) {
	if l.m != nil && l.m.tty {
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
