package upstream

import (
	"context"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"mdqs/internal/market"
)

// Every test server listens on 127.0.0.1 (httptest); no test reaches the
// internet.

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatalf("fixture: %v", err)
	}
	return b
}

// recorder keeps what the stub server received.
type recorder struct {
	mu   sync.Mutex
	reqs []*http.Request
}

func (r *recorder) add(req *http.Request) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reqs = append(r.reqs, req.Clone(context.Background()))
	return len(r.reqs)
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.reqs)
}

func (r *recorder) req(i int) *http.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reqs[i]
}

// stub starts a server whose handler also gets the 1-based request number.
func stub(t *testing.T, h func(w http.ResponseWriter, r *http.Request, n int)) (*httptest.Server, *recorder) {
	t.Helper()
	rec := &recorder{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := rec.add(r)
		h(w, r, n)
	}))
	t.Cleanup(srv.Close)
	return srv, rec
}

func write(w http.ResponseWriter, status int, contentType string, body []byte) {
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

const jsonCT = "application/json; charset=UTF-8"

// testSource: tiny backoffs and a limiter too wide to matter, so tests run
// fast; the rate tests set their own.
func testSource(base string) SourceConfig {
	return SourceConfig{
		BaseURL:     base,
		Timeout:     5 * time.Second,
		Retries:     2,
		BackoffBase: time.Microsecond,
		BackoffMax:  10 * time.Microsecond,
		Rate:        1e6,
		Burst:       1000,
	}
}

func testNow() time.Time { return time.Date(2026, 7, 10, 15, 30, 0, 0, market.Shanghai()) }

func newTestPush2(t *testing.T, base string, pageSize int) *Push2 {
	t.Helper()
	c, err := NewPush2(Push2Config{SourceConfig: testSource(base), PageSize: pageSize}, NewLimiters(), market.NewFixedClock(testNow()))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func newTestHis(t *testing.T, base string) *Push2His {
	t.Helper()
	c, err := NewPush2His(testSource(base), NewLimiters(), market.NewFixedClock(testNow()))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func newTestAK(t *testing.T, base string) *AKShare {
	t.Helper()
	c, err := NewAKShare(testSource(base), NewLimiters(), market.NewFixedClock(testNow()))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// wantErr checks kind, attempts (when > 0) and field (when != "").
func wantErr(t *testing.T, err error, kind Kind, attempts int, field string) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v (%T), want *Error of kind %s", err, err, kind)
	}
	if e.Kind != kind || !errors.Is(err, kind) {
		t.Fatalf("kind = %s, want %s (%v)", e.Kind, kind, err)
	}
	if attempts > 0 && e.Attempts != attempts {
		t.Errorf("attempts = %d, want %d (%v)", e.Attempts, attempts, err)
	}
	if field != "" && e.Field != field {
		t.Errorf("field = %q, want %q (%v)", e.Field, field, err)
	}
	if strings.Contains(err.Error(), "?") || strings.Contains(err.Error(), "secid=") {
		t.Errorf("error text leaks the query: %v", err)
	}
	return e
}

// eq compares floats with NaN equal to NaN and a relative tolerance for the
// decimal parsing of money values.
func eq(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b))
}

func checkF(t *testing.T, what string, got, want float64) {
	t.Helper()
	if !eq(got, want) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

var nan = math.NaN()
