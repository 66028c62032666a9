package hfparity_test

import (
	"testing"

	"github.com/goeval/goeval/internal/testutil"
)

// TestMain pins the default device to the pure-Go backend (testutil.Main).
func TestMain(m *testing.M) { testutil.Main(m) }
