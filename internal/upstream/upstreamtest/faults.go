package upstreamtest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Fault is how a Faulty upstream misbehaves.
type Fault int

const (
	Healthy   Fault = iota // requests pass to the fake behind
	Down                   // the connection is closed without an answer (a transport error)
	Slow                   // the answer is held for the delay, or until the caller gives up
	Garbage                // 200 with bytes that are not JSON
	Truncated              // 200 with a JSON body cut short of its Content-Length
	HTMLPage               // 200 with an HTML page (a ban or portal page) instead of JSON
	BadSchema              // 200 with well-formed JSON of the wrong shape
)

var faultNames = map[Fault]string{Healthy: "healthy", Down: "down", Slow: "slow", Garbage: "garbage",
	Truncated: "truncated", HTMLPage: "html", BadSchema: "bad-schema"}

func (f Fault) String() string {
	if s, ok := faultNames[f]; ok {
		return s
	}
	return fmt.Sprintf("fault(%d)", int(f))
}

// Faulty is a proxy in front of a fake upstream (or any server) that breaks
// on command, so a test can take a working upstream down, slow it or make
// it answer garbage, and heal it again, without restarting anything.
type Faulty struct {
	*httptest.Server

	proxy     *httputil.ReverseProxy
	transport *http.Transport

	mu    sync.Mutex
	fault Fault
	delay time.Duration

	requests atomic.Int64
	held     atomic.Int64 // Slow requests being held now
}

// NewFaulty starts a healthy proxy to backend (a base URL such as a fake
// Server's URL).
func NewFaulty(t testing.TB, backend string) *Faulty {
	u, err := url.Parse(backend)
	if err != nil {
		t.Fatal(err)
	}
	f := &Faulty{transport: &http.Transport{}}
	f.proxy = httputil.NewSingleHostReverseProxy(u)
	f.proxy.Transport = f.transport
	f.proxy.ErrorLog = nil
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(func() {
		f.Set(Healthy) // let held requests go
		f.Close()
		f.transport.CloseIdleConnections()
	})
	return f
}

// Set switches the fault; Slow holds each request for the last SetDelay
// (default 1 minute).
func (f *Faulty) Set(fault Fault) {
	f.mu.Lock()
	f.fault = fault
	f.mu.Unlock()
}

// SetDelay sets how long Slow holds a request.
func (f *Faulty) SetDelay(d time.Duration) {
	f.mu.Lock()
	f.delay = d
	f.mu.Unlock()
}

// Requests counts the requests that reached the proxy.
func (f *Faulty) Requests() int64 { return f.requests.Load() }

// Held counts the Slow requests being held now; it falls back to 0 once
// their callers give up, which shows the callers do not leak them.
func (f *Faulty) Held() int64 { return f.held.Load() }

func (f *Faulty) state() (Fault, time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	d := f.delay
	if d <= 0 {
		d = time.Minute
	}
	return f.fault, d
}

func (f *Faulty) serve(w http.ResponseWriter, r *http.Request) {
	f.requests.Add(1)
	fault, delay := f.state()
	switch fault {
	case Down:
		hj, ok := w.(http.Hijacker)
		if !ok {
			panic(http.ErrAbortHandler)
		}
		conn, _, err := hj.Hijack()
		if err == nil {
			conn.Close()
		}
		return
	case Slow:
		f.held.Add(1)
		timer := time.NewTimer(delay)
		select {
		case <-timer.C:
		case <-r.Context().Done():
		}
		timer.Stop()
		f.held.Add(-1)
		if r.Context().Err() != nil {
			return
		}
	case Garbage:
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		w.Write([]byte("\x00\x9f\x92\x96garbage\xff{]]\n"))
		return
	case Truncated:
		body := `{"rc":0,"rt":6,"data":{"total":40,"diff":[{"f1":2,"f2":1012.5,"f3":`
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		w.Header().Set("Content-Length", fmt.Sprint(len(body)+200))
		w.Write([]byte(body))
		return
	case HTMLPage:
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte("<!DOCTYPE html><html><head><title>访问受限</title></head><body>Access denied</body></html>"))
		return
	case BadSchema:
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		w.Write([]byte(`{"rc":0,"rt":6,"data":{"total":"many","diff":{"rows":[1,2,3]}}}`))
		return
	}
	f.proxy.ServeHTTP(w, r)
}
