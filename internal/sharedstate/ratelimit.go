package sharedstate

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/redis/rueidis"
)

// takeScript is golang.org/x/time/rate's token bucket, kept in Redis: a
// hash of the tokens left and the instant (µs of Redis's clock) they were
// counted at. A call adds the tokens earned since then at rate, capped at
// burst (an unknown or expired key is a full bucket), then
//   - with one token or more, takes it and writes the bucket back;
//   - with less, writes nothing (a refusal spends nothing) and answers how
//     long until one token is there.
//
// The key expires when the bucket would be full again, so an idle client
// costs Redis nothing and an expired key means the same as a full one.
//
// Tokens are a small float, written with 17 significant digits so they
// read back exactly. (A GCRA's single timestamp would be one value fewer,
// but a µs timestamp near 1.8e15 has a resolution of 0.25µs in a double,
// and adding a period such as 1/3s to it every call drifts by a µs every
// dozen calls: x/time/rate would disagree.)
//
// Time is Redis's TIME, so the instances' clocks do not matter (Redis 5+
// replicates a script's effects, not the script, so TIME before a write is
// allowed). A clock that steps back (a failover) earns nothing until it
// passes the last instant again. ARGV[3], when not empty, replaces TIME:
// tests compare the script with x/time/rate at chosen instants.
//
// The expiry is capped at 1e15 ms, which Redis still reads as an integer
// when the rate is tiny.
//
// KEYS[1] bucket; ARGV[1] rate per second; ARGV[2] burst; ARGV[3] now in µs
// or "". Returns {1, 0} when a token was taken, {0, wait in µs} when refused.
var takeScript = rueidis.NewLuaScript(`
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local now
if ARGV[3] ~= '' then
  now = tonumber(ARGV[3])
else
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local b = redis.call('HMGET', KEYS[1], 'tokens', 'last')
local tokens, last = tonumber(b[1]), tonumber(b[2])
if tokens == nil or last == nil then
  tokens, last = burst, now
elseif now > last then
  tokens = math.min(burst, tokens + (now - last) / 1e6 * rate)
  last = now
end
if tokens < 1 then
  return {0, math.ceil((1 - tokens) / rate * 1e6)}
end
tokens = tokens - 1
redis.call('HSET', KEYS[1], 'tokens', string.format('%.17g', tokens), 'last', string.format('%.17g', last))
redis.call('PEXPIRE', KEYS[1], math.min(math.ceil((burst - tokens) / rate * 1000), 1e15))
return {1, 0}
`)

// Take takes one token from the bucket key shares across every instance:
// it holds burst tokens at first and refills at ratePerSec, as
// x/time/rate's NewLimiter(ratePerSec, burst).Allow() would for a single
// instance, so N instances give a client one budget, not N. When ok is
// false nothing was spent and wait is how long until a token is there
// (a Retry-After). ratePerSec must be positive and finite and burst at
// least 1: a limiter that never or always allows needs no Redis.
func (c *Client) Take(ctx context.Context, key string, ratePerSec float64, burst int) (wait time.Duration, ok bool, err error) {
	return c.take(ctx, key, ratePerSec, burst, "")
}

// take is Take with now, in µs, replacing Redis's clock when not empty.
func (c *Client) take(ctx context.Context, key string, ratePerSec float64, burst int, now string) (time.Duration, bool, error) {
	if !(ratePerSec > 0) || math.IsInf(ratePerSec, 1) || burst < 1 {
		return 0, false, fmt.Errorf("sharedstate: Take(%q): rate %v/s with burst %d: want a positive finite rate and a burst of at least 1", key, ratePerSec, burst)
	}
	ctx, cancel := c.ctx(ctx)
	defer cancel()
	args := []string{strconv.FormatFloat(ratePerSec, 'g', -1, 64), strconv.Itoa(burst), now}
	res, err := takeScript.Exec(ctx, c.rdb, []string{c.prefix + "rate:" + key}, args).ToArray()
	if err != nil {
		return 0, false, c.fail("rate limit script", err)
	}
	if len(res) != 2 {
		return 0, false, c.fail("rate limit script", fmt.Errorf("answer has %d values, want 2", len(res)))
	}
	allowed, err1 := res[0].AsInt64()
	waitUS, err2 := res[1].AsInt64()
	if err1 != nil || err2 != nil {
		return 0, false, c.fail("rate limit script", fmt.Errorf("answer is not two integers: %v, %v", err1, err2))
	}
	return time.Duration(waitUS) * time.Microsecond, allowed == 1, nil
}
