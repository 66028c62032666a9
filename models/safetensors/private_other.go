//go:build !unix

package safetensors

import "os"

// mmapPrivate is not available here: MapPrivate reports !ok.
func mmapPrivate(*os.File, int64, int) ([]byte, bool, error) { return nil, false, nil }
