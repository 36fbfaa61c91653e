package db

import (
	"database/sql"
	"math"
)

// SQLite has no NaN: the market types' "unknown" NaN is stored as NULL and
// read back as NaN, never as a silent zero.
func nullFloat(v float64) sql.NullFloat64 {
	return sql.NullFloat64{Float64: v, Valid: !math.IsNaN(v) && !math.IsInf(v, 0)}
}

func floatOrNaN(v sql.NullFloat64) float64 {
	if !v.Valid {
		return math.NaN()
	}
	return v.Float64
}

// flag is a boolean as the schema stores it (an integer 1 or 0: SQLite has
// no boolean type, and PostgreSQL will not take a Go bool for BIGINT).
func flag(b bool) int {
	if b {
		return 1
	}
	return 0
}
