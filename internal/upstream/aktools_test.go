package upstream

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"mdqs/internal/market"
)

// AKTools not running: the error names it, where mdqs looked, and the
// command that starts it there; so does the open circuit that follows.
// AKTools running but failing (akshare's 500) gets no such advice.
func TestAKToolsUnreachableSaysHowToStartIt(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	cfg := testSource(srv.URL)
	cfg.Retries, cfg.BreakerFailures = -1, 2
	c, err := NewAKShare(cfg, NewLimiters(), market.NewFixedClock(testNow()))
	if err != nil {
		t.Fatal(err)
	}
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	want := "AKTools at " + srv.URL + " is not reachable: start it with `python -m aktools --port " + port + "`"
	for i, kind := range []Kind{KindTransport, KindTransport, KindCircuitOpen} {
		_, err := c.Sectors(context.Background(), market.Industry)
		if KindOf(err) != kind || !strings.Contains(err.Error(), want) {
			t.Errorf("call %d: %v\nwant kind %v and %q", i+1, err, kind, want)
		}
	}

	failing, _ := stub(t, func(w http.ResponseWriter, r *http.Request, n int) {
		write(w, http.StatusInternalServerError, "text/plain", []byte("Internal Server Error"))
	})
	_, err = newTestAK(t, failing.URL).Sectors(context.Background(), market.Industry)
	if KindOf(err) != KindHTTPStatus || strings.Contains(err.Error(), "start it") {
		t.Errorf("AKTools answering 500: %v", err)
	}
}

func TestStartAKToolsCommand(t *testing.T) {
	for base, want := range map[string]string{
		"http://127.0.0.1:8081":    "start it with `python -m aktools --port 8081`",
		"http://localhost:9000/x":  "start it with `python -m aktools --port 9000`",
		"http://[::1]:8081":        "start it with `python -m aktools --port 8081`",
		"http://192.168.1.20:8081": "start it on 192.168.1.20 with `python -m aktools --host 0.0.0.0 --port 8081`",
		"http://aktools.lan":       "start it on aktools.lan with `python -m aktools --host 0.0.0.0 --port 80`",
	} {
		u, _ := url.Parse(base)
		if got := startAKTools(u); got != want {
			t.Errorf("startAKTools(%s) = %q, want %q", base, got, want)
		}
	}
}
