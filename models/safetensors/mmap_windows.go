package safetensors

import (
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/windows"
)

// mmapReadOnly maps the first size bytes of f read-only: a file mapping
// object and one view of it. The mapping handle is closed at once; the
// view keeps the mapping alive until munmap.
func mmapReadOnly(f *os.File, size int) ([]byte, error) {
	if size == 0 {
		return nil, fmt.Errorf("cannot map an empty file")
	}
	n := uint64(size)
	h, err := windows.CreateFileMapping(windows.Handle(f.Fd()), nil, windows.PAGE_READONLY,
		uint32(n>>32), uint32(n), nil)
	if err != nil {
		return nil, fmt.Errorf("CreateFileMapping: %w", err)
	}
	defer windows.CloseHandle(h)
	addr, err := windows.MapViewOfFile(h, windows.FILE_MAP_READ, 0, 0, uintptr(size))
	if err != nil {
		return nil, fmt.Errorf("MapViewOfFile: %w", err)
	}
	// addr is memory outside Go's heap: reinterpret it without the
	// uintptr-to-pointer conversion vet flags.
	p := *(*unsafe.Pointer)(unsafe.Pointer(&addr))
	return unsafe.Slice((*byte)(p), size), nil
}

// munmap releases a view made by mmapReadOnly.
func munmap(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	return windows.UnmapViewOfFile(uintptr(unsafe.Pointer(&b[0])))
}
