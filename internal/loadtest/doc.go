// Package loadtest holds the sustained-load tests of mdqs: they build the
// real binary, run it in demo mode on 127.0.0.1 with a temporary database,
// and drive GET /v1/api/boards/top50, /v1/api/kline and
// /v1/api/market/movements with signed requests from package loadgen.
//
//	go test ./loadtest                      # the short run (a few seconds), in the normal suite
//	go test -tags load -v ./loadtest        # the sustained run (60 s at real market size)
//	go test -tags load -v ./loadtest -load.duration 5m -load.c 16 -load.rate 400
//	MDQS_TEST_POSTGRES=... MDQS_TEST_REDIS=... go test -tags load -run TeamFigures -v ./loadtest
//
// The last measures a team deployment (issue 15): the signed-request
// verify with the nonce in the PostgreSQL store against the process's
// own set, and the cached top50 of a lone instance, of one instance of a
// team and of two together, in one run (about 40 s).
//
// Both fail on any error answer; the sustained run also bounds the
// server's resident memory and fails if it keeps growing through the
// second half. Neither asserts a latency: the figures are printed.
package loadtest
