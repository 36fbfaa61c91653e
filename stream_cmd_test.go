package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"mdqs/internal/loadgen"
)

// `mdqs call -stream` prints a stream's lines as they come: an interrupt
// ends it quietly (exit 0), and so does the server's shutdown, which ends
// its streams with an end event instead of waiting its shutdown_timeout
// for them.
func TestCallStreamUntilInterruptOrShutdown(t *testing.T) {
	// A small market and cheap hashing: under -race on a busy machine the
	// shipped market's start and the token's argon2 take most of a minute.
	// shutdown_timeout is long, so a shutdown that waited for the stream
	// would show.
	s := startServerWith(t, serveOptions{config: smallDemo + "[server]\nshutdown_timeout = \"60s\"\n", cheapHash: true})
	callStream := func(ctx context.Context) (*loadgen.SyncBuffer, *loadgen.SyncBuffer, chan int) {
		out, errb := &loadgen.SyncBuffer{}, &loadgen.SyncBuffer{}
		done := make(chan int, 1)
		go func() {
			done <- exitCode(run(ctx, testEnv(out, errb), []string{"call", "-addr", s.addr, "-token-cache=false", "-stream",
				"GET", "/v1/api/stream?topics=ranking,movements"}), errb)
		}()
		deadline := time.Now().Add(time.Minute)
		for !strings.Contains(out.String(), "event: open") {
			if time.Now().After(deadline) {
				t.Fatalf("no open event: stdout %q, stderr %q", out, errb)
			}
			time.Sleep(10 * time.Millisecond)
		}
		return out, errb, done
	}
	wait := func(done chan int) int {
		select {
		case code := <-done:
			return code
		case <-time.After(time.Minute):
			t.Fatal("mdqs call -stream did not end")
			return -1
		}
	}

	ctx, interrupt := context.WithCancel(context.Background())
	out, errb, done := callStream(ctx)
	interrupt()
	if code := wait(done); code != 0 || !strings.HasPrefix(out.String(), "retry: ") {
		t.Fatalf("interrupted: exit %d, stdout %q, stderr %q", code, out, errb)
	}

	out, errb, done = callStream(context.Background())
	start := time.Now()
	if err := s.stop(t); err != nil {
		t.Fatalf("serve: %v", err)
	}
	if took := time.Since(start); took >= 60*time.Second {
		t.Errorf("shutdown with a stream open took %v: it waited for the stream until shutdown_timeout", took)
	}
	if code := wait(done); code != 0 || !strings.Contains(out.String(), "event: end\ndata: {\"reason\":\"shutdown\"") {
		t.Fatalf("at shutdown: exit %d, stdout %q, stderr %q", code, out, errb)
	}
}
