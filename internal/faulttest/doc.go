// Package faulttest holds mdqs's fault tests: what the server does when
// its upstream goes down, hangs or answers garbage, when its disk is full
// or its database file read-only, and when it is killed in the middle of a
// large import.
//
//	go test ./faulttest                     # the fast ones, in the normal suite (about 10 s)
//	go test -tags faults -v ./faulttest     # also the slow ones and the open findings
//
// Normal suite: TestUpstreamFaultsServeStaleData,
// TestNoUpstreamAtAllIsAClearError and
// TestHangingUpstreamAnswersWithinUpstreamWait run the server in-process,
// built as `mdqs serve` builds it, on a clock pinned inside a trading
// session so the ranking collects; TestDiskFull runs the real binary on a
// small tmpfs (it needs root or CAP_SYS_ADMIN and skips without).
//
// Tag faults: TestKill9MidImport (the real binary, SIGKILL during a
// 3,000-file import; -kill.files, -kill.bars), TestReadOnlyDatabase (the
// binary as uid 65534 over a root-owned database; needs root),
// TestHungUpstreamWithShippedTimeouts (push2 hanging with the shipped
// timeouts), TestFailingRebuildsDoNotGrowTheStore (the binary, 300
// failing top50?refresh=true requests, or -growth.for=1m of them) and
// TestHangingUpstreamAnswersWithinTheBound (the binary, every upstream
// hanging with the shipped timeouts, 40 K-line readers and top50 in auto
// mode; about 20 s). Issue 20's other findings, each through the binary:
// TestPoisonScreenBounded, TestReplayRefusedAfterRestart,
// TestGuessingLimitedThroughTheBinary, TestOversizeRequestsAnswerTheEnvelope,
// TestDemoServerCallsNoUpstream, TestWriteLockHeldByAnotherProcess,
// TestExclusiveLockHolderIsNamed and TestReadOnlyFolderWithLeftoverWAL
// (needs root).
package faulttest
