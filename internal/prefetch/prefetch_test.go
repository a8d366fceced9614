package prefetch

import (
	"syscall"
	"testing"
	"unsafe"
)

// TestLinesStayInTheirBytes asks for, and reads, the lines of the last n
// bytes before a page that may not be read, for every n up to four lines
// and more: neither Lines nor readLines touches a byte past the n (the
// test would stop on a fault), and readLines returns the sum of the words
// 64 bytes apart from the first, while whole, and of the last byte.
func TestLinesStayInTheirBytes(t *testing.T) {
	page := syscall.Getpagesize()
	mem, err := syscall.Mmap(-1, 0, 2*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skipf("no memory to map: %v", err)
	}
	defer func() { _ = syscall.Munmap(mem) }()
	if err := syscall.Mprotect(mem[page:], syscall.PROT_NONE); err != nil {
		t.Skipf("cannot guard a page: %v", err)
	}
	for i := range page {
		mem[i] = byte(i*7 + 3)
	}
	for n := 1; n <= 300; n++ {
		b := mem[page-n : page]
		p := unsafe.Pointer(&b[0])
		if got := Lines(p, uintptr(n)); !Waits && got != 0 {
			t.Fatalf("n %d: Lines returned %d, want 0 where it waits for nothing", n, got)
		}
		var want uint64
		for off := 0; off+8 <= n; off += 64 {
			want += *(*uint64)(unsafe.Pointer(&b[off]))
		}
		want += uint64(b[n-1])
		if got := readLines(p, uintptr(n)); got != want {
			t.Fatalf("n %d: readLines = %d, want %d", n, got, want)
		}
	}
}
