//go:build load

package loadtest

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"testing"
	"time"

	"mdqs/db/dbtest"
	"mdqs/internal/auth"
	"mdqs/internal/client"
	"mdqs/internal/cluster"
	"mdqs/internal/loadgen"
	mkt "mdqs/internal/market"
	"mdqs/internal/sharedstate"
	"mdqs/internal/sharedstate/redistest"
)

var (
	teamDuration = flag.Duration("team.duration", 10*time.Second, "how long each team load run lasts")
	teamConc     = flag.Int("team.c", 8, "workers of a team load run, split evenly between the instances")
	teamVerifies = flag.Int("team.verifies", 20000, "signed requests verified per replay store")
)

// teamSize is a demo market with the real number of sectors (the top50
// answer's size), few stocks and days (the store is seeded on PostgreSQL).
var teamSize = market{300, 90, 450, 30}

// TestTeamFigures measures, in one run on one PostgreSQL and one Redis,
// what sharing state costs (issue 15's figures):
//
//   - the cost of verifying a signed request (signature, clock, nonce)
//     with the nonce in the process's set (a lone server on SQLite) and
//     recorded in the PostgreSQL store (a team, issue 27), p50/p99, one
//     caller and 8 at once; and the cost of a
//     shared rate limit's token (the Lua bucket), which a rate-limited
//     client adds to every request;
//
//   - GET /v1/api/boards/top50 from the cache, the real binary under
//     closed-loop load: a lone instance (ristretto only) against an
//     instance of a team (ristretto as near cache, version checked against
//     Redis on every request, nonces in PostgreSQL), then two instances of that
//     team, loaded together with the same workers split between them.
//
//     MDQS_TEST_POSTGRES=... MDQS_TEST_REDIS=... go test -tags load -run TeamFigures -v ./loadtest
//
// On one machine the two instances share its cores with the load, Redis
// and PostgreSQL: their combined figure shows what a second instance
// costs, not what a second host would add.
func TestTeamFigures(t *testing.T) {
	pg := dbtest.NeedPostgres(t)
	redisURL := redistest.URL(t)
	prefix := redistest.Prefix(t)

	verifyFigures(t, pg, redisURL, prefix)

	lone := startDemoOn(t, teamSize, dbtest.NewSchema(t, pg), "")
	teamDB := dbtest.NewSchema(t, pg)
	member := func(name string) string {
		return fmt.Sprintf("[server]\ninstance = %q\n[cache]\nredis = %q\nredis_prefix = %q\n", name, redisURL, prefix)
	}
	a := startDemoOn(t, teamSize, teamDB, member("a"))

	loneRes := top50Load(t, "lone instance (ristretto)", lone)
	oneRes := top50Load(t, "one instance of a team (near cache, Redis)", a)
	b := startDemoOn(t, teamSize, teamDB, member("b"))
	twoRes := top50Load(t, "two instances of a team, together", a, b)

	loneRate := loneRes.rate()
	t.Logf("cached top50, %d workers, %s each:", *teamConc, *teamDuration)
	for _, r := range []teamRun{loneRes, oneRes, twoRes} {
		t.Logf("  %-44s %8.0f req/s (%.2fx the lone)  p50 %s  p99 %s", r.name, r.rate(), r.rate()/loneRate, r.q(0.5), r.q(0.99))
	}
}

type teamRun struct {
	name string
	res  []*loadgen.Result
}

func (r teamRun) rate() (sum float64) {
	for _, x := range r.res {
		sum += x.PerSecond(x.Total.Requests)
	}
	return sum
}

func (r teamRun) q(q float64) time.Duration {
	var h loadgen.Histogram
	for _, x := range r.res {
		h.Merge(&x.Total.Latency)
	}
	return h.Quantile(q).Round(time.Microsecond)
}

// top50Load drives the instances together for the run's duration, the
// workers split evenly between them; every answer must succeed.
func top50Load(t *testing.T, name string, ps ...*loadgen.Process) teamRun {
	t.Helper()
	run := teamRun{name: name, res: make([]*loadgen.Result, len(ps))}
	var wg sync.WaitGroup
	errs := make([]error, len(ps))
	for i, p := range ps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), *teamDuration+2*time.Minute)
			defer cancel()
			run.res[i], errs[i] = loadgen.Run(ctx, loadgen.Config{Addr: p.Addr, Duration: *teamDuration,
				Concurrency: max(1, *teamConc/len(ps)), Mix: loadgen.Mix{loadgen.Top50: 1}})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("%s: %v\n%s", ps[i].Addr, err, ps[i].Logs())
		}
		report(t, run.res[i])
	}
	return run
}

// verifyFigures times auth's signature check, whose nonce step is the part
// a team changes, with each replay store; and a rate limit's token.
func verifyFigures(t *testing.T, pg, redisURL, prefix string) {
	ctx := context.Background()
	rc, err := sharedstate.Open(ctx, redisURL, sharedstate.Options{Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	shared := cluster.New(rc, log)
	clock := mkt.SystemClock{}
	n := *teamVerifies

	hash, err := auth.HashSecret("s", auth.KDFParams{MemoryKiB: 64, Time: 1, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	cfg := auth.Config{TokenTTL: time.Hour, MaxTokensPerClient: 20, Signature: auth.SignatureRequired,
		MaxClockSkew: 60 * time.Second, NonceCapacity: 4 * n, TokenCacheSize: 100, RevocationCheck: time.Second}
	services := []struct {
		name   string
		target string
		shared bool
	}{{"in process", t.TempDir() + "/verify.db", false}, {"PostgreSQL (INSERT)", dbtest.NewSchema(t, pg), true}}
	t.Logf("signed-request verify (MD5, clock, nonce), %d requests each:", n)
	for _, s := range services {
		store := dbtest.OpenAt(t, s.target)
		if _, err := store.PutClient(ctx, auth.Client{ID: "v", SecretHash: hash, Scopes: auth.DefaultScopes(), Enabled: true,
			CreatedAt: time.Now(), UpdatedAt: time.Now()}); err != nil {
			t.Fatal(err)
		}
		c := cfg
		c.SharedStore = s.shared
		svc, err := auth.New(store, clock, c)
		if err != nil {
			t.Fatal(err)
		}
		defer svc.Close()
		iss, err := svc.IssueToken(ctx, "v", "s")
		if err != nil {
			t.Fatal(err)
		}
		p, err := svc.Authenticate(ctx, iss.Token)
		if err != nil {
			t.Fatal(err)
		}
		for _, callers := range []int{1, 8} {
			ts := strconv.FormatInt(time.Now().Unix(), 10)
			run := client.NewNonce()[:8]
			signed := make([]auth.Signed, n)
			for i := range signed {
				nonce := run + "-" + strconv.Itoa(i)
				signed[i] = auth.Signed{Timestamp: ts, Nonce: nonce, Signature: client.Signature(iss.Token, ts, nonce, nil)}
			}
			h := timeParallel(t, callers, n, func(i int) error {
				return svc.VerifySignature(ctx, p, iss.Token, signed[i], nil)
			})
			t.Logf("  nonce %-20s %d caller(s): p50 %-9s p99 %-9s (%.0f/s)", s.name, callers, h.q(0.5), h.q(0.99), h.perSec)
		}
	}
	t.Logf("rate limit token, %d each:", n)
	for _, callers := range []int{1, 8} {
		h := timeParallel(t, callers, n, func(i int) error {
			_, _, err := shared.Take(ctx, "figures", 1e9, 1e9)
			return err
		})
		t.Logf("  Redis (Lua bucket)        %d caller(s): p50 %-9s p99 %-9s (%.0f/s)", callers, h.q(0.5), h.q(0.99), h.perSec)
	}
	if st := shared.Status(); !st.Up || st.Failures != 0 {
		t.Fatalf("Redis failed during the figures: %+v", st)
	}
}

type timed struct {
	h      loadgen.Histogram
	perSec float64
}

func (t *timed) q(q float64) string { return t.h.Quantile(q).Round(100 * time.Nanosecond).String() }

// timeParallel runs call(0..n-1) on callers goroutines, timing each call.
func timeParallel(t *testing.T, callers, n int, call func(i int) error) *timed {
	t.Helper()
	hs := make([]loadgen.Histogram, callers)
	errs := make([]error, callers)
	var wg sync.WaitGroup
	start := time.Now()
	for c := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := c; i < n; i += callers {
				t0 := time.Now()
				if err := call(i); err != nil {
					errs[c] = err
					return
				}
				hs[c].Record(time.Since(t0))
			}
		}()
	}
	wg.Wait()
	out := &timed{perSec: float64(n) / time.Since(start).Seconds()}
	for c := range hs {
		if errs[c] != nil {
			t.Fatal(errs[c])
		}
		out.h.Merge(&hs[c])
	}
	return out
}
