package sharedstate_test

// Why rueidis and not go-redis: the choice measured in our own run, on the
// operation the API server does most (a nonce's SET NX PX per signed
// request), one caller and many. scale-out.md §5 found go-redis as fast or
// faster for one caller and rueidis about 3× faster for 64, where its
// automatic pipelining sends concurrent commands together over a few
// connections while go-redis takes a pooled connection per command; and
// only rueidis has the server-assisted client-side cache Version uses.
// go-redis is a test-only dependency: nothing outside this file imports it.
//
//	MDQS_TEST_REDIS=redis://127.0.0.1:56379 go test -run '^$' -bench ClientChoice -benchmem ./sharedstate

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"

	goredis "github.com/redis/go-redis/v9"
	"github.com/redis/rueidis"

	"mdqs/internal/sharedstate/redistest"
)

func BenchmarkClientChoiceSetNX(b *testing.B) {
	url := redistest.URL(b)
	prefix := redistest.Prefix(b)
	ctx := context.Background()
	var n atomic.Int64
	key := func() string { return prefix + strconv.FormatInt(n.Add(1), 36) }

	ropt, err := rueidis.ParseURL(url)
	if err != nil {
		b.Fatal(err)
	}
	rdb, err := rueidis.NewClient(ropt) // rueidis's defaults, as Open uses them
	if err != nil {
		b.Fatal(err)
	}
	defer rdb.Close()
	setRueidis := func() error {
		err := rdb.Do(ctx, rdb.B().Set().Key(key()).Value("1").Nx().Px(benchTTL).Build()).Error()
		if rueidis.IsRedisNil(err) {
			return nil
		}
		return err
	}

	gopt, err := goredis.ParseURL(url)
	if err != nil {
		b.Fatal(err)
	}
	gdb := goredis.NewClient(gopt) // go-redis's defaults: a pool of 10 connections per CPU
	defer gdb.Close()
	setGoRedis := func() error { return gdb.SetNX(ctx, key(), "1", benchTTL).Err() }

	for _, client := range []struct {
		name string
		set  func() error
	}{{"rueidis", setRueidis}, {"go-redis", setGoRedis}} {
		b.Run(client.name+"/serial", func(b *testing.B) {
			for b.Loop() {
				if err := client.set(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(client.name+"/parallel32", func(b *testing.B) {
			b.SetParallelism(32)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if err := client.set(); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}
