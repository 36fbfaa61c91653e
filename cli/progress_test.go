package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestProgressLines(t *testing.T) {
	p := progressLine{done: 1325, total: 5300, unit: "codes", written: 3_180_000, elapsed: 10 * time.Second}
	if got, want := p.bar(20), "[#####...............]  1,325/5,300 codes  3,180,000 bars  318,000 bars/s  ETA 30s"; got != want {
		t.Errorf("bar\n got %q\nwant %q", got, want)
	}
	if got, want := p.plain(), "progress: 1,325/5,300 codes, 3,180,000 bars written, 318,000 bars/s, elapsed 10s, ETA 30s"; got != want {
		t.Errorf("plain\n got %q\nwant %q", got, want)
	}
	if got := (progressLine{total: 3, unit: "codes"}).eta(); got != "?" {
		t.Errorf("ETA before the first code = %q", got)
	}

	// A terminal bar is redrawn in place and a shorter one blanks the rest.
	var buf bytes.Buffer
	now := time.Unix(0, 0)
	m := &meter{w: &buf, tty: true, every: time.Second, total: 2, unit: "codes", start: now, last: now, now: func() time.Time { return now }}
	now = now.Add(2 * time.Second)
	m.update(1, 1_000_000)
	now = now.Add(time.Second)
	m.update(2, 1_000_001)
	m.finish()
	lines := strings.Split(buf.String(), "\r")
	if len(lines) != 3 || !strings.HasSuffix(buf.String(), "\n") || len(lines[2]) < len(lines[1]) {
		t.Errorf("terminal output %q", buf.String())
	}
	for _, n := range []struct {
		n    int
		want string
	}{{0, "0"}, {999, "999"}, {1000, "1,000"}, {1234567, "1,234,567"}, {-4200, "-4,200"}} {
		if got := group(n.n); got != n.want {
			t.Errorf("group(%d) = %q", n.n, got)
		}
	}
}
