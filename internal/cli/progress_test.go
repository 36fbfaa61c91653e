package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// clockAt is a clock the test moves.
type clockAt struct{ t time.Time }

func (c *clockAt) now() time.Time { return c.t }

func TestMeterPlainLines(t *testing.T) {
	var buf bytes.Buffer
	clock := &clockAt{t: time.Unix(1_700_000_000, 0)}
	m := newMeterFor(&buf, false, 5300, "codes", "written", clock.t, clock.now)
	clock.t = clock.t.Add(5 * time.Second)
	m.update(100, 240_000) // before 10 s: nothing
	if buf.Len() != 0 {
		t.Fatalf("a line before 10 s: %q", buf.String())
	}
	clock.t = clock.t.Add(5 * time.Second)
	m.update(1325, 3_180_000)
	if got, want := buf.String(), "progress: 1,325/5,300 codes, 3,180,000 bars written, 318,000 bars/s, elapsed 10s, ETA 30s\n"; got != want {
		t.Errorf("line at 10 s\n got %q\nwant %q", got, want)
	}
	buf.Reset()
	clock.t = clock.t.Add(time.Second)
	m.update(5300, 4_000_000) // the end always shows
	m.finish()
	if got := buf.String(); !strings.HasPrefix(got, "progress: 5,300/5,300 codes, 4,000,000 bars written") || strings.Count(got, "\n") != 1 {
		t.Errorf("last line %q", got)
	}

	// A run over in microseconds shows its bars and no rate: 250 bars in
	// 80 ns are not 3,125,000,000 bars/s.
	buf.Reset()
	clock = &clockAt{t: time.Unix(1_700_000_000, 0)}
	m = newMeterFor(&buf, false, 1, "files", "read", clock.t, clock.now)
	clock.t = clock.t.Add(80 * time.Nanosecond)
	m.update(1, 250)
	if got, want := buf.String(), "progress: 1/1 files, 250 bars read, elapsed 0s, ETA 0s\n"; got != want {
		t.Errorf("instant run\n got %q\nwant %q", got, want)
	}

	// A meter of rows copied counts the rows only once.
	buf.Reset()
	clock = &clockAt{t: time.Unix(1_700_000_000, 0)}
	m = newMeterFor(&buf, false, 400_000, "rows", "", clock.t, clock.now)
	clock.t = clock.t.Add(10 * time.Second)
	m.update(100_000, 0)
	if got, want := buf.String(), "progress: 100,000/400,000 rows, 10,000 rows/s, elapsed 10s, ETA 30s\n"; got != want {
		t.Errorf("rows\n got %q\nwant %q", got, want)
	}
}

func TestMeterTerminalBar(t *testing.T) {
	var buf bytes.Buffer
	start := time.Now().Add(-10 * time.Second)
	m := newMeterFor(&buf, true, 4, "codes", "written", start, time.Now)
	m.update(1, 1_000_000)
	m.note("interrupted: stopping after the current code")
	time.Sleep(250 * time.Millisecond) // past the redraw throttle
	m.update(2, 2_000_000)
	m.finish()
	out := buf.String()
	if !strings.Contains(out, "\r") || strings.Contains(out, "\x1b") {
		t.Errorf("the bar is not redrawn in place with \\r alone:\n%q", out)
	}
	// 2 of 4 codes and 2,000,000 bars in about 10.25 s.
	last := out[strings.LastIndex(out, "\r")+1:]
	if !strings.Contains(last, "50% [") || !strings.Contains(last, "(2/4) codes, 2,000,000 bars written, 19") || !strings.Contains(last, "bars/s, ETA 10s") {
		t.Errorf("the bar's last figures:\n%q", out)
	}
	if !strings.Contains(out, "\ninterrupted: stopping after the current code\n") && !strings.Contains(out, "\rinterrupted: stopping after the current code\n") {
		t.Errorf("the note is not on a line of its own:\n%q", out)
	}
	if !strings.HasSuffix(out, "\n") {
		t.Errorf("finish leaves the cursor on the bar's line:\n%q", out)
	}
}

func TestGroup(t *testing.T) {
	for _, n := range []struct {
		n    int
		want string
	}{{0, "0"}, {999, "999"}, {1000, "1,000"}, {1234567, "1,234,567"}, {-4200, "-4,200"}} {
		if got := group(n.n); got != n.want {
			t.Errorf("group(%d) = %q", n.n, got)
		}
	}
}

// A shorter tail is padded over a longer one: Windows consoles get a bare
// \r between redraws.
func TestMeterTailNeverShrinks(t *testing.T) {
	m := newMeterFor(&bytes.Buffer{}, true, 10, "files", "read", time.Now(), time.Now)
	m.done, m.bars = 9, 1_000_000
	long := m.tail(1800 * time.Millisecond) // ... ETA 200ms
	m.done = 10
	short := m.tail(2 * time.Second) // ... ETA 0s
	if !strings.HasSuffix(long, "ETA 200ms") || len(short) != len(long) || !strings.HasSuffix(short, "ETA 0s   ") {
		t.Errorf("tails %q then %q; want the second padded to the first", long, short)
	}
}
