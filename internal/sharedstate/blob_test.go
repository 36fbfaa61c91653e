package sharedstate_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"mdqs/internal/sharedstate/redistest"
)

func TestPutIfNewerKeepsTheNewestVersion(t *testing.T) {
	prefix := redistest.Prefix(t)
	a, b := open(t, prefix), open(t, prefix)
	ctx := context.Background()
	const big = int64(1) << 60 // past 2^53, where Lua's doubles would round
	steps := []struct {
		version int64
		stored  bool
	}{
		{9, true},
		{9, false}, // the same version is not newer
		{8, false}, // an older one never wins
		{10, true}, // longer decimal, larger
		{0, false},
		{big, true},
		{big + 1, true}, // the same double as big in Lua, still newer
		{big, false},
	}
	for i, s := range steps {
		c := a
		if i%2 == 1 {
			c = b
		}
		data := fmt.Appendf(nil, "ranking v%d", s.version)
		stored, err := c.PutIfNewer(ctx, "top50", s.version, data, time.Minute)
		if err != nil {
			t.Fatalf("step %d: PutIfNewer(v%d): %v", i, s.version, err)
		}
		if stored != s.stored {
			t.Errorf("step %d: PutIfNewer(v%d) = %v, want %v", i, s.version, stored, s.stored)
		}
	}
	data, version, ok, err := b.Get(ctx, "top50")
	if err != nil || !ok || version != big+1 || string(data) != fmt.Sprintf("ranking v%d", big+1) {
		t.Errorf("Get = %q, %d, %v, %v, want the newest, v%d", data, version, ok, err, big+1)
	}
	if v, ok, err := a.Version(ctx, "top50"); err != nil || !ok || v != big+1 {
		t.Errorf("Version = %d, %v, %v, want %d", v, ok, err, big+1)
	}
	if _, err := a.PutIfNewer(ctx, "top50", -1, nil, time.Minute); err == nil {
		t.Error("PutIfNewer(v-1) = nil error, want one")
	}
}

func TestGetOfNothing(t *testing.T) {
	c := open(t, redistest.Prefix(t))
	ctx := context.Background()
	if data, v, ok, err := c.Get(ctx, "none"); err != nil || ok || data != nil || v != 0 {
		t.Errorf("Get(none) = %q, %d, %v, %v, want nothing", data, v, ok, err)
	}
	if v, ok, err := c.Version(ctx, "none"); err != nil || ok || v != 0 {
		t.Errorf("Version(none) = %d, %v, %v, want nothing", v, ok, err)
	}
}

func TestBlobRoundTripsBinaryDataAndExpires(t *testing.T) {
	prefix := redistest.Prefix(t)
	c := open(t, prefix)
	ctx := context.Background()
	data := bytes.Repeat([]byte{0, 1, 0xff, '\n'}, 100_000) // 400 KB, about a full ranking
	if _, err := c.PutIfNewer(ctx, "bin", 1, data, 300*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	got, _, ok, err := c.Get(ctx, "bin")
	if err != nil || !ok || !bytes.Equal(got, data) {
		t.Fatalf("Get = %d bytes, %v, %v, want the %d bytes put", len(got), ok, err, len(data))
	}
	rdb := raw(t)
	pttl, err := rdb.Do(ctx, rdb.B().Pttl().Key(prefix+"blob:bin").Build()).AsInt64()
	if err != nil || pttl <= 0 || pttl > 300 {
		t.Errorf("PTTL = %d, %v, want (0, 300]ms", pttl, err)
	}
	// ttl 0 keeps the blob.
	if _, err := c.PutIfNewer(ctx, "bin", 2, data, 0); err != nil {
		t.Fatal(err)
	}
	if pttl, err := rdb.Do(ctx, rdb.B().Pttl().Key(prefix+"blob:bin").Build()).AsInt64(); err != nil || pttl != -1 {
		t.Errorf("PTTL after a put with no ttl = %d, %v, want -1 (no expiry)", pttl, err)
	}
	rdb.Do(ctx, rdb.B().Del().Key(prefix+"blob:bin").Build()) // the test's own key
}

// Version answers from process memory, and another instance's write
// reaches it through Redis's invalidation, not the cache's TTL.
func TestVersionSeesAnotherInstancesWrite(t *testing.T) {
	prefix := redistest.Prefix(t)
	reader, writer := open(t, prefix), open(t, prefix)
	ctx := context.Background()
	if _, err := writer.PutIfNewer(ctx, "top50", 1, []byte("v1"), time.Minute); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := reader.Version(ctx, "top50"); err != nil || !ok || v != 1 {
		t.Fatalf("Version = %d, %v, %v, want 1", v, ok, err)
	}

	// The hot path: 1,000 reads, (almost) no HGET reaches Redis.
	rdb := raw(t)
	before := hgetCalls(t, rdb)
	for range 1000 {
		if v, _, err := reader.Version(ctx, "top50"); err != nil || v != 1 {
			t.Fatalf("Version = %d, %v, want 1", v, err)
		}
	}
	if n := hgetCalls(t, rdb) - before; n > 50 {
		t.Errorf("1000 Version calls sent %d HGETs to Redis, want them served from the client-side cache", n)
	}

	start := time.Now()
	if stored, err := writer.PutIfNewer(ctx, "top50", 2, []byte("v2"), time.Minute); err != nil || !stored {
		t.Fatalf("PutIfNewer(v2) = %v, %v", stored, err)
	}
	for {
		v, _, err := reader.Version(ctx, "top50")
		if err != nil {
			t.Fatal(err)
		}
		if v == 2 {
			t.Logf("the reader saw v2 %v after the writer's PutIfNewer returned", time.Since(start))
			break
		}
		if time.Since(start) > 100*time.Millisecond {
			t.Fatalf("Version = %d 100ms after another instance stored v2, want 2 (no invalidation?)", v)
		}
		time.Sleep(time.Millisecond)
	}
}

// hgetCalls is the server's count of HGET commands (INFO commandstats).
func hgetCalls(t *testing.T, rdb rueidis.Client) int64 {
	t.Helper()
	info, err := rdb.Do(context.Background(), rdb.B().Info().Section("commandstats").Build()).ToString()
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(info) {
		if rest, ok := strings.CutPrefix(line, "cmdstat_hget:calls="); ok {
			var n int64
			fmt.Sscanf(rest, "%d", &n)
			return n
		}
	}
	return 0
}
