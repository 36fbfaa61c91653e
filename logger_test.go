package main

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"mdqs/internal/config"
)

// Log lines carry their time in the API's zone, Asia/Shanghai, with the
// offset written, whatever the host's zone (CI's is UTC): 03:04:05 UTC is
// 11:04:05+08:00.
func TestLogTimesAreShanghaiWithOffset(t *testing.T) {
	at := time.Date(2026, 11, 23, 3, 4, 5, 6e6, time.UTC)
	for _, tc := range []struct{ format, want string }{
		{"text", "time=2026-11-23T11:04:05.006+08:00 level=INFO msg=listening"},
		{"json", `{"time":"2026-11-23T11:04:05.006+08:00","level":"INFO","msg":"listening"}`},
	} {
		var b bytes.Buffer
		h := newLogger(config.Log{Level: "info", Format: tc.format}, &b).Handler()
		if err := h.Handle(context.Background(), slog.NewRecord(at, slog.LevelInfo, "listening", 0)); err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(b.String()); got != tc.want {
			t.Errorf("%s log line = %s, want %s", tc.format, got, tc.want)
		}
	}
}
