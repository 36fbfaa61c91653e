package jobs_test

import (
	"testing"

	"mdqs/internal/testservers"
)

// Some tests here need PostgreSQL or Redis: without them they skip, and
// the package's run ends saying how many and how to run them.
func TestMain(m *testing.M) { testservers.Main(m) }
