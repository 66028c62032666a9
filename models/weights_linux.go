package models

import (
	"os"
	"syscall"
	"unsafe"
)

// releasePages drops the whole memory pages under data (a slice of a
// read-only file mapping) from this process's resident set. The kernel
// re-reads them from the file if they are touched again, so this is only an
// RSS hint, never a correctness concern.
func releasePages(data []float32) {
	if len(data) == 0 {
		return
	}
	page := uintptr(os.Getpagesize())
	start := uintptr(unsafe.Pointer(&data[0]))
	end := start + uintptr(len(data))*4
	start = (start + page - 1) &^ (page - 1)
	end &^= page - 1
	if end <= start {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(start)), end-start) //nolint:govet // page-aligned view of the mapping
	_ = syscall.Madvise(b, syscall.MADV_DONTNEED)
}
