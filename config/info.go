package config

// HotRank, News and Finance configure the hot-rank, news and
// financial-report collectors (issue 7 fills these in).
type HotRank struct{}

type News struct{}

type Finance struct{}

func defaultInfo(c *Config) {}

func (c Config) validateInfo(bad func(key, format string, args ...any)) {}
