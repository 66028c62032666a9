//go:build unix

package safetensors

import (
	"fmt"
	"os"
	"syscall"
)

// mmapPrivate maps size bytes of f from offset (a page multiple)
// copy-on-write.
func mmapPrivate(f *os.File, offset int64, size int) ([]byte, bool, error) {
	b, err := syscall.Mmap(int(f.Fd()), offset, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE)
	if err != nil {
		return nil, false, fmt.Errorf("mmap %s privately: %w", f.Name(), err)
	}
	return b, true, nil
}
