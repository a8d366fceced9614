#include "textflag.h"

// func Lines(p unsafe.Pointer, n uintptr) uint64
//
// A PREFETCHT0 of every line from p's on, 64 bytes apart, while below the
// last byte's, then one of the last byte's line.
TEXT ·Lines(SB), NOSPLIT, $0-24
	MOVQ p+0(FP), AX
	MOVQ n+8(FP), CX
	LEAQ -1(AX)(CX*1), DX

line:
	PREFETCHT0 (AX)
	ADDQ $64, AX
	CMPQ AX, DX
	JB line
	PREFETCHT0 (DX)
	MOVQ $0, ret+16(FP)
	RET
