// Package metrics is the little of Prometheus that mdqs needs: lock-free
// counters and fixed-bucket histograms updated on hot paths, and a writer of
// the text exposition format (version 0.0.4) that a scrape handler fills
// from them and from other packages' stats snapshots. It has no
// dependencies, so any package may record into it.
package metrics
