//go:build unix

package safetensors

import (
	"os"
	"syscall"
)

// mmapReadOnly maps the first size bytes of f read-only and shared.
func mmapReadOnly(f *os.File, size int) ([]byte, error) {
	return syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_SHARED)
}

// munmap releases a mapping made by mmapReadOnly.
func munmap(b []byte) error { return syscall.Munmap(b) }
