package sharedstate

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/rueidis"
)

// Events is a Redis stream (one key, "<prefix>stream:events") that a team's
// leader appends its stream events to and every instance reads back in
// order, from the last entry it saw: unlike pub/sub, an instance that
// loses its connection for a while reads what it missed, and a restarted
// one reads the recent entries into its rings. Entry ids are "<seq>-0",
// seq being the event's id (µs of the publisher's clock), so Redis's
// order is the ids' order and every instance gives an event the same id.
// The stream keeps about EventsMaxLen entries (XADD MAXLEN ~).

// EventsMaxLen bounds the events stream: about four quote refreshes of
// 1,000 wanted codes, or 80 minutes of one ranking a second and its
// movements; an instance away longer than the stream reaches back gets a
// resync instead of a replay.
const EventsMaxLen = 5000

// Entry is one entry of the events stream.
type Entry struct {
	ID     int64             // the seq of "<seq>-0"
	Prev   int64             // the entry before it when it was added (0: none): a reader whose last is not Prev missed entries
	Fields map[string]string // the event, as the relay encodes it
}

// appendScript adds an entry whose id is ARGV[1], or one past the
// stream's last entry when that is not smaller (a new leader whose clock
// is behind the old one's), in one step, so two publishers never race
// between reading the last id and adding. Seqs are µs since 1970, about
// 1.8e15, exact in Lua's doubles (below 2^53); %d formats them without an
// exponent.
//
// An entry carries its append's token (field "u"): an append whose answer
// was lost (a connection that broke) is sent again, and when the stream's
// last entry has its token the script answers that entry's id instead of
// adding the event twice.
//
// KEYS[1] stream; ARGV[1] seq; ARGV[2] MAXLEN; ARGV[3] token; ARGV[4..]
// field, value, ... Returns the entry's id, "<seq>-0", and the previous
// entry's seq.
var appendScript = rueidis.NewLuaScript(`
local seq = tonumber(ARGV[1])
local prev = 0
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
if #last > 0 then
  local f = last[1][2]
  for i = 1, #f, 2 do
    if f[i] == 'u' and f[i+1] == ARGV[3] then
      for j = 1, #f, 2 do
        if f[j] == 'prev' then return {last[1][1], f[j+1]} end
      end
    end
  end
  prev = tonumber(string.match(last[1][1], '^(%d+)'))
  if seq <= prev then seq = prev + 1 end
end
local id = string.format('%d-0', seq)
redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], id, 'prev', string.format('%d', prev), 'u', ARGV[3], unpack(ARGV, 4))
return {id, string.format('%d', prev)}
`)

// appendTries bounds the tries of an append that failed on a broken
// connection: more than rueidis's pipelines (4 by default).
const appendTries = 6

// AppendEvent adds an entry with the id seq (or the first id after the
// stream's last entry, when seq is not after it) and returns the id it got.
// A connection that broke since the last command (Redis restarted) fails
// the first command sent on it, and rueidis keeps several (one per
// pipeline of its multiplex): an append that fails so, not by its
// timeout, is sent again on the next, at most appendTries times in all,
// which adds the event once whether or not an earlier try reached Redis.
func (c *Client) AppendEvent(ctx context.Context, seq int64, fields map[string]string) (int64, error) {
	return c.appendEvent(ctx, seq, rand.Text(), fields)
}

func (c *Client) appendEvent(ctx context.Context, seq int64, token string, fields map[string]string) (int64, error) {
	args := make([]string, 0, 3+2*len(fields))
	args = append(args, strconv.FormatInt(seq, 10), strconv.Itoa(EventsMaxLen), token)
	for k, v := range fields {
		args = append(args, k, v)
	}
	var out []string
	var err error
	for try := 0; try < appendTries; try++ {
		cctx, cancel := c.ctx(ctx)
		out, err = appendScript.Exec(cctx, c.rdb, []string{c.eventsKey()}, args).AsStrSlice()
		cancel()
		if _, redisErr := rueidis.IsRedisErr(err); err == nil || redisErr || ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) {
			break
		}
	}
	if err != nil {
		return 0, c.fail("XADD event", err)
	}
	if len(out) != 2 {
		return 0, c.fail("XADD event", fmt.Errorf("the script answered %q", out))
	}
	id, err := entrySeq(out[0])
	if err != nil {
		return 0, c.fail("XADD event", err)
	}
	return id, nil
}

// ReadEvents waits up to block for entries after the id after and returns
// at most count of them, oldest first (none when block passed). XREAD with
// BLOCK goes to a connection of its own (rueidis keeps a pool for blocking
// commands), so the other commands' pipeline never waits behind it.
func (c *Client) ReadEvents(ctx context.Context, after int64, block time.Duration, count int) ([]Entry, error) {
	ctx, cancel := context.WithTimeout(ctx, block+c.timeout)
	defer cancel()
	cmd := c.rdb.B().Xread().Count(int64(count)).Block(block.Milliseconds()).Streams().Key(c.eventsKey()).Id(strconv.FormatInt(after, 10) + "-0").Build()
	res, err := c.rdb.Do(ctx, cmd).AsXRead()
	if rueidis.IsRedisNil(err) {
		return nil, nil
	}
	if err != nil {
		return nil, c.fail("XREAD events", err)
	}
	return c.entries("XREAD events", res[c.eventsKey()])
}

// RecentEvents is the stream's last n entries, oldest first.
func (c *Client) RecentEvents(ctx context.Context, n int) ([]Entry, error) {
	ctx, cancel := c.ctx(ctx)
	defer cancel()
	res, err := c.rdb.Do(ctx, c.rdb.B().Xrevrange().Key(c.eventsKey()).End("+").Start("-").Count(int64(n)).Build()).AsXRange()
	if err != nil {
		return nil, c.fail("XREVRANGE events", err)
	}
	out, err := c.entries("XREVRANGE events", res)
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, err
}

func (c *Client) entries(op string, res []rueidis.XRangeEntry) ([]Entry, error) {
	out := make([]Entry, 0, len(res))
	for _, e := range res {
		id, err := entrySeq(e.ID)
		if err != nil {
			return nil, c.fail(op, err)
		}
		prev, err := strconv.ParseInt(e.FieldValues["prev"], 10, 64)
		if err != nil {
			return nil, c.fail(op, fmt.Errorf("entry %s: prev %q: %w", e.ID, e.FieldValues["prev"], err))
		}
		delete(e.FieldValues, "prev")
		delete(e.FieldValues, "u")
		out = append(out, Entry{ID: id, Prev: prev, Fields: e.FieldValues})
	}
	return out, nil
}

// entrySeq is the seq of an entry id "<seq>-0".
func entrySeq(id string) (int64, error) {
	ms, seq, _ := strings.Cut(id, "-")
	n, err := strconv.ParseInt(ms, 10, 64)
	if err != nil || seq != "0" {
		return 0, fmt.Errorf("entry id %q: want <seq>-0", id)
	}
	return n, nil
}

func (c *Client) eventsKey() string { return c.prefix + "stream:events" }

// The instances' wants: one hash, "<prefix>stream:wants", a field per
// instance whose streams want quotes, its value "<expiry ms>|<codes>"
// (Redis's clock, codes comma-separated). Redis 7.0 has no expiry per hash
// field, so the expiry is in the value and a read drops the fields past
// it; one hash is read in one command, where keys of their own would need
// a SCAN of the whole keyspace to be found.

// wantScript: KEYS[1] hash; ARGV[1] instance; ARGV[2] codes; ARGV[3] ttl ms.
var wantScript = rueidis.NewLuaScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[3])
redis.call('HSET', KEYS[1], ARGV[1], string.format('%d', now + ttl) .. '|' .. ARGV[2])
redis.call('PEXPIRE', KEYS[1], ttl)
return 1
`)

// wantedScript: KEYS[1] hash. Returns the codes of the fields not past
// their expiry, and deletes the others.
var wantedScript = rueidis.NewLuaScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local out = {}
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  local exp, codes = string.match(all[i+1], '^(%d+)|(.*)$')
  if exp and tonumber(exp) > now then
    table.insert(out, codes)
  else
    redis.call('HDEL', KEYS[1], all[i])
  end
end
return out
`)

// Want says that instance's streams want quotes of codes for ttl (the
// instance says it again before then while they do).
func (c *Client) Want(ctx context.Context, instance string, codes []string, ttl time.Duration) error {
	ctx, cancel := c.ctx(ctx)
	defer cancel()
	err := wantScript.Exec(ctx, c.rdb, []string{c.wantsKey()},
		[]string{instance, strings.Join(codes, ","), strconv.FormatInt(ceilMillis(ttl), 10)}).Error()
	return c.fail("want quotes", err)
}

// Unwant withdraws the instance's want at once (its streams closed).
func (c *Client) Unwant(ctx context.Context, instance string) error {
	ctx, cancel := c.ctx(ctx)
	defer cancel()
	return c.fail("HDEL want", c.rdb.Do(ctx, c.rdb.B().Hdel().Key(c.wantsKey()).Field(instance).Build()).Error())
}

// Wanted is every code some instance's streams want quotes of (each once).
func (c *Client) Wanted(ctx context.Context) ([]string, error) {
	ctx, cancel := c.ctx(ctx)
	defer cancel()
	lists, err := wantedScript.Exec(ctx, c.rdb, []string{c.wantsKey()}, nil).AsStrSlice()
	if err != nil {
		return nil, c.fail("read wants", err)
	}
	seen := map[string]bool{}
	var out []string
	for _, l := range lists {
		for code := range strings.SplitSeq(l, ",") {
			if code != "" && !seen[code] {
				seen[code] = true
				out = append(out, code)
			}
		}
	}
	return out, nil
}

func (c *Client) wantsKey() string { return c.prefix + "stream:wants" }
