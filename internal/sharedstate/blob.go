package sharedstate

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/rueidis"
)

// A blob is one hash, fields "v" (the version, decimal) and "d" (the data),
// so a reader can never get one version's number with another's data.

// putScript stores a blob only when its version is newer than the stored
// one, so instances that build the same ranking race harmlessly: the newest
// wins whatever order the writes arrive in. Versions are non-negative
// decimals without leading zeros (strconv.FormatInt), compared as strings
// (longer is larger, then byte order) because Lua's numbers are doubles and
// would round versions above 2^53, such as a Unix time in nanoseconds.
//
// KEYS[1] hash; ARGV[1] version; ARGV[2] data; ARGV[3] ttl in ms, "0" for none.
// Returns 1 when stored, 0 when the stored version is as new or newer.
var putScript = rueidis.NewLuaScript(`
local cur = redis.call('HGET', KEYS[1], 'v')
if cur then
  local v = ARGV[1]
  if #v < #cur or (#v == #cur and v <= cur) then return 0 end
end
redis.call('HSET', KEYS[1], 'v', ARGV[1], 'd', ARGV[2])
if ARGV[3] == '0' then
  redis.call('PERSIST', KEYS[1])
else
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
end
return 1
`)

// versionCacheTTL bounds how long Version may answer from process memory.
// Redis's invalidation (client tracking) normally replaces a cached version
// within a millisecond or so of another instance's write; the TTL only
// bounds the staleness should an invalidation ever be lost.
const versionCacheTTL = time.Second

// PutIfNewer stores data as the blob key at version when version is newer
// than the stored one (or none is stored), atomically, and reports whether
// it did. ttl > 0 makes the blob expire that long after this write (so a
// ranking nobody rebuilds stops being served); 0 keeps it. version must not
// be negative.
func (c *Client) PutIfNewer(ctx context.Context, key string, version int64, data []byte, ttl time.Duration) (stored bool, err error) {
	if version < 0 || ttl < 0 {
		return false, fmt.Errorf("sharedstate: PutIfNewer(%q): version %d and ttl %v must not be negative", key, version, ttl)
	}
	ctx, cancel := c.ctx(ctx)
	defer cancel()
	args := []string{strconv.FormatInt(version, 10), rueidis.BinaryString(data), strconv.FormatInt(ceilMillis(ttl), 10)}
	n, err := putScript.Exec(ctx, c.rdb, []string{c.blobKey(key)}, args).AsInt64()
	if err != nil {
		return false, c.fail("put blob script", err)
	}
	return n == 1, nil
}

// Version is the blob's stored version (ok false when there is none). It is
// the hot path of a reader that keeps the decoded blob in memory and calls
// Get only when the version moved: the answer comes from rueidis's
// client-side cache, which Redis invalidates when any instance writes the
// blob, so a newer version is seen within milliseconds and an unchanged one
// costs no round trip.
func (c *Client) Version(ctx context.Context, key string) (version int64, ok bool, err error) {
	ctx, cancel := c.ctx(ctx)
	defer cancel()
	s, err := c.rdb.DoCache(ctx, c.rdb.B().Hget().Key(c.blobKey(key)).Field("v").Cache(), versionCacheTTL).ToString()
	if rueidis.IsRedisNil(err) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, c.fail("HGET blob version", err)
	}
	if version, err = strconv.ParseInt(s, 10, 64); err != nil {
		return 0, false, c.fail("HGET blob version", fmt.Errorf("version %q: %w", s, err))
	}
	return version, true, nil
}

// Get is the blob's data and version, read together (ok false when there is
// none). It always asks Redis: blobs can be large, and the caller keeps what
// it decoded, keyed by version.
func (c *Client) Get(ctx context.Context, key string) (data []byte, version int64, ok bool, err error) {
	ctx, cancel := c.ctx(ctx)
	defer cancel()
	vals, err := c.rdb.Do(ctx, c.rdb.B().Hmget().Key(c.blobKey(key)).Field("v", "d").Build()).ToArray()
	if err != nil {
		return nil, 0, false, c.fail("HMGET blob", err)
	}
	if len(vals) != 2 || vals[0].IsNil() {
		return nil, 0, false, nil
	}
	s, err := vals[0].ToString()
	if err == nil {
		version, err = strconv.ParseInt(s, 10, 64)
	}
	var d string
	if err == nil {
		d, err = vals[1].ToString()
	}
	if err != nil {
		return nil, 0, false, c.fail("HMGET blob", fmt.Errorf("malformed blob: %w", err))
	}
	return []byte(d), version, true, nil // a copy: rueidis's AsBytes shares the string's memory
}

func (c *Client) blobKey(key string) string { return c.prefix + "blob:" + key }

// ceilMillis is d in whole milliseconds, rounded up: a key must not expire
// before the time it was asked to live.
func ceilMillis(d time.Duration) int64 {
	return int64((d + time.Millisecond - 1) / time.Millisecond)
}
