// Package redistest points a test at the real Redis server that
// MDQS_TEST_REDIS names, the way dbtest does for PostgreSQL: the test skips
// without one (saying how to start it), and fails instead under CI, whose
// .ci/run starts one, so a broken start cannot turn into silent skips.
package redistest

import (
	"crypto/rand"
	"strings"
	"testing"

	"mdqs/internal/testservers"
)

// Env names the server, e.g. redis://127.0.0.1:56379.
const Env = "MDQS_TEST_REDIS"

// HowTo says how to run the tests that need Redis.
const HowTo = "start a throwaway server with `. .ci/services.sh && start_redis` (it exports " + Env +
	"; redis-server is installed with apt when missing), then run the tests again"

// URL is the server's URL (a bare host:port is given the redis:// scheme),
// or skips the test saying how to start one, or fails it when CI is set; a
// package that calls it runs its tests through testservers.Main, which
// counts the skips.
func URL(t testing.TB) string {
	t.Helper()
	v := testservers.Need(t, "Redis", Env, HowTo)
	if !strings.Contains(v, "://") {
		v = "redis://" + v
	}
	return v
}

// Prefix is a key prefix of the test's own, "test:<random>:", so tests (and
// packages run in parallel by go test ./...) share one server without
// seeing each other's keys; nothing is ever flushed. Its keys are the
// test's to delete, or to leave to their expiry.
func Prefix(t testing.TB) string {
	t.Helper()
	return "test:" + strings.ToLower(rand.Text()[:16]) + ":"
}
