package client

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"
)

// Stream signs its request, retries a 401 once with a new token, and hands
// over each line as it comes.
func TestStreamReadsLinesAndRenewsOnce(t *testing.T) {
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/auth/token" {
			w.Write([]byte(`{"code":1,"data":{"token":"fresh","expire_at":"2099-01-01 00:00:00"}}`))
			return
		}
		calls++
		if r.Header.Get("Authorization") != "Bearer fresh" || r.Header.Get("X-Signature") == "" || r.Header.Get("Last-Event-ID") != "7-8" {
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"code":0,"message":"unauthorized"}`))
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte("id: 1-2\nevent: open\ndata: {}\n\n"))
		w.(http.Flusher).Flush()
		time.Sleep(10 * time.Millisecond)
		w.Write([]byte(": hb\n\n"))
	}))
	defer srv.Close()
	c := New(srv.URL, "id", "secret")
	c.SetToken("stale", time.Now().Add(time.Hour))
	var lines []string
	r, err := c.Stream(context.Background(), "/v1/api/stream?topics=ranking", http.Header{"Last-Event-ID": {"7-8"}},
		func(l string) error { lines = append(lines, l); return nil })
	if err != nil || r.Status != 200 || calls != 2 {
		t.Fatalf("Stream = %+v, %v after %d calls", r, err, calls)
	}
	if want := []string{"id: 1-2", "event: open", "data: {}", "", ": hb", ""}; !slices.Equal(lines, want) {
		t.Fatalf("lines %q, want %q", lines, want)
	}
}
