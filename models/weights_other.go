//go:build !linux

package models

// releasePages is a no-op where madvise is not wired up.
func releasePages([]float32) {}

// releaseBytes is a no-op where madvise is not wired up.
func releaseBytes([]byte) {}
