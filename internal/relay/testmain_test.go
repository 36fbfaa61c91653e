package relay

import (
	"testing"

	"mdqs/internal/testservers"
)

// The tests here need Redis: without it they skip, and the package's run
// ends saying how many and how to run them.
func TestMain(m *testing.M) { testservers.Main(m) }
