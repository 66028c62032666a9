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
	releaseBytes(unsafe.Slice((*byte)(unsafe.Pointer(&data[0])), 4*len(data)))
}

// releaseBytes is releasePages for a slice of bytes.
func releaseBytes(data []byte) {
	if len(data) == 0 {
		return
	}
	page := uintptr(os.Getpagesize())
	base := unsafe.Pointer(&data[0])
	start := uintptr(base)
	end := start + uintptr(len(data))
	skip := (page - start%page) % page // to the first page boundary inside data
	end &^= page - 1
	if end <= start+skip {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Add(base, skip)), end-start-skip)
	_ = syscall.Madvise(b, syscall.MADV_DONTNEED)
}
