package sharedstate_test

import (
	"context"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"mdqs/internal/sharedstate"
	"mdqs/internal/sharedstate/redistest"
)

// open is a Client on the test server under prefix (two Clients on one
// prefix are two mdqs instances), closed when the test ends.
func open(t testing.TB, prefix string) *sharedstate.Client {
	t.Helper()
	c, err := sharedstate.Open(context.Background(), redistest.URL(t), sharedstate.Options{Prefix: prefix})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(c.Close)
	return c
}

// raw is a plain rueidis client on the test server, to look at keys the
// way Redis sees them.
func raw(t testing.TB) rueidis.Client {
	t.Helper()
	opt, err := rueidis.ParseURL(redistest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	opt.DisableCache = true
	rdb, err := rueidis.NewClient(opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rdb.Close)
	return rdb
}

// deadPort is a loopback port nothing listens on.
func deadPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func TestOpenFailsFastWithAClearError(t *testing.T) {
	dead := deadPort(t)
	tests := []struct {
		name, url string
		want      []string // in the error
	}{
		{"nothing listens", "redis://mdqs:s3cret@" + dead + "/2", []string{"redis at redis://mdqs:xxxxx@" + dead + "/2 is unreachable", "connection refused"}},
		{"not a port", "redis://mdqs:s3cret@127.0.0.1:notaport", []string{"redis URL is not valid", "invalid port", "redis://[user:pass@]host:port"}},
		{"not redis", "http://127.0.0.1:6379", []string{"redis URL http://127.0.0.1:6379", "scheme"}},
		{"not a database", "redis://127.0.0.1:6379/x", []string{"redis URL", "database"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			c, err := sharedstate.Open(context.Background(), tt.url, sharedstate.Options{})
			if err == nil {
				c.Close()
				t.Fatalf("Open(%q) = nil error, want one", tt.url)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("Open(%q) took %v, want it to fail fast", tt.url, d)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Open(%q) = %q, want it to say %q", tt.url, err, w)
				}
			}
			if strings.Contains(err.Error(), "s3cret") {
				t.Errorf("Open(%q) = %q, shows the password", tt.url, err)
			}
		})
	}
}

func TestOpen(t *testing.T) {
	url := redistest.URL(t)
	c := open(t, redistest.Prefix(t))
	if err := c.Ping(context.Background()); err != nil {
		t.Errorf("Ping: %v", err)
	}
	if got := c.Addr(); got != url {
		t.Errorf("Addr() = %q, want %q", got, url)
	}
}

// A server that is there but says no (a wrong password, a database it
// does not have) is told apart from one that is not there.
func TestOpenNamesARefusal(t *testing.T) {
	u, err := url.Parse(redistest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword("nobody", "s3cret")
	wrongPass := u.String()
	u.User, u.Path = nil, "/9999"
	noDB := u.String()
	for _, raw := range []string{wrongPass, noDB} {
		c, err := sharedstate.Open(context.Background(), raw, sharedstate.Options{})
		if err == nil {
			c.Close()
			t.Fatalf("Open(%s) = nil error, want a refusal", raw)
		}
		if !strings.Contains(err.Error(), "refused the connection") || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("Open(%s) = %q, want it to say the server refused, without the password", raw, err)
		}
	}
}

func TestErrorsNameRedisAndAreCounted(t *testing.T) {
	c, err := sharedstate.Open(context.Background(), redistest.URL(t), sharedstate.Options{Prefix: redistest.Prefix(t)})
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	ctx := context.Background()
	err1 := c.Ping(ctx)
	_, _, err2 := c.Take(ctx, "k", 1, 1)
	_, _, err3 := c.Version(ctx, "b")
	for i, err := range []error{err1, err2, err3} {
		if err == nil || !strings.Contains(err.Error(), "sharedstate: redis "+c.Addr()) {
			t.Errorf("call %d on a closed Client = %v, want an error naming redis at %s", i+1, err, c.Addr())
		}
	}
	if got := c.Errors(); got != 3 {
		t.Errorf("Errors() = %d, want 3", got)
	}
}
